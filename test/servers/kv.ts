/**
 * A test MCP server (stdio) from which no read-only task can be verified: `kv_get` of a key
 * nobody set is an error, so without writes the offline generator must give up quickly and say
 * why, not spin for minutes. With writes, `kv_set` (answering "ok" whatever it stores) then
 * `kv_get` is a task: the value read back.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const key = { type: "string", description: "the key" };
const TOOLS = [
  { name: "kv_set", description: "Stores a value under a key.", inputSchema: { type: "object", properties: { key, value: { type: "string" } }, required: ["key", "value"] } },
  { name: "kv_get", description: "Reads the value stored under a key.", inputSchema: { type: "object", properties: { key }, required: ["key"] } },
];

const store = new Map<string, string>();
const server = new Server({ name: "kv", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const a = (req.params.arguments ?? {}) as Record<string, string>;
  if (req.params.name === "kv_set") {
    store.set(a.key, a.value);
    return { content: [{ type: "text", text: "ok" }] };
  }
  const v = store.get(a.key);
  return v === undefined ? { content: [{ type: "text", text: `no key ${a.key}` }], isError: true } : { content: [{ type: "text", text: v }] };
});
await server.connect(new StdioServerTransport());
