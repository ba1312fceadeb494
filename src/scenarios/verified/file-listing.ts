/**
 * Recipes that ask about a folder's listing, one call to a lister; the task names the folder
 * (the top one or a subfolder), and the answer is read from the listing the server gives:
 *
 * - extension: "Which file in X has the extension .md?", when exactly one file there has it.
 * - names: "Name the files in X", one contains check per name (a folder with no hidden files).
 * - count (a lister with sizes): "How many files are in X?", only where the listing states the
 *   total itself ("Total: 2 files, 1 directories"): a verified answer is one the server states.
 * - largest (a lister with sizes): "Which file in X is the largest?", when one is.
 *
 * The plain recipes go to the server's first lister, the sized ones to each lister that gives
 * sizes (list_directory_with_sizes), so that tool is used too.
 */
import type { ToolResult } from "../../mcp/types.js";
import { extensionOf, folderPhrase, isHidden, parseListing, taskFolders, type FileServer, type PathTool } from "./file-tools.js";
import { answerSentence, containsCheck, isUseful, numericCheck, type Draft, type Recipe, type RecipeContext } from "./recipe.js";

const EXT_TRAIN = ["Which file in {folder} has the extension .{ext}?", "In {folder}, what is the name of the .{ext} file?"];
const EXT_TEST = ["Look in {folder}: which file there ends in .{ext}?"];
const NAMES_TRAIN = ["List the names of the files (not folders) in {folder}.", "What files are directly inside {folder}? Name each one."];
const NAMES_TEST = ["Name every file, leaving folders aside, that {folder} holds."];
const COUNT_TRAIN = ["How many files (not counting folders) are directly inside {folder}?", "Count the files, not the folders, in {folder}."];
const COUNT_TEST = ["What number of files (folders excluded) does {folder} contain?"];
const LARGEST_TRAIN = ["Which file in {folder} is the largest?", "What is the biggest file directly inside {folder}?"];
const LARGEST_TEST = ["Of the files in {folder}, which one takes the most bytes?"];

/** more names than this make a list nobody asks for */
const MAX_NAMED = 6;

export interface SizedEntry {
  name: string;
  dir: boolean;
  /** a file's size in bytes, as near as the listing shows it */
  bytes?: number;
  /** the size as written ("1.50 KB"): two files that read the same are a tie */
  shown?: string;
}

export function fileListingRecipes(server: FileServer): Recipe[] {
  const plain = server.lister.arg ? [server.lister as Required<PathTool>] : [];
  const sized = server.listers.filter(givesSizes);
  return [
    ...plain.flatMap((l) => [
      recipe("list.ext", l, server, 1, buildExtension),
      recipe("list.names", l, server, 1, buildNames),
    ]),
    ...sized.flatMap((l) => [
      recipe("sizes.count", l, server, 1, buildCount),
      recipe("sizes.largest", l, server, 1, buildLargest),
    ]),
  ];
}

type Builder = (ctx: RecipeContext, folder: string, listing: ToolResult) => Draft | undefined;

function recipe(kind: string, lister: Required<PathTool>, server: FileServer, weight: number, build: Builder): Recipe {
  const name = lister.tool.name;
  return {
    id: `generic.files.${kind}.${name}`,
    tools: [...new Set([name, server.lister.tool.name])],
    primary: name,
    weight,
    build: async (ctx) => {
      const listed = await listOneFolder(ctx, server, lister);
      return listed && build(ctx, listed.folder, listed.listing);
    },
  };
}

/** A lister that shows sizes: by its name or description, and not a recursive tree. */
function givesSizes(l: Required<PathTool>): boolean {
  return /size/i.test(`${l.tool.name} ${l.tool.description ?? ""}`) && !/tree/i.test(l.tool.name);
}

/** The solution's one call: the lister on a folder picked among those found by looking around. */
async function listOneFolder(ctx: RecipeContext, server: FileServer, lister: Required<PathTool>): Promise<{ folder: string; listing: ToolResult } | undefined> {
  const folders = await taskFolders(ctx, server);
  if (!folders || folders.length === 0) return undefined;
  const folder = ctx.rng.pick(folders);
  const listing = await ctx.call(lister.tool.name, { [lister.arg]: folder });
  // a cut listing may hide the very file that makes the answer ambiguous
  return isUseful(listing) && !listing.truncated ? { folder, listing } : undefined;
}

function buildExtension(ctx: RecipeContext, folder: string, listing: ToolResult): Draft | undefined {
  const files = parseListing(listing, { hidden: true }).filter((e) => !e.dir);
  if (files.length < 2) return undefined;
  const byExt = new Map<string, string[]>();
  for (const f of files) {
    const ext = extensionOf(f.name);
    if (ext) byExt.set(ext, [...(byExt.get(ext) ?? []), f.name]);
  }
  // one file with the extension, and an extension that is not the file's whole name
  const unique = [...byExt].filter(([, names]) => names.length === 1 && !isHidden(names[0]));
  if (unique.length === 0) return undefined;
  const [ext, [name]] = ctx.rng.pick(unique);
  return {
    task: ctx.phrase(EXT_TRAIN, EXT_TEST, { folder: folderPhrase(folder), ext }),
    difficulty: 1,
    expected: [containsCheck(name)],
    answer: answerSentence(`.${ext} file`, name),
  };
}

