/**
 * Tiny builders for CallToolResult values, shared by the fixture servers.
 *
 * A tool failure the model can learn from (unknown id, out of stock, syntax error) is returned as
 * a result with `isError: true` and a clear message, as the MCP spec asks, never thrown: a thrown
 * error would surface as a protocol error the model never sees.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export function text(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }] };
}

export function fail(message: string): CallToolResult {
  return { content: [{ type: "text", text: `Error: ${message}` }], isError: true };
}

/** Text plus the same data as structuredContent, for tools that declare an outputSchema. */
export function structured(message: string, data: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: message }], structuredContent: data };
}

/** Compact, stable JSON for text results (models read it well; tests parse it). */
export function json(value: unknown): CallToolResult {
  return text(JSON.stringify(value, null, 2));
}
