/**
 * Recipes for servers that address files by path (server-filesystem and its kind): a generic
 * single-call recipe cannot invent a path that exists, so these list a folder for real, pick a
 * file the listing shows, read it, and ask about what it says (document-answer.ts).
 *
 * - read: the task names the file's path; the solution reads it.
 * - find: the task names only a file inside a subfolder by its base name, so the solver lists
 *   the top folder, then the subfolder, then reads.
 *
 * They apply where the server has a read-only tool that reads a file by a required path argument
 * and a read-only tool that lists a folder by one (or by none). Paths are relative to the
 * server's working directory ("."), which is its own copy of --template-dir when one is given:
 * tasks then hold on every instance. A server that cannot list "." (server-filesystem started on
 * an absolute folder elsewhere) but names the folders it may read (list_allowed_directories)
 * gets absolute paths under one of those instead; a find task then starts by asking for them
 * (file-tools.ts).
 *
 * The server's other file tools get recipes of their own, one module each: listing a folder and
 * its sizes (file-listing.ts), a whole tree (file-tree.ts), a file's metadata (file-info.ts),
 * searching by name (file-search.ts) and reading several files at once (file-multi-read.ts).
 */
import type { ToolSpec } from "../../mcp/types.js";
import { documentAnswer } from "./document-answer.js";
import { fileInfoRecipes } from "./file-info.js";
import { fileListingRecipes } from "./file-listing.js";
import { multiReadRecipes } from "./file-multi-read.js";
import { fileSearchRecipes } from "./file-search.js";
import { chooseRoot, detectFileServer, joinPath, listFolder, listsFolders, onlyRequired, parseListing, PATH_ARG, type FileServer, type PathTool } from "./file-tools.js";
import { fileTreeRecipes } from "./file-tree.js";
import { answerSentence, containsCheck, isUseful, numericCheck, type Draft, type Recipe, type RecipeContext } from "./recipe.js";

export { allowedDirectories, parseListing, type ListedEntry } from "./file-tools.js";

const READ_TRAIN = ["Read the file {path} and tell me its {field}.", "What is the {field} in the file {path}?"];
const READ_TEST = ["Open {path}: what {field} does it give?"];
const FIND_TRAIN = ["Somewhere in the server's folders there is a file called {name}. What is its {field}?"];
const FIND_TEST = ["Find the file named {name} (it is in a subfolder) and tell me its {field}."];

/** The file recipes a tool list allows: read and find per reader, and those of the other file tools (listing, tree, info, search, reading several). */
export function fileRecipes(tools: readonly ToolSpec[]): Recipe[] {
  const server = detectFileServer(tools);
  if (!server) return [];
  return [...readRecipes(server), ...fileListingRecipes(server), ...fileTreeRecipes(server), ...fileInfoRecipes(server), ...fileSearchRecipes(server), ...multiReadRecipes(server)];
}

/** One read and one find recipe per reader, listed with the server's first lister. */
function readRecipes(server: FileServer): Recipe[] {
  const readers = server.readOnly.flatMap((t) => {
    const arg = onlyRequired(t);
    // a file's text by its name (read_text_file, cat, get_file_contents); a media reader answers
    // in base64, a metadata one (get_file_info) with times that change. The name decides, and the
    // description's first sentence: desktop-commander's read_file reads text and mentions the
    // images and PDFs it also reads further on
    return arg && PATH_ARG.test(arg) && !listsFolders(t) && /read|cat|content|open/i.test(t.name) && !/media|image|binary|base64|multiple|info|stat/i.test(t.name) && !/image|binary|base64/i.test(firstSentence(t.description)) ? [{ tool: t, arg }] : [];
  });
  const lister = server.lister;
  return readers.flatMap((reader) => [
    { id: `generic.files.read.${reader.tool.name}`, tools: [reader.tool.name, lister.tool.name], primary: reader.tool.name, weight: 3, build: (ctx: RecipeContext) => build(ctx, reader, server, "read") },
    // finding a file needs a folder argument: a lister without one shows the top folder only
    ...(lister.arg
      ? [{ id: `generic.files.find.${reader.tool.name}`, tools: [lister.tool.name, reader.tool.name], primary: reader.tool.name, weight: 1, build: (ctx: RecipeContext) => build(ctx, reader, server, "find") }]
      : []),
  ]);
}

async function build(ctx: RecipeContext, reader: PathTool, server: FileServer, kind: "read" | "find"): Promise<Draft | undefined> {
  const list = (dir: string, part: boolean) => listFolder(ctx, server.lister, dir, part);
  // a find task does not name the folder: the solver learns the allowed ones first
  const root = await chooseRoot(ctx, server, kind === "find");
  if (root === undefined) return undefined;
  const under = (name: string) => joinPath(root, name);
  // the top listing is looked at, not part of the solution, when the task gives the path
  const top = await list(root, kind === "find");
  if (!isUseful(top)) return undefined;
  const entries = parseListing(top);
  let path: string;
  let name: string;
  if (kind === "read") {
    const files = entries.filter((e) => !e.dir);
    if (files.length === 0) return undefined;
    name = ctx.rng.pick(files).name;
    path = under(name);
  } else {
    const dirs = entries.filter((e) => e.dir);
    if (dirs.length === 0) return undefined;
    const dir = under(ctx.rng.pick(dirs).name);
    const inner = await list(dir, true);
    if (!isUseful(inner)) return undefined;
    // a name the top folder also has would make "the file called X" ambiguous
    const files = parseListing(inner).filter((e) => !e.dir && !entries.some((t) => t.name === e.name));
    if (files.length === 0) return undefined;
    name = ctx.rng.pick(files).name;
    path = `${dir}/${name}`;
  }
  const read = await ctx.call(reader.tool.name, { [reader.arg!]: path });
  if (!isUseful(read) || read.truncated) return undefined;
  const field = documentAnswer(read, { path, name }, (n) => ctx.rng.int(0, n - 1));
  if (!field) return undefined;
  const label = field.label === "result" ? "content" : field.label;
  const task = kind === "read" ? ctx.phrase(READ_TRAIN, READ_TEST, { path, field: label }) : ctx.phrase(FIND_TRAIN, FIND_TEST, { name, field: label });
  return {
    task,
    difficulty: kind === "read" ? 1 : 3,
    expected: [typeof field.value === "number" ? numericCheck(field.value) : containsCheck(field.value)],
    answer: answerSentence(label, field.value),
  };
}

/** "Read a file. Also images." → "Read a file." (the whole text when it has no full stop) */
function firstSentence(description: string | undefined): string {
  const text = (description ?? "").trim();
  const end = text.search(/[.!?](\s|$)/);
  return end < 0 ? text : text.slice(0, end + 1);
}
