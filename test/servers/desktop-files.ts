/**
 * A test MCP server (stdio) in the shape of @wonderwhy-er/desktop-commander 0.2.52's file tools
 * (the package pulls in puppeteer and sharp, so it is not a devDependency), as it answers:
 * - list_directory {path, depth = 2}: `[DIR] docs` / `[FILE] docs/notes.md` lines, the entries of
 *   the subfolders under their paths relative to the folder listed;
 * - read_file {path}: the text after a status line, "[Reading 3 lines from start (total: 3
 *   lines, 0 remaining)]", and a description that goes on to the images and PDFs it also reads;
 * - read_multiple_files {paths}: a summary block, then each file as "--- PATH contents: ---" and
 *   its read_file answer;
 * - get_file_info {path}: `key: value` lines (with times that change);
 * - write_file {path, content}, kill_process {pid}: annotated destructive. kill_process signals
 *   nothing here: it appends its pid to the file $KILL_LOG, so a test sees whether it was called.
 * Like the real server, it will not start unless it can make its config folder in the home folder
 * (where it has one already, a config it cannot write there is let go). `--cache-in-home`: each
 * call writes into that folder first, and fails where it cannot.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import * as fs from "node:fs";
import { homedir } from "node:os";
import * as path from "node:path";

// as the real server: no start without the folder; a config it cannot write is let go
const configDir = path.join(homedir(), ".desktop-files");
fs.mkdirSync(configDir, { recursive: true });
try {
  fs.writeFileSync(path.join(configDir, "config.json"), JSON.stringify({ telemetryEnabled: false }));
} catch (e) {
  console.error("Failed to initialize config:", e);
}

const READ_DESCRIPTION = `
    Read contents from files and URLs.
    Read PDF files and extract content as markdown and images.

    FORMAT HANDLING (by extension):
    - Text: Uses offset/length for line-based pagination
    - Images (PNG, JPEG, GIF, WebP): Base64 encoded viewable content`;
const PATH = { path: { type: "string" } };
const TOOLS = [
  { name: "list_directory", description: "Get a detailed listing of all files and directories in a specified path. Results show full relative paths from the root directory being listed.", inputSchema: { type: "object", properties: { ...PATH, depth: { type: "number", default: 2 } }, required: ["path"] }, annotations: { readOnlyHint: true } },
  { name: "read_file", description: READ_DESCRIPTION, inputSchema: { type: "object", properties: { ...PATH, offset: { type: "number", default: 0 }, length: { type: "number", default: 1000 } }, required: ["path"] }, annotations: { readOnlyHint: true, openWorldHint: true } },
  { name: "read_multiple_files", description: "Read the contents of multiple files simultaneously. Handles text files normally and renders images as viewable content.", inputSchema: { type: "object", properties: { paths: { type: "array", items: { type: "string" } } }, required: ["paths"] }, annotations: { readOnlyHint: true } },
  { name: "get_file_info", description: "Retrieve detailed metadata about a file or directory.", inputSchema: { type: "object", properties: PATH, required: ["path"] }, annotations: { readOnlyHint: true } },
  { name: "write_file", description: "Write or append to file contents.", inputSchema: { type: "object", properties: { ...PATH, content: { type: "string" } }, required: ["path", "content"] }, annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false } },
  { name: "kill_process", description: "Terminate a running process by PID. Use with caution.", inputSchema: { type: "object", properties: { pid: { type: "number" } }, required: ["pid"] }, annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false } },
];

const text = (t: string, isError = false) => ({ content: [{ type: "text" as const, text: t }], ...(isError ? { isError: true } : {}) });

function listing(dir: string, depth: number, prefix = ""): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => {
      const shown = prefix + e.name;
      if (!e.isDirectory()) return [`[FILE] ${shown}`];
      return [`[DIR] ${shown}`, ...(depth > 1 ? listing(path.join(dir, e.name), depth - 1, `${shown}/`) : [])];
    });
}

function readText(file: string): string {
  const lines = fs.readFileSync(file, "utf8").replace(/\n$/, "").split("\n");
  return `[Reading ${lines.length} lines from start (total: ${lines.length} lines, 0 remaining)]\n\n${lines.join("\n")}`;
}

const server = new Server({ name: "desktop-files", version: "0.2.52" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const a = (req.params.arguments ?? {}) as Record<string, unknown>;
  const p = typeof a.path === "string" ? a.path : "";
  try {
    // `--cache-in-home`: every call first writes into the config folder, as @playwright/mcp writes
    // into ~/.cache/ms-playwright (a folder the home already holds, read-only in the sandbox)
    if (process.argv.includes("--cache-in-home")) fs.writeFileSync(path.join(configDir, "last-call"), req.params.name);
    switch (req.params.name) {
      case "list_directory":
        if (!fs.existsSync(p)) return text(`[NOT_FOUND] ${p} — path does not exist`);
        return text(listing(p, typeof a.depth === "number" ? a.depth : 2).join("\n"));
      case "read_file":
        return text(readText(p));
      case "read_multiple_files": {
        const paths = (a.paths as string[]) ?? [];
        return { content: [{ type: "text" as const, text: paths.map((f) => `${f}: text/plain (text)`).join("\n") }, ...paths.map((f) => ({ type: "text" as const, text: `\n--- ${f} contents: ---\n${readText(f)}` }))] };
      }
      case "get_file_info": {
        const st = fs.statSync(p);
        return text(`size: ${st.size}\nmodified: "${st.mtime.toISOString()}"\naccessed: "${new Date().toISOString()}"\nisDirectory: ${st.isDirectory()}\nisFile: ${st.isFile()}`);
      }
      case "write_file":
        fs.writeFileSync(p, String(a.content ?? ""));
        return text(`Successfully wrote to ${p}`);
      case "kill_process":
        if (process.env.KILL_LOG) fs.appendFileSync(process.env.KILL_LOG, `${String(a.pid)}\n`);
        return text(`Successfully terminated process ${String(a.pid)}`);
      default:
        return text(`Unknown tool: ${req.params.name}`, true);
    }
  } catch (e) {
    return text(`Error: ${(e as Error).message}`, true);
  }
});
await server.connect(new StdioServerTransport());
