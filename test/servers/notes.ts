/**
 * A test MCP server (stdio) of notes kept by numeric id, as most todo, notes and ticket servers
 * keep their items: `list_notes` and `get_note` (annotated read-only), `create_note` (answers
 * only with the new id) and `delete_note` (destructive, by id; answers only "Deleted note N").
 * State lives in the process, so each fresh process starts from the same four notes.
 * `--no-get`: no get_note, so a change shows only in the listing.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

interface Note {
  id: number;
  title: string;
  body: string;
}
let notes: Note[] = [
  { id: 11, title: "Groceries", body: "eggs, flour and lemons" },
  { id: 12, title: "Dentist", body: "Tuesday at nine" },
  { id: 13, title: "Birthday gift", body: "a kite for Mira" },
  { id: 14, title: "Bike repair", body: "new brake pads" },
];
let nextId = 15;

const TOOLS = [
  { name: "list_notes", description: "Lists every note with its id and title.", inputSchema: { type: "object", properties: {} }, annotations: { readOnlyHint: true } },
  {
    name: "get_note",
    description: "Gets one note by its id.",
    inputSchema: { type: "object", properties: { id: { type: "integer", minimum: 1 } }, required: ["id"] },
    annotations: { readOnlyHint: true },
  },
  {
    name: "create_note",
    description: "Creates a note.",
    inputSchema: { type: "object", properties: { title: { type: "string" }, body: { type: "string" } }, required: ["title", "body"] },
    annotations: { readOnlyHint: false, destructiveHint: false },
  },
  {
    name: "update_note",
    description: "Changes a note's title.",
    inputSchema: { type: "object", properties: { id: { type: "integer", minimum: 1 }, title: { type: "string" } }, required: ["id", "title"] },
    annotations: { readOnlyHint: false, destructiveHint: false },
  },
  {
    name: "delete_note",
    description: "Deletes a note by its id.",
    inputSchema: { type: "object", properties: { id: { type: "integer", minimum: 1 } }, required: ["id"] },
    annotations: { readOnlyHint: false, destructiveHint: true },
  },
];

const server = new Server({ name: "notes", version: "1.0.0" }, { capabilities: { tools: {} } });
const offered = process.argv.includes("--no-get") ? TOOLS.filter((t) => t.name !== "get_note") : TOOLS;
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: offered }));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const a = (req.params.arguments ?? {}) as Record<string, unknown>;
  const text = (value: unknown) => ({ content: [{ type: "text" as const, text: typeof value === "string" ? value : JSON.stringify(value) }] });
  const missing = () => ({ content: [{ type: "text" as const, text: `no note with id ${String(a.id)}` }], isError: true });
  switch (req.params.name) {
    case "list_notes":
      return text({ notes: notes.map(({ id, title }) => ({ id, title })) });
    case "get_note": {
      const n = notes.find((x) => x.id === a.id);
      return n ? text(n) : missing();
    }
    case "create_note": {
      const n = { id: nextId++, title: String(a.title), body: String(a.body) };
      notes.push(n);
      return text({ id: n.id });
    }
    case "update_note": {
      const n = notes.find((x) => x.id === a.id);
      if (!n) return missing();
      n.title = String(a.title);
      return text(`Updated note ${String(a.id)}`);
    }
    case "delete_note": {
      if (!notes.some((x) => x.id === a.id)) return missing();
      notes = notes.filter((x) => x.id !== a.id);
      return text(`Deleted note ${String(a.id)}`);
    }
  }
  return { content: [{ type: "text" as const, text: `unknown tool ${req.params.name}` }], isError: true };
});
await server.connect(new StdioServerTransport());
