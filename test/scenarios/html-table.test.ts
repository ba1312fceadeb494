/**
 * Results that are HTML tables (html-table.ts): @negokaz/excel-mcp-server's sheets, a grid with
 * its column letters and row numbers around the cells, asked about cell by cell, each by its row's
 * name and its column's header. End to end on test/servers/sheets.ts, that server's stand-in.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ToolResult } from "../../src/mcp/types.js";
import { readScenarioFile } from "../../src/scenarios/io.js";
import { answerFields } from "../../src/scenarios/verified/generic.js";
import { htmlTableCells, htmlTables } from "../../src/scenarios/verified/html-table.js";
import { stdioTarget } from "../servers/launch.js";
import { cli } from "../train/helpers.js";

const GRID = `<h2>Sheet Data</h2>
<table>
<tr><th></th><th>A</th><th>B</th><th>C</th></tr>
<tr><th>1</th><td>Item</td><td>Shelf</td><td>Count</td></tr>
<tr><th>2</th><td>Sourdough</td><td>A2</td><td>14</td></tr>
<tr><th>3</th><td>Rye &amp; Caraway</td><td>B1</td><td>6</td></tr>
<tr><th>4</th><td>Spelt</td><td></td><td>9</td></tr>
</table>
<ul><li>sheet name: Stock</li></ul>`;

const text = (t: string): ToolResult => ({ text: t, isError: false, truncated: false });

describe("HTML tables in a tool's result", () => {
  it("reads a spreadsheet's grid without its frame, each cell by its row's name and its column", () => {
    expect(htmlTables(GRID)[0][1]).toEqual(["1", "Item", "Shelf", "Count"]);
    expect(htmlTableCells(GRID)).toEqual([
      { row: "Sourdough", rowsAre: "Item", column: "Shelf", value: "A2", table: 0 },
      { row: "Sourdough", rowsAre: "Item", column: "Count", value: "14", table: 0 },
      { row: "Rye & Caraway", rowsAre: "Item", column: "Shelf", value: "B1", table: 0 },
      { row: "Rye & Caraway", rowsAre: "Item", column: "Count", value: "6", table: 0 },
      // an empty cell is no answer
      { row: "Spelt", rowsAre: "Item", column: "Count", value: "9", table: 0 },
    ]);
  });

  it("reads a page's table with a header row; a row named twice, or a header of numbers, gives nothing", () => {
    const page = "<table><thead><tr><th>Town</th><th>Mill</th></tr></thead><tr><td>Ely</td><td><b>Mill &amp; Co</b></td></tr><tr><td>Ashby</td><td>Grainworks</td></tr></table>";
    expect(htmlTableCells(page).map((c) => `${c.row}/${c.column}=${c.value}`)).toEqual(["Ely/Mill=Mill & Co", "Ashby/Mill=Grainworks"]);
    expect(htmlTableCells("<table><tr><th>Town</th><th>Mill</th></tr><tr><td>Ely</td><td>A</td></tr><tr><td>Ely</td><td>B</td></tr></table>")).toEqual([]);
    expect(htmlTableCells("<table><tr><td>2024</td><td>2025</td></tr><tr><td>1</td><td>2</td></tr></table>")).toEqual([]);
  });

  it("makes each cell a question, numbers as numbers, none a value the call was given", () => {
    const fields = answerFields(text(GRID), { sheetName: "Stock", fileAbsolutePath: "/data/stock.xlsx" });
    expect(fields).toContainEqual({ label: 'Count for the Item "Rye & Caraway"', value: 6 });
    expect(fields).toContainEqual({ label: 'Shelf for the Item "Sourdough"', value: "A2" });
    expect(answerFields(text(GRID), { code: "A2" }).some((f) => f.value === "A2")).toBe(false);
  });
});

describe("an mcp-go spreadsheet server (its stand-in), through the CLI", () => {
  const dir = mkdtempSync(join(tmpdir(), "sheets-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const book = join(dir, "stock.json");
  const STOCK = { Stock: [["Item", "Shelf", "Count"], ["Sourdough", "A2", 14], ["Rye", "B1", 6], ["Spelt", "A4", 9]], Suppliers: [["Supplier", "Town"], ["Mill & Co", "Ely"], ["Grainworks", "Ashby"]] };

  it("reads its sheets (its default annotations say nothing), asks cell by cell, and never writes", async () => {
    writeFileSync(book, JSON.stringify(STOCK));
    const out = join(dir, "sheets.jsonl");
    const server = stdioTarget("sheets");
    const g = await cli(["scenarios", "generate", "--server", server, "--value", `fileAbsolutePath=${book}`, "--n", "8", "--seed", "1", "--out", out]);
    expect(g.code, g.stderr).toBe(0);
    expect(g.stderr).toContain("every tool carries MCP's default annotations");
    expect(g.stderr).toContain("not calling excel_copy_sheet, excel_write_to_sheet");
    const scenarios = readScenarioFile(out);
    const reads = scenarios.filter((s) => s.reference!.calls.some((c) => c.name === "excel_read_sheet"));
    expect(reads.length).toBeGreaterThan(0);
    for (const s of reads) {
      // the cell the task names, in the sheet the call reads
      const call = s.reference!.calls.find((c) => c.name === "excel_read_sheet")!;
      const rows = STOCK[call.arguments.sheetName as keyof typeof STOCK];
      const m = /the (\w+) for the (\w+) "([^"]+)"/.exec(s.task)!;
      const row = rows.find((r) => r[0] === m[3])!;
      const cell = row[rows[0].indexOf(m[1])];
      const e = s.expected![0];
      expect(e.kind === "numeric" ? e.value : e.kind === "contains" ? e.value : undefined, s.task).toEqual(cell);
    }
    expect(readFileSync(book, "utf8")).toBe(JSON.stringify(STOCK));
    const check = await cli(["scenarios", "check", "--fresh", "--server", server, out]);
    expect(check.code, check.stderr + check.stdout).toBe(0);
    expect(check.stdout).toContain("8 scenarios: 8 ok");
  }, 60_000);
});
