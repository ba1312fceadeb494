/**
 * What every file recipe shares: recognizing a server that addresses files by path (a read-only
 * tool that lists a folder), reading its listings, and choosing the folder a task starts from.
 *
 * Paths are relative to the server's working directory ("."), which is its own copy of
 * --template-dir when one is given: tasks then hold on every instance. A server that cannot list
 * "." (server-filesystem started on an absolute folder elsewhere) but names the folders it may
 * read (list_allowed_directories) gets absolute paths under one of those instead.
 */
import { isResourceTool } from "../../mcp/resource-tools.js";
import type { ToolResult, ToolSpec } from "../../mcp/types.js";
import { isReadOnlyTool } from "./generic.js";
import { isUseful, type RecipeContext } from "./recipe.js";

export const PATH_ARG = /^(path|file|filename|file_?path|filepath)$/i;
export const DIR_ARG = /^(path|dir|directory|folder|dir_?path)$/i;

export interface PathTool {
  tool: ToolSpec;
  /** the argument that takes the path, or undefined for a listing tool with no arguments */
  arg?: string;
}

/** A server that lists folders: its read-only tools, the lister the recipes look around with, and
 *  the tool that names its allowed folders (when the lister takes a folder). */
export interface FileServer {
  readOnly: ToolSpec[];
  lister: PathTool;
  /** every read-only tool that lists a folder by a folder argument, `lister` first */
  listers: Array<Required<PathTool>>;
  allowed?: ToolSpec;
}

export interface ListedEntry {
  name: string;
  dir: boolean;
}

/** Names that say a tool lists folders: list_directory, directory_tree, ls. */
export function listsFolders(t: ToolSpec): boolean {
  return /list|tree|(^|_)ls($|_)|dir/i.test(t.name);
}

/** The server's file tools, or undefined when none of its read-only tools lists a folder. */
export function detectFileServer(tools: readonly ToolSpec[]): FileServer | undefined {
  const readOnly = tools.filter((t) => isReadOnlyTool(t) && !isResourceTool(t));
  const listers = readOnly.filter((t) => listsFolders(t) && !/allowed|roots?$/i.test(t.name)).flatMap((t) => {
    const lister = folderArgument(t);
    return lister ? [lister] : [];
  });
  const lister = listers[0];
  if (!lister) return undefined;
  // list_allowed_directories: the roots to use when "." is outside them
  const allowed = lister.arg ? readOnly.find((t) => /allowed/i.test(t.name) && Object.keys(props(t)).length === 0) : undefined;
  const withFolder = listers.filter((l): l is Required<PathTool> => l.arg !== undefined);
  return { readOnly, lister, listers: withFolder, ...(allowed ? { allowed } : {}) };
}

/** How a lister takes its folder: its one required argument, an optional folder argument, or none at all. */
function folderArgument(t: ToolSpec): PathTool | undefined {
  const arg = onlyRequired(t);
  if (arg !== undefined) return DIR_ARG.test(arg) ? { tool: t, arg } : undefined;
  if (requiredOf(t).length > 0) return undefined;
  // nothing required: a folder argument may still be offered
  const optional = Object.keys(props(t)).find((p) => DIR_ARG.test(p));
  return optional ? { tool: t, arg: optional } : Object.keys(props(t)).length === 0 ? { tool: t } : undefined;
}

/** The folders a server may read: `/abs/dir` lines (server-filesystem's "Allowed directories:" reply) or a JSON list of them. */
export function allowedDirectories(result: ToolResult): string[] {
  if (result.isError) return [];
  let lines = result.text.split("\n");
  try {
    const data: unknown = JSON.parse(result.text);
    if (Array.isArray(data)) lines = data.filter((d): d is string => typeof d === "string");
  } catch {
    // not JSON: lines
  }
  // absolute POSIX or Windows paths only; a root folder ("/") would make every path on the machine a task
  const dirs = lines.map((l) => l.trim().replace(/[/\\]+$/, "")).filter((l) => /^(\/|[A-Za-z]:\\)[^\n]+$/.test(l) && !/\.\.|[\u0000-\u001f]/.test(l));
  return [...new Set(dirs)];
}

/**
 * The folder tasks start from: "." when the server lists it (relative paths hold on every
 * instance), else one of the folders the server says it may read. With `learn`, asking for those
 * is part of the solution: the task does not name the folder, so the solver must learn it too.
 */
export async function chooseRoot(ctx: RecipeContext, server: FileServer, learn: boolean): Promise<string | undefined> {
  const { lister, allowed } = server;
  if (!allowed || !lister.arg) return ".";
  const here = await ctx.probe(lister.tool.name, { [lister.arg]: "." });
  // an error ("." outside the allowed folders) or a folder with nothing to read in it
  if (isUseful(here) && parseListing(here).length > 0) return ".";
  const roots = allowedDirectories(learn ? await ctx.call(allowed.name, {}) : await ctx.probe(allowed.name, {}));
  // only folders with something in them: an empty one would fail every attempt that picks it
  const listed: string[] = [];
  for (const root of roots) if (parseListing(await ctx.probe(lister.tool.name, { [lister.arg]: root })).length > 0) listed.push(root);
  return listed.length > 0 ? ctx.rng.pick(listed) : undefined;
}

