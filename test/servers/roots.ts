/**
 * A test MCP server (stdio) that works where its client says, as filesystem servers started
 * without folders do: `list_roots` answers with the client's MCP roots (roots/list), or that the
 * client offers none.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const server = new Server({ name: "roots", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{ name: "list_roots", description: "The folders the client lets this server work in.", inputSchema: { type: "object", properties: {} } }],
}));
server.setRequestHandler(CallToolRequestSchema, async () => {
  if (!server.getClientCapabilities()?.roots) return { content: [{ type: "text", text: "the client offers no roots" }] };
  const { roots } = await server.listRoots();
  return { content: [{ type: "text", text: roots.map((r) => r.uri).join("\n") }] };
});
await server.connect(new StdioServerTransport());
