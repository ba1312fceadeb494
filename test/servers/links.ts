/**
 * A test MCP server (stdio) of short links, as link shorteners and paste services answer: the
 * change (`shorten_link {url}`) replies with nothing but the new code, a real value and no
 * receipt. The code is a hash of the URL, so a fresh process gives the same code for the same
 * URL. `list_links` and `open_link {code}` are annotated read-only; each fresh process starts
 * from the same two links.
 */
import { createHash } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const codeOf = (url: string) => `s${createHash("sha256").update(url).digest("hex").slice(0, 6)}`;
const links = new Map<string, string>(["https://example.org/menu", "https://example.org/timetable"].map((u) => [codeOf(u), u]));

const TOOLS = [
  { name: "list_links", description: "Lists every short link: its code and the URL it opens.", inputSchema: { type: "object", properties: {} }, annotations: { readOnlyHint: true } },
  {
    name: "open_link",
    description: "The URL a short link's code opens.",
    inputSchema: { type: "object", properties: { code: { type: "string" } }, required: ["code"] },
    annotations: { readOnlyHint: true },
  },
  {
    name: "shorten_link",
    description: "Makes a short link for a URL and answers with its code.",
    inputSchema: { type: "object", properties: { url: { type: "string", format: "uri" } }, required: ["url"] },
    annotations: { readOnlyHint: false, destructiveHint: false },
  },
];

const server = new Server({ name: "links", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const a = (req.params.arguments ?? {}) as Record<string, unknown>;
  const text = (value: unknown) => ({ content: [{ type: "text" as const, text: typeof value === "string" ? value : JSON.stringify(value) }] });
  switch (req.params.name) {
    case "list_links":
      return text({ links: [...links].map(([code, url]) => ({ code, url })) });
    case "open_link": {
      const url = links.get(String(a.code));
      return url ? text(url) : { content: [{ type: "text" as const, text: `no short link ${String(a.code)}` }], isError: true };
    }
    case "shorten_link": {
      const url = String(a.url);
      if (!/^https?:\/\/\S+$/.test(url)) return { content: [{ type: "text" as const, text: `not a URL: ${url}` }], isError: true };
      const code = codeOf(url);
      links.set(code, url);
      return text(code);
    }
  }
  return { content: [{ type: "text" as const, text: `unknown tool ${req.params.name}` }], isError: true };
});
await server.connect(new StdioServerTransport());