function buildNames(ctx: RecipeContext, folder: string, listing: ToolResult): Draft | undefined {
  const all = parseListing(listing, { hidden: true }).filter((e) => !e.dir);
  // a hidden file would belong in the list too, and its name is no answer to write down
  if (all.length === 0 || all.length > MAX_NAMED || all.some((f) => isHidden(f.name))) return undefined;
  const names = all.map((f) => f.name);
  return {
    task: ctx.phrase(NAMES_TRAIN, NAMES_TEST, { folder: folderPhrase(folder) }),
    difficulty: 1,
    expected: names.map(containsCheck),
    answer: `The files are ${names.join(", ")}.`,
  };
}

function buildCount(ctx: RecipeContext, folder: string, listing: ToolResult): Draft | undefined {
  const files = parseSizedListing(listing).filter((e) => !e.dir);
  const stated = statedFileCount(listing);
  // only a total the server states and that agrees with its own lines
  if (stated === undefined || stated !== files.length || stated === 0) return undefined;
  return {
    task: ctx.phrase(COUNT_TRAIN, COUNT_TEST, { folder: folderPhrase(folder) }),
    difficulty: 1,
    expected: [numericCheck(stated)],
    answer: answerSentence("number of files", stated),
  };
}

function buildLargest(ctx: RecipeContext, folder: string, listing: ToolResult): Draft | undefined {
  const largest = uniqueLargest(parseSizedListing(listing));
  if (!largest || isHidden(largest)) return undefined;
  return {
    task: ctx.phrase(LARGEST_TRAIN, LARGEST_TEST, { folder: folderPhrase(folder) }),
    difficulty: 2,
    expected: [containsCheck(largest)],
    answer: answerSentence("largest file", largest),
  };
}

/** The name of the one largest file, when every file shows a size and no other reads the same. */
export function uniqueLargest(entries: readonly SizedEntry[]): string | undefined {
  const files = entries.filter((e) => !e.dir);
  if (files.length < 2 || files.some((f) => f.bytes === undefined)) return undefined;
  const [first, second] = [...files].sort((a, b) => b.bytes! - a.bytes!);
  return first.bytes! > second.bytes! && first.shown !== second.shown ? first.name : undefined;
}

const UNIT_BYTES: Record<string, number> = { b: 1, byte: 1, bytes: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3, tb: 1024 ** 4 };

/**
 * A listing with sizes: server-filesystem's `[FILE] a.txt   21 B` / `[DIR] docs` lines, or a
 * JSON list of {name, type, size}. Hidden entries are kept: they count.
 */
export function parseSizedListing(result: ToolResult): SizedEntry[] {
  const text = result.text.trim();
  try {
    const data: unknown = JSON.parse(text);
    if (Array.isArray(data)) return data.flatMap(sizedJsonEntry);
  } catch {
    // not JSON: lines
  }
  return text.split("\n").flatMap((line): SizedEntry[] => {
    const tagged = /^\s*\[(FILE|DIR)\]\s+(.*\S)\s*$/i.exec(line);
    if (!tagged) return [];
    if (tagged[1].toUpperCase() === "DIR") return [{ name: tagged[2], dir: true }];
    const sized = /^(.*?\S)\s+(\d+(?:\.\d+)?)\s*(B|KB|MB|GB|TB|bytes?)$/i.exec(tagged[2]);
    if (!sized) return [{ name: tagged[2], dir: false }];
    return [{ name: sized[1], dir: false, bytes: Number(sized[2]) * UNIT_BYTES[sized[3].toLowerCase()], shown: `${sized[2]} ${sized[3]}` }];
  });
}

function sizedJsonEntry(e: unknown): SizedEntry[] {
  if (!e || typeof e !== "object") return [];
  const { name, type, size } = e as { name?: unknown; type?: unknown; size?: unknown };
  if (typeof name !== "string") return [];
  const dir = /^dir/i.test(String(type ?? ""));
  return [{ name, dir, ...(typeof size === "number" ? { bytes: size, shown: String(size) } : {}) }];
}

/** "Total: 2 files, 1 directories" → 2; read from the lines that list no entry. */
export function statedFileCount(result: ToolResult): number | undefined {
  const summary = result.text
    .split("\n")
    .filter((l) => !/^\s*\[(FILE|DIR)\]/i.test(l))
    .join("\n");
  const m = /\b(\d+)\s+files?\b/i.exec(summary);
  return m ? Number(m[1]) : undefined;
}
