/**
 * A test MCP server (stdio) with one tool, `http_get {url}`, that fetches a URL for real and
 * answers with the body, as fetch servers do: no tool of it reveals a URL worth fetching, so the
 * verified generator has something to ask only when the user gives one (`--value url=…`).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const TOOLS = [
  {
    name: "http_get",
    description: "Fetches a URL and answers with the response body.",
    inputSchema: { type: "object", properties: { url: { type: "string", format: "uri" } }, required: ["url"] },
    annotations: { readOnlyHint: true, openWorldHint: true },
  },
];

const server = new Server({ name: "http-get", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const url = String((req.params.arguments ?? {}).url);
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    const body = await res.text();
    return { content: [{ type: "text" as const, text: res.ok ? body : `HTTP ${res.status} from ${url}` }], isError: !res.ok };
  } catch (e) {
    return { content: [{ type: "text" as const, text: `could not fetch ${url}: ${(e as Error).message}` }], isError: true };
  }
});
await server.connect(new StdioServerTransport());
