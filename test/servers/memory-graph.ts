/**
 * A test MCP server (stdio) shaped like @modelcontextprotocol/server-memory: a knowledge graph of
 * entities (name, type, observations) and relations kept as JSON lines in `memory.jsonl` in its
 * working directory (empty when missing). What matters to the generator is copied as the real
 * server does it: the changes answer only with what they were given (create_entities lists the
 * entities it made), open_nodes takes an array of names and answers in the graph's order,
 * search_nodes matches names, types and observations, the deletions answer only that they
 * succeeded, and the MCP annotations say which tools read and which delete.
 * With `--echo-missing`, open_nodes also lists each name it was asked for and did not find
 * (`missing: [{name, found: false}]`), as some servers' lookups echo what they were asked.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import * as fs from "node:fs";

interface Entity {
  name: string;
  entityType: string;
  observations: string[];
}
interface Relation {
  from: string;
  to: string;
  relationType: string;
}
interface Graph {
  entities: Entity[];
  relations: Relation[];
}

const FILE = "memory.jsonl";
const load = (): Graph => {
  const g: Graph = { entities: [], relations: [] };
  if (!fs.existsSync(FILE)) return g;
  for (const line of fs.readFileSync(FILE, "utf8").split("\n").filter((l) => l.trim())) {
    const { type, ...item } = JSON.parse(line) as { type: string } & Record<string, unknown>;
    if (type === "entity") g.entities.push(item as unknown as Entity);
    else g.relations.push(item as unknown as Relation);
  }
  return g;
};
const save = (g: Graph) =>
  fs.writeFileSync(FILE, [...g.entities.map((e) => ({ type: "entity", ...e })), ...g.relations.map((r) => ({ type: "relation", ...r }))].map((x) => JSON.stringify(x)).join("\n"));

const str = { type: "string" };
const entity = { type: "object", properties: { name: str, entityType: str, observations: { type: "array", items: str } }, required: ["name", "entityType", "observations"] };
const relation = { type: "object", properties: { from: str, to: str, relationType: str }, required: ["from", "to", "relationType"] };
const writes = { readOnlyHint: false, destructiveHint: false };
const reads = { readOnlyHint: true };
const deletes = { readOnlyHint: false, destructiveHint: true };
const TOOLS = [
  { name: "create_entities", description: "Create multiple new entities in the knowledge graph", inputSchema: { type: "object", properties: { entities: { type: "array", items: entity } }, required: ["entities"] }, annotations: writes },
  { name: "create_relations", description: "Create multiple new relations between entities in the knowledge graph", inputSchema: { type: "object", properties: { relations: { type: "array", items: relation } }, required: ["relations"] }, annotations: writes },
  {
    name: "add_observations",
    description: "Add new observations to existing entities in the knowledge graph",
    inputSchema: {
      type: "object",
      properties: { observations: { type: "array", items: { type: "object", properties: { entityName: str, contents: { type: "array", items: str } }, required: ["entityName", "contents"] } } },
      required: ["observations"],
    },
    annotations: writes,
  },
  { name: "delete_entities", description: "Delete multiple entities and their associated relations from the knowledge graph", inputSchema: { type: "object", properties: { entityNames: { type: "array", items: str } }, required: ["entityNames"] }, annotations: deletes },
  {
    name: "delete_observations",
    description: "Delete specific observations from entities in the knowledge graph",
    inputSchema: {
      type: "object",
      properties: { deletions: { type: "array", items: { type: "object", properties: { entityName: str, observations: { type: "array", items: str } }, required: ["entityName", "observations"] } } },
      required: ["deletions"],
    },
    annotations: deletes,
  },
  { name: "delete_relations", description: "Delete multiple relations from the knowledge graph", inputSchema: { type: "object", properties: { relations: { type: "array", items: relation } }, required: ["relations"] }, annotations: deletes },
  { name: "read_graph", description: "Read the entire knowledge graph", inputSchema: { type: "object", properties: {} }, annotations: reads },
  { name: "search_nodes", description: "Search for nodes in the knowledge graph based on a query", inputSchema: { type: "object", properties: { query: str }, required: ["query"] }, annotations: reads },
  { name: "open_nodes", description: "Open specific nodes in the knowledge graph by their names", inputSchema: { type: "object", properties: { names: { type: "array", items: str } }, required: ["names"] }, annotations: reads },
];

/** The entities picked and every relation that touches one of them. */
const subgraph = (g: Graph, keep: (e: Entity) => boolean): Graph => {
  const entities = g.entities.filter(keep);
  const names = new Set(entities.map((e) => e.name));
  return { entities, relations: g.relations.filter((r) => names.has(r.from) || names.has(r.to)) };
};