/** A path inside `dir` as the server takes it ("." adds nothing; Windows servers take "/" too). */
export function joinPath(dir: string, name: string): string {
  return dir === "." ? name : `${dir}/${name}`;
}

/** How a task names a folder: the top one by its "." so the solver knows what to pass. */
export function folderPhrase(dir: string): string {
  return dir === "." ? 'the top folder (".")' : `the folder ${dir}`;
}

/** Lists a folder with the lister: as part of the solution (`part`) or only to look around. */
export function listFolder(ctx: RecipeContext, lister: PathTool, dir: string, part: boolean): Promise<ToolResult> {
  const args = lister.arg ? { [lister.arg]: dir } : {};
  return part ? ctx.call(lister.tool.name, args) : ctx.probe(lister.tool.name, args);
}

/**
 * The folders a task may name, found by looking around: the root and each of its subfolders that
 * are not hidden. Undefined when the root cannot be listed.
 */
export async function taskFolders(ctx: RecipeContext, server: FileServer): Promise<string[] | undefined> {
  const root = await chooseRoot(ctx, server, false);
  if (root === undefined || !server.lister.arg) return root === undefined ? undefined : [root];
  const top = await listFolder(ctx, server.lister, root, false);
  if (!isUseful(top)) return undefined;
  return [root, ...parseListing(top).filter((e) => e.dir).map((e) => joinPath(root, e.name))];
}

/** The visible files of a folder, as paths the server takes; found by looking around. */
export async function visibleFiles(ctx: RecipeContext, server: FileServer, dir: string): Promise<string[]> {
  const listing = await listFolder(ctx, server.lister, dir, false);
  if (!isUseful(listing)) return [];
  return parseListing(listing)
    .filter((e) => !e.dir)
    .map((e) => joinPath(dir, e.name));
}

/**
 * Entries of a folder listing as servers write them: `[FILE] a.txt` / `[DIR] docs` lines
 * (server-filesystem), a JSON list of {name, type} (a tree's top level), or one bare name per
 * line (a name with an extension is a file, one ending in "/" a folder). Hidden entries are left
 * out unless asked for (dotfiles are often secrets or tool state); a count must include them.
 */
export function parseListing(result: ToolResult, options: { hidden?: boolean } = {}): ListedEntry[] {
  const keep = (name: string) => plainName(name) && (options.hidden === true || !isHidden(name));
  const text = result.text.trim();
  try {
    const data: unknown = JSON.parse(text);
    const list = Array.isArray(data) ? data : undefined;
    if (list)
      return list.flatMap((e) => {
        if (!e || typeof e !== "object" || typeof (e as { name?: unknown }).name !== "string") return [];
        const { name, type } = e as { name: string; type?: unknown };
        return keep(name) ? [{ name, dir: /^dir/i.test(String(type ?? "")) }] : [];
      });
  } catch {
    // not JSON: lines
  }
  const out: ListedEntry[] = [];
  for (const line of text.split("\n")) {
    const tagged = /^\s*\[(FILE|DIR)\]\s+(.+?)(?:\s{2,}\S.*)?$/i.exec(line);
    if (tagged) {
      if (keep(tagged[2])) out.push({ name: tagged[2], dir: tagged[1].toUpperCase() === "DIR" });
      continue;
    }
    const bare = line.trim();
    if (/^\.?[\w.-]+\/$/.test(bare) && keep(bare.slice(0, -1))) out.push({ name: bare.slice(0, -1), dir: true });
    else if (/^\.?[\w-][\w.-]*\.[A-Za-z0-9]{1,8}$/.test(bare) && keep(bare)) out.push({ name: bare, dir: false });
  }
  return out;
}

/** a dotfile or dotfolder: .env, .git */
export function isHidden(name: string): boolean {
  return name.startsWith(".");
}

/** an entry name with no folder part */
function plainName(name: string): boolean {
  return name.length > 0 && name.length <= 100 && !name.includes("/") && !name.includes("\\") && name !== "." && name !== "..";
}

/** "report.final.md" → "md"; undefined for "Makefile", ".env" and odd endings */
export function extensionOf(name: string): string | undefined {
  const m = /^[^.].*\.([A-Za-z0-9]{1,8})$/.exec(name);
  return m ? m[1].toLowerCase() : undefined;
}

export function props(t: ToolSpec): Record<string, unknown> {
  return (t.inputSchema.properties as Record<string, unknown> | undefined) ?? {};
}

export function requiredOf(t: ToolSpec): string[] {
  return (t.inputSchema.required as string[] | undefined) ?? [];
}

/** the one required argument, when there is exactly one and it takes a string */
export function onlyRequired(t: ToolSpec): string | undefined {
  const required = requiredOf(t);
  if (required.length !== 1) return undefined;
  const schema = props(t)[required[0]] as { type?: unknown } | undefined;
  return schema?.type === "string" || schema?.type === undefined ? required[0] : undefined;
}
