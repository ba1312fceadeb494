/**
 * A recipe for a tool that tells a file's metadata by its path (server-filesystem's
 * get_file_info, a `stat`): "How many bytes is the file X?". The size is the one field that
 * holds on every fresh copy of a folder; times and permissions change with the copy, so no task
 * asks about them. The file is one a listing shows, in the top folder or a subfolder.
 */
import type { ToolResult, ToolSpec } from "../../mcp/types.js";
import { listsFolders, onlyRequired, PATH_ARG, taskFolders, visibleFiles, type FileServer } from "./file-tools.js";
import { answerSentence, numericCheck, resultData, type Draft, type Recipe, type RecipeContext } from "./recipe.js";

const SIZE_TRAIN = ["How many bytes is the file {path}?", "What is the size of {path} in bytes?"];
const SIZE_TEST = ["Tell me how large {path} is, in bytes."];

export function fileInfoRecipes(server: FileServer): Recipe[] {
  return server.readOnly.flatMap((tool) => {
    const arg = metadataArgument(tool);
    if (!arg) return [];
    return [{ id: `generic.files.info.size.${tool.name}`, tools: [tool.name, server.lister.tool.name], primary: tool.name, weight: 1, build: (ctx: RecipeContext) => build(ctx, server, tool, arg) }];
  });
}

/** The path argument of a metadata tool (get_file_info, stat, file_metadata), else undefined. */
function metadataArgument(tool: ToolSpec): string | undefined {
  const arg = onlyRequired(tool);
  if (!arg || !PATH_ARG.test(arg) || listsFolders(tool)) return undefined;
  return /info|stat|metadata|size/i.test(tool.name) || /\bmetadata\b/i.test(tool.description ?? "") ? arg : undefined;
}

async function build(ctx: RecipeContext, server: FileServer, tool: ToolSpec, arg: string): Promise<Draft | undefined> {
  const folders = await taskFolders(ctx, server);
  if (!folders || folders.length === 0) return undefined;
  const files = await visibleFiles(ctx, server, ctx.rng.pick(folders));
  if (files.length === 0) return undefined;
  const path = ctx.rng.pick(files);
  const info = await ctx.call(tool.name, { [arg]: path });
  if (info.isError || describesFolder(info)) return undefined;
  const size = sizeInBytes(info);
  // an empty file's "0" is an answer a solver could guess
  if (size === undefined || size === 0) return undefined;
  return {
    task: ctx.phrase(SIZE_TRAIN, SIZE_TEST, { path }),
    difficulty: 1,
    expected: [numericCheck(size)],
    answer: answerSentence("size in bytes", size),
  };
}

/**
 * The size a metadata result states in bytes: a JSON `size` field, or a `size: 17` line
 * (server-filesystem's "key: value" lines); a size in other units ("1.2 KB") is not one.
 */
export function sizeInBytes(result: ToolResult): number | undefined {
  const data = resultData(result);
  if (data && typeof data === "object" && !Array.isArray(data)) {
    const size = (data as Record<string, unknown>).size;
    if (typeof size === "number" && Number.isInteger(size) && size >= 0) return size;
  }
  const m = /^\s*"?size"?\s*[:=]\s*"?(\d+)\s*(?:bytes?|B)?"?\s*,?\s*$/im.exec(result.text);
  return m ? Number(m[1]) : undefined;
}

/** "isDirectory: true" or a `type` of directory: the listing's [FILE] was wrong, or changed. */
function describesFolder(result: ToolResult): boolean {
  return /^\s*"?(isDirectory|is_dir|directory)"?\s*[:=]\s*true\b/im.test(result.text) || /^\s*"?type"?\s*[:=]\s*"?dir/im.test(result.text);
}
