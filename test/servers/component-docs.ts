/**
 * A test MCP server (stdio) in the shape of @primevue/mcp 5.0.1, a documentation server: it
 * names itself "component-docs" (not a bundled fixture), its `search {query, scope, limit,
 * offset}` takes the arguments the knowledge fixture's search does, and its `get_component`
 * reads one component by name or a batch of them, `components`, whose items the schema leaves
 * open (`items: {}`) but which must be objects: a batch of names answers item by item with
 * `"status": "error"`, and counts of what was asked (`"total": 3` for three names).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const COMPONENTS = [
  { name: "Accordion", description: "Accordion groups a collection of contents in tabs.", route: "accordion", sections: ["Basic", "Multiple", "Disabled"] },
  { name: "Dialog", description: "Dialog is a container to display content in an overlay window.", route: "dialog", sections: ["Basic", "Position", "Maximizable"] },
  { name: "ConfirmDialog", description: "ConfirmDialog shows a confirmation window shared by several actions.", route: "confirmdialog", sections: ["Service", "Basic"] },
  { name: "Toast", description: "Toast is used to display messages in an overlay.", route: "toast", sections: ["Basic", "Severity", "Sticky"] },
  { name: "Tag", description: "Tag component is used to categorize content.", route: "tag", sections: ["Basic", "Icon"] },
  { name: "FileUpload", description: "FileUpload is an advanced uploader with dragdrop support.", route: "fileupload", sections: ["Basic", "Auto", "Template"] },
];

const str = { type: "string", minLength: 1 };
const TOOLS = [
  {
    name: "list",
    description: "List generated components or guides.",
    inputSchema: { type: "object", properties: { kind: { type: "string", enum: ["components", "guides"], default: "components" }, limit: { type: "integer", minimum: 1, maximum: 50, default: 20 } }, additionalProperties: false },
  },
  {
    name: "search",
    description: "Search generated component, guide, section, API, and example text.",
    inputSchema: { type: "object", properties: { query: str, scope: { type: "string", enum: ["all", "components", "api"], default: "all" }, limit: { type: "integer", minimum: 1, maximum: 50, default: 10 }, offset: { type: "integer", minimum: 0, default: 0 } }, required: ["query"], additionalProperties: false },
  },
  {
    name: "get_component",
    description: "Read generated component docs and metadata.",
    inputSchema: { type: "object", properties: { component: str, components: { type: "array", items: {}, maxItems: 10 } }, additionalProperties: false },
  },
];

const docOf = (c: (typeof COMPONENTS)[number]) => ({ name: c.name, description: c.description, route: c.route, publicUrl: `https://docs.example/${c.route}`, sections: c.sections.map((s) => ({ title: s })) });
const reply = (data: unknown) => ({ content: [{ type: "text", text: JSON.stringify(data) }], structuredContent: data as Record<string, unknown> });
const byName = (name: unknown) => COMPONENTS.find((c) => typeof name === "string" && c.name.toLowerCase() === name.toLowerCase());

const server = new Server({ name: "component-docs", version: "5.0.1" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const a = (req.params.arguments ?? {}) as Record<string, unknown>;
  if (req.params.name === "list") {
    if (a.kind === "guides") return reply({ total: 1, items: [{ title: "Installation", route: "installation" }] });
    const limit = typeof a.limit === "number" ? a.limit : 20;
    return reply({ total: COMPONENTS.length, items: COMPONENTS.slice(0, limit).map((c) => ({ title: c.name, description: c.description })) });
  }
  if (req.params.name === "search") {
    const q = String(a.query ?? "").toLowerCase();
    const hits = COMPONENTS.filter((c) => q === "*" || `${c.name} ${c.description}`.toLowerCase().includes(q));
    const offset = typeof a.offset === "number" ? a.offset : 0;
    const limit = typeof a.limit === "number" ? a.limit : 10;
    return reply({ query: a.query, total: hits.length, results: hits.slice(offset, offset + limit).map((c) => ({ type: "component", title: c.name, publicUrl: `https://docs.example/${c.route}` })) });
  }
  if (req.params.name === "get_component") {
    if (Array.isArray(a.components)) {
      const results = a.components.map((item, index) => {
        if (!item || typeof item !== "object") return { index, status: "error", error: "Invalid component item: item Expected object, received string." };
        const c = byName((item as Record<string, unknown>).component);
        return c ? { index, status: "success", component: docOf(c) } : { index, status: "error", error: "Unknown component." };
      });
      const succeeded = results.filter((r) => r.status === "success").length;
      return reply({ total: results.length, succeeded, failed: results.length - succeeded, results });
    }
    const c = byName(a.component);
    if (!c) return { content: [{ type: "text", text: `Unknown component: ${String(a.component)}` }], isError: true };
    return reply({ component: docOf(c) });
  }
  return { content: [{ type: "text", text: `unknown tool ${req.params.name}` }], isError: true };
});
await server.connect(new StdioServerTransport());
