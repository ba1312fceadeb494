/**
 * A test MCP server (stdio) with the small mistakes servers in the wild make: input schemas
 * without `type` or with `properties: null`, and a cursor that pages back to itself. With
 * `--conflict`, one name is listed twice with different definitions; with `--malformed`, four
 * tools whose schemas break JSON Schema's shape or are missing.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const TOOLS = [
  { name: "loose", description: "Echoes its arguments.", inputSchema: {} },
  { name: "nullprops", description: "Takes nothing.", inputSchema: { type: "object", properties: null } },
];

// `--malformed`: schemas that break JSON Schema's shape (and the chat templates that render them)
if (process.argv.includes("--malformed")) {
  TOOLS.push(
    { name: "badenum", description: "An enum that is no list.", inputSchema: { type: "object", properties: { mode: { type: "string", enum: 5 } } } } as never,
    { name: "listprops", description: "Properties as a list.", inputSchema: { type: "object", properties: [{ name: "x" }] } } as never,
    { name: "stringargs", description: "Arguments that are no object.", inputSchema: { type: "string" } } as never,
    { name: "noschema", description: "No input schema at all." } as never,
  );
}
if (process.argv.includes("--conflict")) TOOLS.push({ name: "loose", description: "Something else under the same name.", inputSchema: {} });

// `--resources-only`: a server that declares no tools capability at all (tools/list is "Method not found")
const resourcesOnly = process.argv.includes("--resources-only");
const server = new Server({ name: "sloppy", version: "1.0.0" }, { capabilities: resourcesOnly ? { resources: {} } : { tools: {} } });
if (!resourcesOnly) {
  // every page, including the one the cursor asks for, lists the same tools and the same cursor
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS, nextCursor: "again" }) as never);
  server.setRequestHandler(CallToolRequestSchema, async (req) => ({ content: [{ type: "text", text: JSON.stringify(req.params.arguments ?? {}) }] }));
}
await server.connect(new StdioServerTransport());
