/**
 * A test MCP server (stdio) in the shape of @sylphx/pdf-reader-mcp 2.4.0: one tool, `read_pdf
 * {sources: [{path?, url?, pages?}], include_full_text?, include_metadata?, include_page_count?}`,
 * whose sources' items require nothing, and which answers a batch, one item per source:
 * `{"results": [{"source": "inv.pdf", "success": true, "data": {"num_pages": 1, "info":
 * {"Title": …}, "full_text": …}}]}`, and `{"source": "unknown source", "success": false, "error":
 * …}` for an empty source. Its "PDFs" are text files of the working directory (first line the
 * title, a form feed between pages), so the test needs no PDF library.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

const TOOLS = [
  {
    name: "read_pdf",
    description: "Reads content/metadata/images from one or more PDFs (local/URL). Each source can specify pages to extract.",
    inputSchema: {
      type: "object",
      properties: {
        sources: {
          type: "array",
          items: {
            type: "object",
            properties: {
              path: { type: "string", minLength: 1, description: "Path to the local PDF file (absolute or relative to cwd)." },
              url: { type: "string", minLength: 1, description: "URL of the PDF file." },
            },
          },
        },
        include_full_text: { type: "boolean", description: "Include the full text content of each PDF." },
        include_metadata: { type: "boolean", description: "Include metadata and info objects for each PDF." },
        include_page_count: { type: "boolean", description: "Include the total number of pages for each PDF." },
      },
      required: ["sources"],
    },
  },
];

function readOne(source: Record<string, unknown>, a: Record<string, unknown>): Record<string, unknown> {
  const path = typeof source.path === "string" ? source.path : undefined;
  const label = path ?? (typeof source.url === "string" ? source.url : "unknown source");
  const fail = (why: string) => ({ source: label, success: false, error: `Failed to process PDF from ${label}. Reason: ${why}` });
  if (!path) return fail(typeof source.url === "string" ? "Failed to load PDF document (offline)." : "Source unknown source missing 'path' or 'url'.");
  let text: string;
  try {
    text = readFileSync(resolve(process.cwd(), path), "utf8");
  } catch {
    return fail(`File not found at '${path}'.`);
  }
  const pages = text.split("\f");
  const data: Record<string, unknown> = {};
  if (a.include_page_count !== false) data.num_pages = pages.length;
  if (a.include_metadata !== false) data.info = { PDFFormatVersion: "1.4", Title: text.split("\n")[0].trim(), Producer: "Skia/PDF m156" };
  if (a.include_full_text) data.full_text = text.replace(/\f/g, "\n");
  return { source: label, success: true, data };
}

const server = new Server({ name: "pdf-batch", version: "2.4.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const a = (req.params.arguments ?? {}) as Record<string, unknown>;
  if (req.params.name !== "read_pdf" || !Array.isArray(a.sources)) return { content: [{ type: "text", text: "sources is required" }], isError: true };
  const results = a.sources.map((s) => readOne((s ?? {}) as Record<string, unknown>, a));
  if (results.every((r) => r.success === false)) return { content: [{ type: "text", text: `All PDF sources failed to process: ${results.map((r) => r.error).join("; ")}` }], isError: true };
  return { content: [{ type: "text", text: JSON.stringify({ results }, null, 2) }] };
});
await server.connect(new StdioServerTransport());
