/**
 * A test MCP server (stdio) with one tool, `run {command}`, that runs a shell command and answers
 * with its exit code, stdout and stderr — what command servers (mcp-server-commands,
 * desktop-commander) hand a model. The case `--sandbox` exists for.
 */
import { spawnSync } from "node:child_process";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const TOOLS = [
  {
    name: "run",
    description: "Runs a shell command (sh -c) in the server's working directory; answers with its exit code, stdout and stderr.",
    inputSchema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
    annotations: { destructiveHint: true, openWorldHint: true },
  },
];

const server = new Server({ name: "shell", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const r = spawnSync("sh", ["-c", String((req.params.arguments ?? {}).command)], { encoding: "utf8", timeout: 10_000 });
  const text = `exit ${r.status}\nstdout: ${r.stdout.trim()}\nstderr: ${r.stderr.trim()}`;
  return { content: [{ type: "text" as const, text }], isError: r.status !== 0 };
});
await server.connect(new StdioServerTransport());
