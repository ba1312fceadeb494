/**
 * A recipe for a tool that reads several files in one call (server-filesystem's
 * read_multiple_files: `paths`, an array): "What is the first line of A and of B?", two contains
 * checks. The files are two that listings show (the top folder's and a subfolder's); the first
 * lines are read from the tool's own answer, where each file's text follows a "path:" line.
 */
import { mentionsWorkCopy } from "../../mcp/toolbox.js";
import { quotable, withoutReadBanner } from "./document-answer.js";
import type { ToolResult, ToolSpec } from "../../mcp/types.js";
import { props, requiredOf, taskFolders, visibleFiles, type FileServer } from "./file-tools.js";
import { containsCheck, isUseful, type Draft, type Recipe, type RecipeContext } from "./recipe.js";

const FIRST_TRAIN = ["What is the first line of {a}, and the first line of {b}?", "Give me the first line of each of these files: {a} and {b}."];
const FIRST_TEST = ["Read {a} and {b} together and tell me how each one begins (its first line)."];

/** a first line longer than this is prose a solver would paraphrase, not quote */
const MAX_LINE = 80;

export function multiReadRecipes(server: FileServer): Recipe[] {
  return server.readOnly.flatMap((tool) => {
    const arg = pathsArgument(tool);
    if (!arg) return [];
    return [{ id: `generic.files.multi.first-lines.${tool.name}`, tools: [tool.name, server.lister.tool.name], primary: tool.name, weight: 1, build: (ctx: RecipeContext) => build(ctx, server, tool, arg) }];
  });
}

/** The one required argument of a reader of several files: an array of paths (`paths`, `files`). */
function pathsArgument(tool: ToolSpec): string | undefined {
  const required = requiredOf(tool);
  if (required.length !== 1 || !/^(paths|files|file_?paths)$/i.test(required[0])) return undefined;
  const schema = props(tool)[required[0]] as { type?: unknown } | undefined;
  return schema?.type === "array" && /read|content|cat|open/i.test(tool.name) ? required[0] : undefined;
}

async function build(ctx: RecipeContext, server: FileServer, tool: ToolSpec, arg: string): Promise<Draft | undefined> {
  const folders = await taskFolders(ctx, server);
  if (!folders || folders.length === 0) return undefined;
  // the top folder's files and one subfolder's, so a pair may span folders
  const [root, ...subfolders] = folders;
  const files = [...(await visibleFiles(ctx, server, root)), ...(subfolders.length > 0 ? await visibleFiles(ctx, server, ctx.rng.pick(subfolders)) : [])];
  if (files.length < 2) return undefined;
  // in path order: "a and b" and "b and a" are one task
  const [a, b] = ctx.rng.sample(files, 2).sort();
  const result = await ctx.call(tool.name, { [arg]: [a, b] });
  if (!isUseful(result) || result.truncated) return undefined;
  const lineA = firstLineOf(result, a);
  const lineB = firstLineOf(result, b);
  if (!lineA || !lineB || !distinctAnswers(lineA, lineB, [a, b])) return undefined;
  return {
    task: ctx.phrase(FIRST_TRAIN, FIRST_TEST, { a, b }),
    difficulty: 2,
    expected: [containsCheck(lineA), containsCheck(lineB)],
    answer: `The first line of ${a} is "${lineA}", and the first line of ${b} is "${lineB}".`,
  };
}

/**
 * The first non-empty line of `path`'s text in a several-files answer: the lines after its own
 * "path:" line (server-filesystem) or "--- path contents: ---" line (desktop-commander), up to
 * the "---" line that ends its part or starts the next. A Markdown heading is read without its "#".
 */
export function firstLineOf(result: ToolResult, path: string): string | undefined {
  const text = result.text.replace(/\r\n/g, "\n");
  // a file's own mark, never a line of another file's text that happens to read "b.txt:":
  // desktop-commander's, or server-filesystem's at the start or after the "---" between files
  const found = [
    { marker: `--- ${path} contents: ---\n`, at: lineStartIndex(text, `--- ${path} contents: ---\n`) },
    { marker: `${path}:\n`, at: text.startsWith(`${path}:\n`) ? 0 : ((i) => (i < 0 ? i : i + "\n---\n".length))(text.indexOf(`\n---\n${path}:\n`)) },
  ].find((m) => m.at >= 0);
  if (!found) return undefined;
  const part = withoutReadBanner(text.slice(found.at + found.marker.length).split(/\n--- .+ contents: ---\n|\n---\n/)[0]);
  const line = part
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l.length > 0)
    ?.replace(/^#{1,6}\s+/, "");
  return line && line.length <= MAX_LINE && quotable(line) && !/^error\b/i.test(line) && !mentionsWorkCopy(line) ? line : undefined;
}

/** where `marker` starts a line of `text` ("a.txt:" is also the end of "sub/a.txt:"), or -1 */
function lineStartIndex(text: string, marker: string): number {
  let at = text.indexOf(marker);
  while (at > 0 && text[at - 1] !== "\n") at = text.indexOf(marker, at + 1);
  return at;
}

/** Two lines a contains check tells apart: neither holds the other, and neither is just a file's name. */
function distinctAnswers(a: string, b: string, paths: readonly string[]): boolean {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const names = paths.flatMap((p) => [p.toLowerCase(), p.split("/").at(-1)!.toLowerCase()]);
  return !x.includes(y) && !y.includes(x) && !names.includes(x) && !names.includes(y);
}