const server = new Server({ name: "memory-graph", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const a = (req.params.arguments ?? {}) as Record<string, never>;
  const g = load();
  const json = (value: unknown) => ({ content: [{ type: "text" as const, text: JSON.stringify(value, null, 2) }] });
  switch (req.params.name) {
    case "create_entities": {
      const made = (a.entities as Entity[]).filter((e) => !g.entities.some((x) => x.name === e.name));
      g.entities.push(...made);
      save(g);
      return json(made);
    }
    case "create_relations": {
      const made = (a.relations as Relation[]).filter((r) => !g.relations.some((x) => x.from === r.from && x.to === r.to && x.relationType === r.relationType));
      g.relations.push(...made);
      save(g);
      return json(made);
    }
    case "add_observations": {
      const added = (a.observations as Array<{ entityName: string; contents: string[] }>).map((o) => {
        const e = g.entities.find((x) => x.name === o.entityName);
        if (!e) throw new McpError(-32603, `Entity with name ${o.entityName} not found`);
        const fresh = o.contents.filter((c) => !e.observations.includes(c));
        e.observations.push(...fresh);
        return { entityName: o.entityName, addedObservations: fresh };
      });
      save(g);
      return json(added);
    }
    case "delete_entities": {
      const gone = new Set(a.entityNames as string[]);
      save({ entities: g.entities.filter((e) => !gone.has(e.name)), relations: g.relations.filter((r) => !gone.has(r.from) && !gone.has(r.to)) });
      return { content: [{ type: "text" as const, text: "Entities deleted successfully" }] };
    }
    case "delete_observations": {
      // an entity or observation that is not there is passed over, as the real server does
      for (const d of a.deletions as Array<{ entityName: string; observations: string[] }>) {
        const e = g.entities.find((x) => x.name === d.entityName);
        if (e) e.observations = e.observations.filter((o) => !d.observations.includes(o));
      }
      save(g);
      return { content: [{ type: "text" as const, text: "Observations deleted successfully" }] };
    }
    case "delete_relations": {
      const gone = a.relations as Relation[];
      save({ ...g, relations: g.relations.filter((r) => !gone.some((d) => d.from === r.from && d.to === r.to && d.relationType === r.relationType)) });
      return { content: [{ type: "text" as const, text: "Relations deleted successfully" }] };
    }
    case "read_graph":
      return json(g);
    case "search_nodes": {
      const q = String(a.query).toLowerCase();
      return json(subgraph(g, (e) => [e.name, e.entityType, ...e.observations].some((s) => s.toLowerCase().includes(q))));
    }
    case "open_nodes": {
      const found = subgraph(g, (e) => (a.names as string[]).includes(e.name));
      if (!process.argv.includes("--echo-missing")) return json(found);
      const missing = (a.names as string[]).filter((n) => !g.entities.some((e) => e.name === n)).map((name) => ({ name, found: false }));
      return json({ ...found, missing });
    }
    default:
      return { content: [{ type: "text" as const, text: `no such tool ${req.params.name}` }], isError: true };
  }
});
await server.connect(new StdioServerTransport());
