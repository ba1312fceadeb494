/**
 * A recipe for a tool that searches a folder for files by name (server-filesystem's
 * search_files: a folder and a glob pattern): "Somewhere under X there is a file named N: what is
 * its path?" N is a file inside a subfolder whose name occurs nowhere else under X.
 *
 * The answer is checked on the path's stable tail, "subfolder/N": servers answer with absolute
 * paths, and those name each instance's own copy of the folder. The pattern is the file's bare
 * name where the tool matches names anywhere, else the glob `**\/N` (minimatch on relative paths,
 * as server-filesystem does); whichever finds the file is the reference call, tried in that order.
 */
import type { ToolResult, ToolSpec } from "../../mcp/types.js";
import { chooseRoot, DIR_ARG, folderPhrase, joinPath, listFolder, listsFolders, parseListing, props, requiredOf, type FileServer } from "./file-tools.js";
import { answerSentence, containsCheck, isUseful, resultData, type Draft, type Recipe, type RecipeContext } from "./recipe.js";

const PATTERN_ARG = /^(pattern|glob|name|file_?name|query)$/i;

const FIND_TRAIN = ["Somewhere under {folder} there is a file named {name}. What is its path?", "Find the file called {name} under {folder} and give its path."];
const FIND_TEST = ["Where below {folder} is the file {name}? Give its path."];

interface SearchTool {
  tool: ToolSpec;
  pattern: string;
  /** the folder to search, when the tool takes one */
  folder?: string;
}

export function fileSearchRecipes(server: FileServer): Recipe[] {
  return server.readOnly.flatMap((tool) => {
    const search = searchArguments(tool);
    if (!search) return [];
    return [{ id: `generic.files.search.path.${tool.name}`, tools: [tool.name, server.lister.tool.name], primary: tool.name, weight: 1, build: (ctx: RecipeContext) => build(ctx, server, search) }];
  });
}

/** A search tool's pattern and folder arguments: it needs nothing else, and its name says it searches. */
function searchArguments(tool: ToolSpec): SearchTool | undefined {
  if (!/search|find|glob/i.test(tool.name) || listsFolders(tool)) return undefined;
  const names = Object.keys(props(tool));
  const pattern = names.find((p) => PATTERN_ARG.test(p));
  const folder = names.find((p) => DIR_ARG.test(p));
  const required = requiredOf(tool);
  if (!pattern || !required.includes(pattern) || !required.every((r) => r === pattern || r === folder)) return undefined;
  return { tool, pattern, ...(folder ? { folder } : {}) };
}

async function build(ctx: RecipeContext, server: FileServer, search: SearchTool): Promise<Draft | undefined> {
  const root = await chooseRoot(ctx, server, false);
  if (root === undefined) return undefined;
  const target = await fileInSubfolder(ctx, server, root);
  if (!target) return undefined;
  const tail = `${target.subfolder}/${target.name}`;
  const args = await patternThatFinds(ctx, search, root, target.name, tail);
  if (!args) return undefined;
  const found = await ctx.call(search.tool.name, args);
  if (!isUseful(found)) return undefined;
  return {
    task: ctx.phrase(FIND_TRAIN, FIND_TEST, { folder: folderPhrase(root), name: target.name }),
    difficulty: 2,
    expected: [containsCheck(tail)],
    answer: answerSentence("path", joinPath(root, tail)),
  };
}

/** A visible file in a visible subfolder of the root, whose name the top folder does not also have. */
async function fileInSubfolder(ctx: RecipeContext, server: FileServer, root: string): Promise<{ subfolder: string; name: string } | undefined> {
  const top = await listFolder(ctx, server.lister, root, false);
  if (!isUseful(top)) return undefined;
  const topNames = new Set(parseListing(top, { hidden: true }).map((e) => e.name));
  const subfolders = parseListing(top).filter((e) => e.dir);
  if (subfolders.length === 0) return undefined;
  const subfolder = ctx.rng.pick(subfolders).name;
  const inner = await listFolder(ctx, server.lister, joinPath(root, subfolder), false);
  if (!isUseful(inner)) return undefined;
  // glob characters in a name would make the pattern mean something else
  const files = parseListing(inner).filter((e) => !e.dir && !topNames.has(e.name) && !/[*?[\]{}!]/.test(e.name));
  return files.length > 0 ? { subfolder, name: ctx.rng.pick(files).name } : undefined;
}

/** The arguments of the first pattern whose result lists exactly one entry named `name`, the one at `tail`. */
async function patternThatFinds(ctx: RecipeContext, search: SearchTool, root: string, name: string, tail: string): Promise<Record<string, unknown> | undefined> {
  for (const pattern of [name, `**/${name}`]) {
    const args = { ...(search.folder ? { [search.folder]: root } : {}), [search.pattern]: pattern };
    const result = await ctx.probe(search.tool.name, args);
    if (!isUseful(result)) continue;
    const named = foundPaths(result).filter((p) => p === name || p.endsWith(`/${name}`));
    // a second file of that name (deeper down, or in another subfolder) makes "its path" ambiguous
    if (named.length === 1 && (named[0] === tail || named[0].endsWith(`/${tail}`))) return args;
    if (named.length > 1) return undefined;
  }
  return undefined;
}

/** The paths a search result lists: a JSON list (of strings, or of {path}) or one per line. */
export function foundPaths(result: ToolResult): string[] {
  const data = resultData(result);
  const list = Array.isArray(data) ? data : undefined;
  if (list) return list.flatMap((e) => (typeof e === "string" ? [e] : e && typeof e === "object" && typeof (e as { path?: unknown }).path === "string" ? [(e as { path: string }).path] : []));
  return result.text
    .split("\n")
    .map((l) => l.trim().replace(/\\/g, "/"))
    .filter((l) => l.length > 0);
}
