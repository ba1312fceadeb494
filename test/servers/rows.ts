/**
 * A test MCP server (stdio) of tables whose record tools take free-form maps of column → value,
 * shaped as mcp-sqlite 1.0.9 answers: `read_records {table, conditions?}`, `create_record
 * {table, data}`, `update_records {table, data, conditions}`, `delete_records {table,
 * conditions}`, each map `{"type": "object", "additionalProperties": {...}}` (zod's
 * z.record), a column no table has is an error, and a change answers with a message and a count
 * (`{"message": "Record created successfully", "insertedId": 5}`). The rows live in `rows.json`
 * in the working directory, written with the seed rows when missing.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

type Row = Record<string, string | number | null>;
const FILE = "rows.json";
const SEED: Record<string, Row[]> = {
  customers: [
    { id: 1, name: "Ada Lovelace", city: "London", tier: "gold" },
    { id: 2, name: "Grace Hopper", city: "New York", tier: "silver" },
    { id: 3, name: "Alan Turing", city: "London", tier: "bronze" },
    { id: 4, name: "Barbara Liskov", city: "Boston", tier: "gold" },
  ],
  products: [
    { id: 1, title: "Desk Lamp", category: "lighting", price: 34.5 },
    { id: 2, title: "Oak Desk", category: "furniture", price: 420 },
    { id: 3, title: "Fountain Pen", category: "stationery", price: 56 },
  ],
};
if (!existsSync(FILE)) writeFileSync(FILE, JSON.stringify(SEED, null, 2));
const tables = JSON.parse(readFileSync(FILE, "utf8")) as Record<string, Row[]>;
const save = () => writeFileSync(FILE, JSON.stringify(tables, null, 2));

const map = { type: "object", propertyNames: { type: "string" }, additionalProperties: { type: ["string", "number", "boolean", "null"] } };
const TOOLS = [
  { name: "list_tables", description: "List all user tables in the database", inputSchema: { type: "object", properties: {} } },
  { name: "read_records", description: "Read records from a table with optional conditions", inputSchema: { type: "object", properties: { table: { type: "string" }, conditions: map }, required: ["table"] } },
  { name: "create_record", description: "Insert a new record into a table with specified data", inputSchema: { type: "object", properties: { table: { type: "string" }, data: map }, required: ["table", "data"] } },
  { name: "update_records", description: "Update records in a table based on specified conditions", inputSchema: { type: "object", properties: { table: { type: "string" }, data: map, conditions: map }, required: ["table", "data", "conditions"] } },
  { name: "delete_records", description: "Delete records from a table based on specified conditions", inputSchema: { type: "object", properties: { table: { type: "string" }, conditions: map }, required: ["table", "conditions"] } },
];

const json = (value: unknown) => ({ content: [{ type: "text" as const, text: JSON.stringify(value, null, 2) }] });
const error = (text: string) => ({ content: [{ type: "text" as const, text: `Error: ${text}` }], isError: true });

const server = new Server({ name: "rows", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const a = (req.params.arguments ?? {}) as { table?: string; data?: Row; conditions?: Row };
  if (req.params.name === "list_tables") return json(Object.keys(tables).map((name) => ({ name })));
  const rows = tables[String(a.table)];
  if (!rows) return error(`Table "${String(a.table)}" does not exist`);
  const columns = new Set(Object.keys(rows[0] ?? {}));
  const maps = [a.data ?? {}, a.conditions ?? {}];
  const unknown = maps.flatMap((m) => Object.keys(m)).find((c) => !columns.has(c));
  if (unknown) return error(`Column "${unknown}" does not exist in table "${String(a.table)}"`);
  const picked = (r: Row) => Object.entries(a.conditions ?? {}).every(([k, v]) => r[k] === v);
  switch (req.params.name) {
    case "read_records":
      return json(rows.filter(picked));
    case "create_record": {
      if (Object.keys(a.data ?? {}).length === 0) return error("no columns to insert");
      const id = Math.max(0, ...rows.map((r) => Number(r.id))) + 1;
      rows.push({ ...Object.fromEntries([...columns].map((c) => [c, null])), ...a.data, id });
      save();
      return json({ message: "Record created successfully", insertedId: id });
    }
    case "update_records":
    case "delete_records": {
      if (Object.keys(a.conditions ?? {}).length === 0) return error("conditions are required");
      const hit = rows.filter(picked);
      if (req.params.name === "update_records") for (const r of hit) Object.assign(r, a.data);
      else tables[String(a.table)] = rows.filter((r) => !picked(r));
      save();
      return json({ message: `Records ${req.params.name === "update_records" ? "updated" : "deleted"} successfully`, rowsAffected: hit.length });
    }
  }
  return error(`unknown tool ${req.params.name}`);
});
await server.connect(new StdioServerTransport());
