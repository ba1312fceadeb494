/**
 * Tool discovery and the OpenAI function-tool view. `tools/list` is paginated (MCP spec
 * "Pagination": follow `nextCursor` until absent); a server that repeats a cursor or pages
 * forever is cut off rather than looping. Each tool is checked with ToolSpecSchema (zod) so a
 * malformed entry is named, not silently passed on.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { TrainMcpError } from "../errors.js";
import { ToolSpecSchema, type OpenAiTool, type ToolSpec } from "./types.js";

const MAX_PAGES = 1000;

export async function listAllTools(client: Client, timeoutMs: number): Promise<ToolSpec[]> {
  const tools: ToolSpec[] = [];
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs });
    for (const raw of result.tools) {
      const parsed = ToolSpecSchema.safeParse(raw);
      if (!parsed.success) {
        const name = typeof raw.name === "string" ? raw.name : "?";
        throw new TrainMcpError("ServerUnreachable", `server sent an invalid tool "${name}": ${parsed.error.issues[0]?.message ?? "bad shape"}`);
      }
      tools.push(parsed.data);
    }
    cursor = result.nextCursor;
    if (cursor === undefined || seenCursors.has(cursor)) break;
    seenCursors.add(cursor);
  }
  return tools;
}

/** `{type:"function", function:{name, description, parameters}}` as chat templates expect */
export function toOpenAiTool(tool: ToolSpec): OpenAiTool {
  // `$schema` means nothing to a model and costs prompt tokens
  const { $schema: _ignored, ...parameters } = tool.inputSchema;
  return {
    type: "function",
    function: { name: tool.name, description: tool.description || tool.title || "", parameters },
  };
}
