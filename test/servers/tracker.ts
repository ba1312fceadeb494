/**
 * A test MCP server (stdio) of work items kept in a file, shaped as @allpepper/task-orchestrator
 * 3.3.3 answers: every reply is a status envelope stamped with the time it was made
 * (`{"success": true, "message": "Found 2 item(s)", "data": {...}, "metadata": {"timestamp":
 * now, "version": "1.0.0"}}`), a failure is the same envelope with `success: false` and no MCP
 * error flag, no tool carries annotations, and the tools that change the file are named
 * `manage_item {operation: "create" | "update" | "delete"}`, `advance` and `sync` (whose
 * `override` wipes every item). The items live in `tracker.json` in the working directory,
 * written there with its seed items when missing: one file every process of the folder shares.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

interface Item {
  id: string;
  title: string;
  status: "NEW" | "ACTIVE" | "CLOSED";
  priority: "HIGH" | "MEDIUM" | "LOW";
  tags: string[];
  version: number;
}

const FILE = "tracker.json";
const SEED: Item[] = [
  { id: "7f3a9c0e5b2d4e61a8c90d1e2f3a4b5c", title: "Design landing page", status: "NEW", priority: "HIGH", tags: ["design", "web"], version: 1 },
  { id: "0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e", title: "Migrate blog posts", status: "ACTIVE", priority: "MEDIUM", tags: ["web"], version: 2 },
  { id: "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b", title: "Invoice PDF export", status: "NEW", priority: "LOW", tags: ["billing"], version: 1 },
];
if (!existsSync(FILE)) writeFileSync(FILE, JSON.stringify(SEED, null, 2));
const load = (): Item[] => JSON.parse(readFileSync(FILE, "utf8")) as Item[];
const save = (items: Item[]) => writeFileSync(FILE, JSON.stringify(items, null, 2));

const STATUS = ["NEW", "ACTIVE", "CLOSED"] as const;
const RANK = { HIGH: 0, MEDIUM: 1, LOW: 2 };
const id = { type: "string", pattern: "^[0-9a-f]{32}$" };
const TOOLS = [
  {
    name: "query_items",
    description: "Unified read operations for items. Supports get and search operations.",
    inputSchema: { type: "object", properties: { operation: { type: "string", enum: ["get", "search"] }, id, status: { type: "string", enum: [...STATUS] }, limit: { type: "integer", default: 20 }, offset: { type: "integer", default: 0 } }, required: ["operation"] },
  },
  { name: "get_next_item", description: "Get the next recommended item to work on: the open one of highest priority.", inputSchema: { type: "object", properties: {} } },
  { name: "list_tags", description: "List all tags with usage counts.", inputSchema: { type: "object", properties: {} } },
  {
    name: "manage_item",
    description: "Unified write operations for items. Supports create, update, and delete operations.",
    inputSchema: { type: "object", properties: { operation: { type: "string", enum: ["create", "update", "delete"] }, id, title: { type: "string" } }, required: ["operation"] },
  },
  { name: "advance", description: "Advance an item one step forward in its pipeline.", inputSchema: { type: "object", properties: { id, version: { type: "integer" } }, required: ["id", "version"] } },
  { name: "sync", description: "Sync the tracker: with override, starts afresh.", inputSchema: { type: "object", properties: { override: { type: "boolean" } } } },
];

const reply = (success: boolean, message: string, data?: unknown) => ({
  content: [{ type: "text" as const, text: JSON.stringify({ success, message, ...(data === undefined ? { error: message } : { data }), metadata: { timestamp: new Date().toISOString(), version: "1.0.0" } }, null, 2) }],
});

const server = new Server({ name: "tracker", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const a = (req.params.arguments ?? {}) as Record<string, unknown>;
  const items = load();
  const found = items.find((i) => i.id === a.id);
  switch (req.params.name) {
    case "query_items":
      if (a.operation === "get") return a.id === undefined ? reply(false, "id is required for get operation") : found ? reply(true, "Item retrieved successfully", found) : reply(false, `Item not found: ${String(a.id)}`);
      {
        const hits = items.filter((i) => a.status === undefined || i.status === a.status);
        return reply(true, `Found ${hits.length} item(s)`, { items: hits, count: hits.length, limit: a.limit ?? 20, offset: a.offset ?? 0 });
      }
    case "get_next_item": {
      const next = items.filter((i) => i.status !== "CLOSED").sort((x, y) => RANK[x.priority] - RANK[y.priority])[0];
      return next ? reply(true, "Next item retrieved successfully", next) : reply(false, "No open item");
    }
    case "list_tags": {
      const counts = new Map<string, number>();
      for (const t of items.flatMap((i) => i.tags)) counts.set(t, (counts.get(t) ?? 0) + 1);
      return reply(true, "Tags listed successfully", [...counts].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).map(([tag, count]) => ({ tag, count })));
    }
    case "manage_item": {
      if (a.operation === "create") {
        if (typeof a.title !== "string") return reply(false, "title is required for create operation");
        const item: Item = { id: (Date.now().toString(16) + "0".repeat(32)).slice(0, 32), title: a.title, status: "NEW", priority: "MEDIUM", tags: [], version: 1 };
        save([...items, item]);
        return reply(true, "Item created", item);
      }
      if (!found) return reply(false, `Item not found: ${String(a.id)}`);
      if (a.operation === "delete") save(items.filter((i) => i !== found));
      else if (typeof a.title === "string") {
        found.title = a.title;
        found.version++;
        save(items);
      }
      return reply(true, `Item ${String(a.operation)}d`, found);
    }
    case "advance": {
      if (!found) return reply(false, `Item not found: ${String(a.id)}`);
      if (found.version !== a.version) return reply(false, `Version mismatch: expected ${found.version}`);
      found.status = STATUS[Math.min(2, STATUS.indexOf(found.status) + 1)];
      found.version++;
      save(items);
      return reply(true, "Item advanced", found);
    }
    case "sync":
      if (a.override === true) save([]);
      return reply(true, a.override === true ? "Started afresh" : "Nothing to sync", { items: load().length });
  }
  return { content: [{ type: "text" as const, text: `unknown tool ${req.params.name}` }], isError: true };
});
await server.connect(new StdioServerTransport());
