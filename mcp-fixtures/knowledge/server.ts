/**
 * knowledge: search and fetch over a bundled fact base of a few hundred facts (physical
 * constants, astronomy, unit conversions, countries, chemical elements).
 *
 * Modelled on the seed ToolEnvironment's `search` tool ("Earth's mean radius is 6,371 km"), with
 * real ranking: MiniSearch (BM25-style scoring, prefix and light fuzzy matching, title boosted)
 * over title, text and tags. Every fact has a stable id and a short canonical `value`; facts are
 * also exposed as MCP resources `fact://{id}`. Read-only and stateless.
 *
 * Run: `node --import tsx mcp-fixtures/knowledge/server.ts [--http PORT]`.
 */
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import MiniSearch from "minisearch";
import { z } from "zod";
import { fail, json, text } from "../shared/results.js";
import { serve } from "../shared/serve.js";
import { FACT_CATEGORIES, loadFacts, type Fact } from "./data/index.js";

const facts = loadFacts();
const byId = new Map(facts.map((f) => [f.id, f]));

/** Lower-case and strip plural endings, applied alike to the index and to queries ("inches" = "inch"). */
function processTerm(term: string): string {
  const t = term.toLowerCase();
  if (/(ch|sh|x|ss)es$/.test(t)) return t.slice(0, -2);
  if (t.length > 3 && t.endsWith("s") && !t.endsWith("ss")) return t.slice(0, -1);
  return t;
}

const index = new MiniSearch<Fact>({
  fields: ["title", "text", "tags"],
  processTerm,
  storeFields: ["id"],
  searchOptions: { boost: { title: 3, tags: 1.5 }, prefix: true, fuzzy: 0.2, combineWith: "OR" },
});
index.addAll(facts);

// Words that carry no meaning in questions like "what is the capital of France".
const STOP = new Set("a an and are as at be by for from has have how in is it its many much of on or the to was what when where which who why with".split(" "));

function search(query: string, limit: number, category?: string): Array<{ fact: Fact; score: number }> {
  const words = query.toLowerCase().split(/[^\p{L}\p{N}.-]+/u).filter((w) => w && !STOP.has(w));
  const q = words.length ? words.join(" ") : query;
  return index
    .search(q, category ? { filter: (r) => byId.get(r.id)?.category === category } : undefined)
    .slice(0, limit)
    .map((r) => ({ fact: byId.get(r.id) as Fact, score: Math.round(r.score * 100) / 100 }));
}

function createServer(): McpServer {
  const server = new McpServer({ name: "knowledge", version: "1.0.0" });

  server.registerTool(
    "search",
    {
      title: "Search facts",
      description:
        "Search the fact base (physical and math constants, planets and astronomy, unit conversions, country " +
        "capitals/populations/areas, chemical elements). Returns the best matches, each with id, title, short " +
        "value and the full sentence. Use keywords, e.g. 'speed of light', 'capital France', 'gold symbol'.",
      inputSchema: {
        query: z.string().min(1).max(200).describe("Keywords or a question, e.g. 'Earth radius'"),
        limit: z.number().int().min(1).max(20).optional().describe("How many results (default 5)"),
        category: z.enum(FACT_CATEGORIES).optional().describe("Only search one category"),
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ query, limit, category }) => {
      const hits = search(query, limit ?? 5, category);
      if (hits.length === 0) return text(`No facts found for ${JSON.stringify(query)}. Try other keywords.`);
      return json({ results: hits.map(({ fact, score }) => ({ id: fact.id, title: fact.title, value: fact.value, text: fact.text, score })) });
    },
  );

  server.registerTool(
    "get_fact",
    {
      title: "Get fact",
      description: "Fetch one fact by its id (from search results), e.g. 'speed-of-light' or 'capital-france'.",
      inputSchema: { id: z.string().min(1).max(100).describe("The fact id, e.g. 'earth-mean-radius'") },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ id }) => {
      const fact = byId.get(id.trim().toLowerCase());
      if (!fact) {
        const near = search(id.replace(/-/g, " "), 3).map((h) => h.fact.id);
        return fail(`no fact with id ${JSON.stringify(id)}${near.length ? `; similar ids: ${near.join(", ")}` : ""}`);
      }
      return json(fact);
    },
  );

  server.registerResource(
    "fact",
    new ResourceTemplate("fact://{id}", {
      list: async () => ({
        resources: facts.map((f) => ({ uri: `fact://${f.id}`, name: f.id, title: f.title, mimeType: "application/json" })),
      }),
    }),
    { title: "Fact", description: "One fact of the knowledge base as JSON", mimeType: "application/json" },
    async (uri, { id }) => {
      const fact = byId.get(String(id));
      if (!fact) throw new Error(`no fact with id ${String(id)}`);
      return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(fact) }] };
    },
  );

  return server;
}

await serve({ name: "knowledge", createServer });
