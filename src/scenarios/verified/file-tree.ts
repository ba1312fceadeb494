/**
 * Recipes for a lister that shows a whole tree at once (server-filesystem's directory_tree: a
 * JSON list of {name, type, children}); one call on the top folder, and questions only the whole
 * tree answers, about a file inside a subfolder:
 *
 * - folder: "Which subfolder of X holds the file N?", answered by the folder's name (the tree
 *   states names, not paths), when N and that folder's name each occur once in the tree.
 * - extension: "Which file anywhere under X has the extension .md?", when exactly one does.
 */
import type { ToolResult } from "../../mcp/types.js";
import { chooseRoot, extensionOf, folderPhrase, isHidden, type FileServer, type PathTool } from "./file-tools.js";
import { answerSentence, containsCheck, isUseful, type Draft, type Recipe, type RecipeContext } from "./recipe.js";

const FOLDER_TRAIN = ["Somewhere under {folder} there is a file named {name}. Which subfolder is it in?", "In which subfolder of {folder} is the file {name}?"];
const FOLDER_TEST = ["Which folder beneath {folder} holds the file {name}?"];
const EXT_TRAIN = ["Exactly one file anywhere under {folder}, subfolders included, has the extension .{ext}. What is it called?", "Search the whole tree under {folder}: which file has the extension .{ext}?"];
const EXT_TEST = ["Which file, at any depth below {folder}, ends in .{ext}?"];

export interface TreeEntry {
  name: string;
  dir: boolean;
  /** the names of the folders it is in, from the tree's top */
  folders: string[];
  /** it or a folder it is in is hidden (.git/…): no answer is taken from there */
  hidden: boolean;
}

export function fileTreeRecipes(server: FileServer): Recipe[] {
  return server.listers.filter(showsTree).flatMap((tree) => [
    { id: `generic.files.tree.folder.${tree.tool.name}`, tools: [tree.tool.name, server.lister.tool.name], primary: tree.tool.name, weight: 1, build: (ctx: RecipeContext) => build(ctx, server, tree, askFolder) },
    { id: `generic.files.tree.ext.${tree.tool.name}`, tools: [tree.tool.name, server.lister.tool.name], primary: tree.tool.name, weight: 1, build: (ctx: RecipeContext) => build(ctx, server, tree, askExtension) },
  ]);
}

/** directory_tree, or a lister whose description says it goes down every subfolder */
function showsTree(l: Required<PathTool>): boolean {
  return /tree/i.test(l.tool.name) || (/recursive/i.test(l.tool.description ?? "") && !/non-?recursive/i.test(l.tool.description ?? ""));
}

type Question = (ctx: RecipeContext, folder: string, entries: TreeEntry[]) => Draft | undefined;

async function build(ctx: RecipeContext, server: FileServer, tree: Required<PathTool>, ask: Question): Promise<Draft | undefined> {
  const root = await chooseRoot(ctx, server, false);
  if (root === undefined) return undefined;
  const result = await ctx.call(tree.tool.name, { [tree.arg]: root });
  if (!isUseful(result) || result.truncated) return undefined;
  const entries = parseTree(result);
  return entries && ask(ctx, root, entries);
}

function askFolder(ctx: RecipeContext, folder: string, entries: TreeEntry[]): Draft | undefined {
  const files = entries.filter((e) => !e.dir);
  const dirs = entries.filter((e) => e.dir);
  const once = (list: TreeEntry[], name: string) => list.filter((e) => e.name.toLowerCase() === name.toLowerCase()).length === 1;
  const candidates = files.filter((f) => {
    const parent = f.folders.at(-1);
    // the folder's name must not be given away by the file's name or the folder the task names
    return parent !== undefined && !f.hidden && once(files, f.name) && once(dirs, parent) && !f.name.toLowerCase().includes(parent.toLowerCase()) && !folder.toLowerCase().includes(parent.toLowerCase());
  });
  if (candidates.length === 0) return undefined;
  const file = ctx.rng.pick(candidates);
  const parent = file.folders.at(-1)!;
  return {
    task: ctx.phrase(FOLDER_TRAIN, FOLDER_TEST, { folder: folderPhrase(folder), name: file.name }),
    difficulty: 2,
    expected: [containsCheck(parent)],
    answer: `The file ${file.name} is in the folder ${file.folders.join("/")}.`,
  };
}

function askExtension(ctx: RecipeContext, folder: string, entries: TreeEntry[]): Draft | undefined {
  const files = entries.filter((e) => !e.dir);
  const withExt = (ext: string) => files.filter((f) => extensionOf(f.name) === ext);
  // a file in a subfolder, so the top folder's listing alone does not answer it
  const candidates = files.filter((f) => {
    const ext = extensionOf(f.name);
    return ext !== undefined && !f.hidden && f.folders.length > 0 && withExt(ext).length === 1;
  });
  if (candidates.length === 0) return undefined;
  const file = ctx.rng.pick(candidates);
  const ext = extensionOf(file.name)!;
  return {
    task: ctx.phrase(EXT_TRAIN, EXT_TEST, { folder: folderPhrase(folder), ext }),
    difficulty: 2,
    expected: [containsCheck(file.name)],
    answer: answerSentence(`.${ext} file`, file.name),
  };
}

/**
 * Every entry of a JSON tree ([{name, type, children}], or one {children} node), with the folders
 * it is in; undefined for anything else, or a name with a folder part (no guessing at paths).
 */
export function parseTree(result: ToolResult): TreeEntry[] | undefined {
  let data: unknown;
  try {
    data = JSON.parse(result.text);
  } catch {
    return undefined;
  }
  const top = Array.isArray(data) ? data : (data as { children?: unknown } | null)?.children;
  if (!Array.isArray(top)) return undefined;
  const out: TreeEntry[] = [];
  const walk = (nodes: unknown[], folders: string[], hidden: boolean): boolean =>
    nodes.every((node) => {
      if (!node || typeof node !== "object") return false;
      const { name, type, children } = node as { name?: unknown; type?: unknown; children?: unknown };
      if (typeof name !== "string" || name === "" || /[/\\]/.test(name)) return false;
      const dir = /^dir/i.test(String(type ?? "")) || Array.isArray(children);
      const entry = { name, dir, folders, hidden: hidden || isHidden(name) };
      out.push(entry);
      return !Array.isArray(children) || walk(children, [...folders, name], entry.hidden);
    });
  return walk(top, [], false) ? out : undefined;
}
