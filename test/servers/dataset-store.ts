/**
 * A test MCP server (stdio) in the shape of tryll-dataset-builder-mcp 1.3.1: projects of text
 * chunks kept as JSON files under $DATA_DIR, no annotations. It starts empty; its
 * `disconnect_session` (no arguments) answers `{"disconnected": true}` on a fresh instance, its
 * `export_project` writes `<name>.export.json` beside the projects when `save_to_file` is set
 * (which `list_projects` then lists), and its `batch_fetch_urls` fetches nothing here: every
 * URL fails, `{"parsed": 0, "failed": 1, "results": [{"url": …, "error": "fetch failed"}]}`,
 * as the real one does offline.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const dir = process.env.DATA_DIR ?? "./datasets";
mkdirSync(dir, { recursive: true });

interface Project {
  name: string;
  chunks: Array<{ id: string; text: string }>;
}
const file = (name: string) => join(dir, `${name}.json`);
const load = (name: string): Project | undefined => (existsSync(file(name)) ? (JSON.parse(readFileSync(file(name), "utf8")) as Project) : undefined);
const save = (p: Project) => writeFileSync(file(p.name), JSON.stringify(p));

const str = { type: "string", minLength: 1 };
const TOOLS = [
  { name: "create_project", description: "Create a new dataset project.", inputSchema: { type: "object", properties: { name: str }, required: ["name"] } },
  { name: "list_projects", description: "List all existing dataset projects with their chunk counts.", inputSchema: { type: "object", properties: {} } },
  { name: "disconnect_session", description: "Disconnect from the web app. Operations switch back to local file storage.", inputSchema: { type: "object", properties: {} } },
  { name: "add_chunk", description: "Add a single knowledge chunk to a project.", inputSchema: { type: "object", properties: { project: str, id: str, text: str }, required: ["project", "id", "text"] } },
  { name: "get_chunk", description: "Get the full content of a chunk by its ID.", inputSchema: { type: "object", properties: { project: str, id: str }, required: ["project", "id"] } },
  { name: "export_project", description: "Export the project as a flat JSON array.", inputSchema: { type: "object", properties: { project: str, save_to_file: { type: "boolean", description: "also save it beside the projects" } }, required: ["project"] } },
  {
    name: "batch_fetch_urls",
    description: "Fetch several web pages and add each page's text to a project as a chunk.",
    inputSchema: { type: "object", properties: { project: str, urls: { type: "array", items: { type: "string" }, minItems: 1 } }, required: ["project", "urls"] },
  },
];

const json = (data: unknown) => ({ content: [{ type: "text", text: JSON.stringify(data, null, 2) }] });
const error = (text: string) => ({ content: [{ type: "text", text: `Error: ${text}` }], isError: true });

const server = new Server({ name: "dataset-store", version: "1.3.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const a = (req.params.arguments ?? {}) as Record<string, unknown>;
  const project = typeof a.project === "string" ? load(a.project) : undefined;
  switch (req.params.name) {
    case "create_project": {
      const name = String(a.name);
      if (load(name)) return error(`Project "${name}" already exists`);
      save({ name, chunks: [] });
      return json({ name, chunks: [] });
    }
    case "list_projects":
      return json(readdirSync(dir).filter((f) => f.endsWith(".json")).sort().map((f) => {
        const p = JSON.parse(readFileSync(join(dir, f), "utf8")) as Project | Project["chunks"];
        return { name: f.replace(/\.json$/, ""), chunks: Array.isArray(p) ? p.length : p.chunks.length };
      }));
    case "disconnect_session":
      return json({ disconnected: true });
    case "add_chunk": {
      if (!project) return error(`Project "${String(a.project)}" not found`);
      if (project.chunks.some((c) => c.id === a.id)) return error(`Chunk "${String(a.id)}" already exists`);
      project.chunks.push({ id: String(a.id), text: String(a.text) });
      save(project);
      return json({ added: a.id, project: project.name, total: project.chunks.length });
    }
    case "get_chunk": {
      const chunk = project?.chunks.find((c) => c.id === a.id);
      return chunk ? json(chunk) : error(`Chunk "${String(a.id)}" not found in project "${String(a.project)}"`);
    }
    case "export_project": {
      if (!project) return error(`Project "${String(a.project)}" not found`);
      if (a.save_to_file === true) writeFileSync(join(dir, `${project.name}.export.json`), JSON.stringify(project.chunks));
      return json(project.chunks);
    }
    case "batch_fetch_urls": {
      const urls = Array.isArray(a.urls) ? a.urls.map(String) : [];
      return json({ parsed: 0, failed: urls.length, results: urls.map((url) => ({ url, error: "fetch failed" })) });
    }
  }
  return error(`unknown tool ${req.params.name}`);
});
await server.connect(new StdioServerTransport());
