/**
 * A test MCP server (stdio) in the shape of @accesslint/mcp 0.11.1, a catalogue that answers in
 * text: `list_rules {category?, level?}` prints its rules as a Markdown table without outer
 * pipes ("3 rules:", then `  ID  |  Description  |  Level  |  Fixability` over `---|---|---|---`),
 * or "No rules match the specified filters."; `explain_rule {id}` prints one rule a field a line
 * ("  WCAG: 1.1.1", "  ACT rules: 23a2a8"), and an id it does not know is an error that says
 * to use list_rules.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

export const RULES = [
  { id: "text-alternatives/img-alt", description: "Images must have alternate text.", wcag: "1.1.1", level: "A", fixability: "contextual", act: "23a2a8", tags: "" },
  { id: "adaptable/list-children", description: "Lists must only contain list items.", wcag: "1.3.1", level: "A", fixability: "mechanical", act: "", tags: "" },
  { id: "distinguishable/meta-viewport", description: "Viewport meta tag must not disable user scaling.", wcag: "1.4.4", level: "AA", fixability: "mechanical", act: "b4f0c3", tags: "page-level" },
  { id: "navigable/document-title", description: "Documents must have a title element.", wcag: "2.4.2", level: "A", fixability: "contextual", act: "2779a5", tags: "page-level" },
  { id: "navigable/focus-visible", description: "Focused elements must show a visible indicator.", wcag: "2.4.7", level: "AA", fixability: "visual", act: "", tags: "" },
  { id: "readable/html-has-lang", description: "The html element must have a lang attribute.", wcag: "3.1.1", level: "A", fixability: "mechanical", act: "b5c3f8", tags: "page-level" },
];

const TOOLS = [
  {
    name: "list_rules",
    description: "List available accessibility rules with optional filters by category or WCAG level.",
    inputSchema: { type: "object", properties: { category: { type: "string", description: 'Filter by category slug (e.g. "navigable")' }, level: { type: "string", enum: ["A", "AA", "AAA"] } }, additionalProperties: false },
  },
  {
    name: "explain_rule",
    description: "Return detailed metadata for a single rule: description, WCAG criteria, level and fixability.",
    inputSchema: { type: "object", properties: { id: { type: "string", description: "Rule ID, e.g. 'text-alternatives/img-alt'. Discover IDs via list_rules." } }, required: ["id"], additionalProperties: false },
  },
];

const text = (t: string, isError = false) => ({ content: [{ type: "text", text: t }], ...(isError ? { isError: true } : {}) });

const server = new Server({ name: "rule-catalog", version: "0.11.1" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const a = (req.params.arguments ?? {}) as Record<string, unknown>;
  if (req.params.name === "list_rules") {
    const rules = RULES.filter((r) => (a.category === undefined || r.id.startsWith(`${String(a.category)}/`)) && (a.level === undefined || r.level === a.level));
    if (rules.length === 0) return text("No rules match the specified filters.");
    return text([`${rules.length} rules:`, "  ID  |  Description  |  Level  |  Fixability", "  ---|---|---|---", ...rules.map((r) => `  ${r.id}  |  ${r.description}  |  ${r.level}  |  ${r.fixability}`)].join("\n"));
  }
  if (req.params.name === "explain_rule") {
    const r = RULES.find((x) => x.id === a.id);
    if (!r) return text(`Unknown rule "${String(a.id)}". Use list_rules to discover available IDs.`, true);
    const lines = [r.id, `  Description: ${r.description}`, `  WCAG: ${r.wcag}`, `  Level: ${r.level}`, `  Fixability: ${r.fixability}`];
    if (r.act) lines.push(`  ACT rules: ${r.act}`);
    if (r.tags) lines.push(`  Tags: ${r.tags}`);
    lines.push("", "  Guidance: Fix what the rule names, then audit the page again to see that it passes.");
    return text(lines.join("\n"));
  }
  return text(`unknown tool ${req.params.name}`, true);
});
await server.connect(new StdioServerTransport());
