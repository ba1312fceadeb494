/**
 * A test MCP server (stdio) whose state lives in a file, as a user's real server's does: a fresh
 * process does not undo what an earlier one changed. `todos.json` in its working directory (made
 * with three items when missing). Tools: `list_todos` and `get_todo` (annotated read-only),
 * `add_todo` (state-changing by its name), `spring_clean` (deletes everything: destructive by its
 * annotations, and by its name's "clean") and `roll_dice` (a different answer each call).
 * `--go-defaults`: every tool carries MCP's default annotations instead, as a server written with
 * mcp-go that sets none lists them (readOnlyHint false, destructiveHint true, idempotentHint
 * false, openWorldHint true).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import * as fs from "node:fs";

interface Todo {
  id: number;
  title: string;
  tag: string;
}
const FILE = "todos.json";
const load = (): Todo[] => {
  if (!fs.existsSync(FILE))
    fs.writeFileSync(FILE, JSON.stringify([{ id: 1, title: "Buy milk", tag: "home" }, { id: 2, title: "Pay rent", tag: "home" }, { id: 3, title: "Write report", tag: "work" }]));
  return JSON.parse(fs.readFileSync(FILE, "utf8")) as Todo[];
};
const save = (todos: Todo[]) => fs.writeFileSync(FILE, JSON.stringify(todos));

const TOOLS = [
  {
    name: "list_todos",
    description: "Lists the todo items with a tag.",
    inputSchema: { type: "object", properties: { tag: { type: "string", enum: ["home", "work"] } }, required: ["tag"] },
    annotations: { readOnlyHint: true },
  },
  {
    name: "get_todo",
    description: "Gets one todo item by its id.",
    inputSchema: { type: "object", properties: { todo_id: { type: "integer", minimum: 1, maximum: 3 } }, required: ["todo_id"] },
    annotations: { readOnlyHint: true },
  },
  {
    name: "add_todo",
    description: "Adds a todo item.",
    inputSchema: { type: "object", properties: { title: { type: "string" }, tag: { type: "string", enum: ["home", "work"] } }, required: ["title", "tag"] },
  },
  { name: "spring_clean", description: "Tidies up the list.", inputSchema: { type: "object", properties: {} }, annotations: { readOnlyHint: false, destructiveHint: true } },
  { name: "roll_dice", description: "Rolls two dice and gives their total.", inputSchema: { type: "object", properties: {} }, annotations: { readOnlyHint: true } },
];

const GO_DEFAULTS = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };
if (process.argv.includes("--go-defaults")) for (const t of TOOLS) t.annotations = { ...GO_DEFAULTS };

let rolls = 0;
const server = new Server({ name: "todo-file", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const a = (req.params.arguments ?? {}) as Record<string, unknown>;
  const todos = load();
  const text = (value: unknown) => ({ content: [{ type: "text" as const, text: JSON.stringify(value) }] });
  switch (req.params.name) {
    case "list_todos": {
      const items = todos.filter((t) => t.tag === a.tag);
      return text({ count: items.length, titles: items.map((t) => t.title) });
    }
    case "get_todo": {
      const t = todos.find((x) => x.id === a.todo_id);
      return t ? text(t) : { content: [{ type: "text" as const, text: `no todo ${String(a.todo_id)}` }], isError: true };
    }
    case "add_todo": {
      const t = { id: Math.max(0, ...todos.map((x) => x.id)) + 1, title: String(a.title), tag: String(a.tag) };
      save([...todos, t]);
      return text(t);
    }
    case "spring_clean":
      save([]);
      return text({ removed: todos.length });
    case "roll_dice":
      // a different total on every call, yet the same sequence in every test run
      rolls++;
      return text({ total: 2 + ((rolls * 7) % 11) });
  }
  return { content: [{ type: "text" as const, text: `unknown tool ${req.params.name}` }], isError: true };
});
await server.connect(new StdioServerTransport());
