/**
 * A test MCP server (stdio) standing in for mcp-obsidian 1.0.0 (npm) over a vault of five notes
 * in subfolders: the same two tools, descriptions, schemas and answers. `search_notes {query}`
 * matches note names (case-insensitive substring, or the query as a regex with `*` for `.*`) and
 * answers with their paths, one a line ("/projects/heron.md"), or "No matches found";
 * `read_notes {paths}` answers with each note as "path:\ncontent\n", joined by "\n---\n", and a
 * path that is not there as "path: Error - ENOENT…". No tool lists the vault: an empty query
 * is the only way to see every note. The notes live in the process, read-only.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import notes from "./vault-notes.json" with { type: "json" };

// the notes by path, in the order mcp-obsidian's walk meets them (readdir: by name)
const VAULT: Record<string, string> = notes;

const TOOLS = [
  {
    name: "read_notes",
    description:
      "Read the contents of multiple notes. Each note's content is returned with its path as a reference. Failed reads for individual notes won't stop the entire operation. Reading too many at once may result in an error.",
    inputSchema: { type: "object", properties: { paths: { type: "array", items: { type: "string" } } }, required: ["paths"], additionalProperties: false, $schema: "http://json-schema.org/draft-07/schema#" },
  },
  {
    name: "search_notes",
    description:
      "Searches for a note by its name. The search is case-insensitive and matches partial names. Queries can also be a valid regex. Returns paths of the notes that match the query.",
    inputSchema: { type: "object", properties: { query: { type: "string" } }, required: ["query"], additionalProperties: false, $schema: "http://json-schema.org/draft-07/schema#" },
  },
];

function matches(name: string, query: string): boolean {
  if (name.toLowerCase().includes(query.toLowerCase())) return true;
  try {
    return new RegExp(query.replace(/[*]/g, ".*"), "i").test(name);
  } catch {
    return false;
  }
}

const server = new Server({ name: "mcp-obsidian", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const args = (req.params.arguments ?? {}) as { paths?: unknown; query?: unknown };
  const text = (t: string, isError = false) => ({ content: [{ type: "text" as const, text: t }], ...(isError ? { isError } : {}) });
  if (req.params.name === "search_notes") {
    if (typeof args.query !== "string") return text("Error: Invalid arguments for search_notes: query is required", true);
    const found = Object.keys(VAULT).filter((p) => matches(p.split("/").pop()!, args.query as string));
    return text(found.length > 0 ? found.join("\n") : "No matches found");
  }
  if (req.params.name === "read_notes") {
    if (!Array.isArray(args.paths)) return text("Error: Invalid arguments for read_notes: paths is required", true);
    const notes = args.paths.map((p) => {
      const key = `/${String(p).replace(/^\/+/, "")}`;
      return key in VAULT ? `${p}:\n${VAULT[key]}\n` : `${p}: Error - ENOENT: no such file or directory, open '/vault${key}'`;
    });
    return text(notes.join("\n---\n"));
  }
  return text(`Error: Unknown tool: ${req.params.name}`, true);
});
await server.connect(new StdioServerTransport());
