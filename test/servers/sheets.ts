/**
 * A test MCP server (stdio) in the shape of @negokaz/excel-mcp-server 0.12 (written with mcp-go,
 * 101 MB of Go binaries, so not a devDependency): every tool carries MCP's default annotations,
 * and excel_read_sheet answers with an HTML table, the sheet's grid with its column letters as
 * the first row and its row numbers as the first column. The workbook is a JSON file given by
 * its absolute path, `{"Sheet name": [[header…], [row…]…]}`, as the real server reads an .xlsx.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import * as fs from "node:fs";
import * as path from "node:path";

const GO_DEFAULTS = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };
const FILE = { fileAbsolutePath: { type: "string", description: "Absolute path to the Excel file" } };
const TOOLS = [
  { name: "excel_describe_sheets", description: "List all sheet information of specified Excel file", inputSchema: { type: "object", properties: FILE, required: ["fileAbsolutePath"] } },
  {
    name: "excel_read_sheet",
    description: "Read values from Excel sheet with pagination.",
    inputSchema: { type: "object", properties: { ...FILE, sheetName: { type: "string", description: "Sheet name in the Excel file" } }, required: ["fileAbsolutePath", "sheetName"] },
  },
  {
    name: "excel_copy_sheet",
    description: "Copy existing sheet to a new sheet",
    inputSchema: { type: "object", properties: { ...FILE, srcSheetName: { type: "string" }, dstSheetName: { type: "string" } }, required: ["fileAbsolutePath", "srcSheetName", "dstSheetName"] },
  },
  {
    name: "excel_write_to_sheet",
    description: "Write values to the Excel sheet",
    inputSchema: { type: "object", properties: { ...FILE, sheetName: { type: "string" }, values: { type: "array", items: { type: "array", items: { type: "string" } } } }, required: ["fileAbsolutePath", "sheetName", "values"] },
  },
].map((t) => ({ ...t, annotations: { ...GO_DEFAULTS } }));

type Workbook = Record<string, Array<Array<string | number>>>;
const letter = (i: number) => String.fromCharCode(65 + i);
const escape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

const server = new Server({ name: "sheets", version: "0.12.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const a = (req.params.arguments ?? {}) as Record<string, unknown>;
  const fail = (text: string) => ({ content: [{ type: "text" as const, text }], isError: true });
  const file = String(a.fileAbsolutePath ?? "");
  if (!path.isAbsolute(file) || !fs.existsSync(file)) return fail(`open ${file}: no such file or directory`);
  const book = JSON.parse(fs.readFileSync(file, "utf8")) as Workbook;
  switch (req.params.name) {
    case "excel_describe_sheets":
      return { content: [{ type: "text" as const, text: JSON.stringify({ backend: "excelize", sheets: Object.entries(book).map(([name, rows]) => ({ name, usedRange: `A1:${letter(rows[0].length - 1)}${rows.length}` })) }, null, 2) }] };
    case "excel_read_sheet": {
      const rows = book[String(a.sheetName)];
      if (!rows) return fail(`sheet ${String(a.sheetName)} does not exist`);
      const head = `<tr><th></th>${rows[0].map((_, j) => `<th>${letter(j)}</th>`).join("")}</tr>`;
      const body = rows.map((r, i) => `<tr><th>${i + 1}</th>${r.map((c) => `<td>${escape(String(c))}</td>`).join("")}</tr>`).join("\n");
      return { content: [{ type: "text" as const, text: `<h2>Read Sheet</h2>\n<h2>Sheet Data</h2>\n<table>\n${head}\n${body}\n</table>\n<h2>Metadata</h2>\n<ul>\n<li>backend: excelize</li>\n<li>sheet name: ${escape(String(a.sheetName))}</li>\n</ul>` }] };
    }
    case "excel_copy_sheet":
    case "excel_write_to_sheet":
      // the real server changes the file; here it is enough that it would: the test checks it is never called
      fs.writeFileSync(file, JSON.stringify({ ...book, changed: [["by", req.params.name]] }));
      return { content: [{ type: "text" as const, text: "done" }] };
  }
  return fail(`unknown tool ${req.params.name}`);
});
await server.connect(new StdioServerTransport());
