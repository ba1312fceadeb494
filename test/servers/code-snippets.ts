/**
 * A test MCP server (stdio) in the shape of mcp-server-code-runner 0.1.8: one unannotated tool,
 * `run-code {code, languageId}`, "Run code snippet and return the result." The real one writes
 * the snippet to a file and runs it with the language's interpreter on the host; this one runs
 * nothing and appends each snippet to $RUN_LOG, so a test sees whether it was called.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import * as fs from "node:fs";

const TOOLS = [
  {
    name: "run-code",
    description: "Run code snippet and return the result.",
    inputSchema: { type: "object", properties: { code: { type: "string", description: "Code Snippet" }, languageId: { type: "string", enum: ["javascript", "python", "perl", "shellscript"] } }, required: ["code", "languageId"] },
  },
];

const server = new Server({ name: "code-snippets", version: "0.1.8" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const a = (req.params.arguments ?? {}) as Record<string, unknown>;
  if (process.env.RUN_LOG) fs.appendFileSync(process.env.RUN_LOG, `${String(a.languageId)}: ${String(a.code)}\n`);
  return { content: [{ type: "text" as const, text: "(no output)" }] };
});
await server.connect(new StdioServerTransport());
