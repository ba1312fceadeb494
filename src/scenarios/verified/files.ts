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
 * gets absolute paths under one of those instead; a find task then starts by asking for them.
 */
import { isResourceTool } from "../../mcp/resource-tools.js";
import type { ToolResult, ToolSpec } from "../../mcp/types.js";
import { documentAnswer } from "./document-answer.js";
import { isReadOnlyTool } from "./generic.js";
import { answerSentence, containsCheck, isUseful, numericCheck, type Draft, type Recipe, type RecipeContext } from "./recipe.js";

const PATH_ARG = /^(path|file|filename|file_?path|filepath)$/i;
const DIR_ARG = /^(path|dir|directory|folder|dir_?path)$/i;

const READ_TRAIN = ["Read the file {path} and tell me its {field}.", "What is the {field} in the file {path}?"];
const READ_TEST = ["Open {path}: what {field} does it give?"];
const FIND_TRAIN = ["Somewhere in the server's folders there is a file called {name}. What is its {field}?"];
const FIND_TEST = ["Find the file named {name} (it is in a subfolder) and tell me its {field}."];

interface PathTool {
  tool: ToolSpec;
  /** the argument that takes the path, or undefined for a listing tool with no arguments */
  arg?: string;
}

export interface ListedEntry {
  name: string;
  dir: boolean;
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

/** The file recipes a tool list allows: one pair per reader, listed with the first lister found. */
export function fileRecipes(tools: readonly ToolSpec[]): Recipe[] {
  const readOnly = tools.filter((t) => isReadOnlyTool(t) && !isResourceTool(t));
  const listsFolders = (t: ToolSpec) => /list|tree|(^|_)ls($|_)|dir/i.test(t.name);
  const readers = readOnly.flatMap((t) => {
    const arg = onlyRequired(t);
    // a file's text by its name (read_text_file, cat, get_file_contents); a media reader answers
    // in base64, a metadata one (get_file_info) with times that change
    return arg && PATH_ARG.test(arg) && !listsFolders(t) && /read|cat|content|open/i.test(t.name) && !/media|image|binary|base64|multiple|info|stat/i.test(`${t.name} ${t.description ?? ""}`) ? [{ tool: t, arg }] : [];
  });
  const lister = readOnly
    .filter((t) => listsFolders(t) && !/allowed|roots?$/i.test(t.name))
    .map((t): PathTool | undefined => {
      const arg = onlyRequired(t);
      if (arg !== undefined) return DIR_ARG.test(arg) ? { tool: t, arg } : undefined;
      if (((t.inputSchema.required as string[] | undefined) ?? []).length > 0) return undefined;
      // nothing required: a folder argument may still be offered
      const optional = Object.keys(props(t)).find((p) => DIR_ARG.test(p));
      return optional ? { tool: t, arg: optional } : Object.keys(props(t)).length === 0 ? { tool: t } : undefined;
    })
    .find((l) => l !== undefined);
  if (!lister) return [];
  // list_allowed_directories: the roots to use when "." is outside them
  const allowed = lister.arg ? readOnly.find((t) => /allowed/i.test(t.name) && Object.keys(props(t)).length === 0) : undefined;
  return readers.flatMap((reader) => [
    { id: `generic.files.read.${reader.tool.name}`, tools: [reader.tool.name, lister.tool.name], primary: reader.tool.name, weight: 3, build: (ctx: RecipeContext) => build(ctx, reader, lister, allowed, "read") },
    // finding a file needs a folder argument: a lister without one shows the top folder only
    ...(lister.arg
      ? [{ id: `generic.files.find.${reader.tool.name}`, tools: [lister.tool.name, reader.tool.name], primary: reader.tool.name, weight: 1, build: (ctx: RecipeContext) => build(ctx, reader, lister, allowed, "find") }]
      : []),
  ]);
}

/**
 * The folder tasks start from: "." when the server lists it (relative paths hold on every
 * instance), else one of the folders the server says it may read. Asking for those is part of a
 * find task's solution: the solver must learn them too.
 */
async function chooseRoot(ctx: RecipeContext, lister: PathTool, allowed: ToolSpec | undefined, kind: "read" | "find"): Promise<string | undefined> {
  if (!allowed) return ".";
  const here = await ctx.probe(lister.tool.name, { [lister.arg!]: "." });
  // an error ("." outside the allowed folders) or a folder with nothing to read in it
  if (isUseful(here) && parseListing(here).length > 0) return ".";
  const roots = allowedDirectories(kind === "find" ? await ctx.call(allowed.name, {}) : await ctx.probe(allowed.name, {}));
  // only folders with something in them: an empty one would fail every attempt that picks it
  const listed: string[] = [];
  for (const root of roots) if (parseListing(await ctx.probe(lister.tool.name, { [lister.arg!]: root })).length > 0) listed.push(root);
  return listed.length > 0 ? ctx.rng.pick(listed) : undefined;
}

async function build(ctx: RecipeContext, reader: PathTool, lister: PathTool, allowed: ToolSpec | undefined, kind: "read" | "find"): Promise<Draft | undefined> {
  const list = (dir: string, part: boolean) => {
    const args = lister.arg ? { [lister.arg]: dir } : {};
    return part ? ctx.call(lister.tool.name, args) : ctx.probe(lister.tool.name, args);
  };
  const root = await chooseRoot(ctx, lister, allowed, kind);
  if (root === undefined) return undefined;
  const under = (name: string) => (root === "." ? name : `${root}/${name}`); // Windows servers take "/" too
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

/**
 * Entries of a folder listing as servers write them: `[FILE] a.txt` / `[DIR] docs` lines
 * (server-filesystem), a JSON list of {name, type} (a tree's top level), or one bare name per
 * line (a name with an extension is a file, one ending in "/" a folder).
 */
export function parseListing(result: ToolResult): ListedEntry[] {
  const text = result.text.trim();
  try {
    const data: unknown = JSON.parse(text);
    const list = Array.isArray(data) ? data : undefined;
    if (list)
      return list.flatMap((e) => {
        if (!e || typeof e !== "object" || typeof (e as { name?: unknown }).name !== "string") return [];
        const { name, type } = e as { name: string; type?: unknown };
        return safeName(name) ? [{ name, dir: /^dir/i.test(String(type ?? "")) }] : [];
      });
  } catch {
    // not JSON: lines
  }
  const out: ListedEntry[] = [];
  for (const line of text.split("\n")) {
    const tagged = /^\s*\[(FILE|DIR)\]\s+(.+?)(?:\s{2,}\S.*)?$/i.exec(line);
    if (tagged) {
      if (safeName(tagged[2])) out.push({ name: tagged[2], dir: tagged[1].toUpperCase() === "DIR" });
      continue;
    }
    const bare = line.trim();
    if (/^[\w.-]+\/$/.test(bare) && safeName(bare.slice(0, -1))) out.push({ name: bare.slice(0, -1), dir: true });
    else if (/^[\w-][\w.-]*\.[A-Za-z0-9]{1,8}$/.test(bare) && safeName(bare)) out.push({ name: bare, dir: false });
  }
  return out;
}

/** a plain entry name: no folder part, not hidden (dotfiles are often secrets or tool state) */
function safeName(name: string): boolean {
  return name.length > 0 && name.length <= 100 && !name.includes("/") && !name.includes("\\") && !name.startsWith(".");
}

function props(t: ToolSpec): Record<string, unknown> {
  return (t.inputSchema.properties as Record<string, unknown> | undefined) ?? {};
}

/** the one required argument, when there is exactly one and it takes a string */
function onlyRequired(t: ToolSpec): string | undefined {
  const required = (t.inputSchema.required as string[] | undefined) ?? [];
  if (required.length !== 1) return undefined;
  const schema = props(t)[required[0]] as { type?: unknown } | undefined;
  return schema?.type === "string" || schema?.type === undefined ? required[0] : undefined;
}
