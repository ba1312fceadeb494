/**
 * Tables in a tool's text result written as HTML (`<table><tr><th>…`): @negokaz/excel-mcp-server's
 * excel_read_sheet answers so, a spreadsheet grid with the column letters as its first row and
 * the row numbers as its first column, and so do servers that render a query's rows for a page.
 * Each cell of a row named once by its first cell is a question: "the Count for the Item "Rye"".
 */
import { namedRowCells, namesColumns, type TableCell } from "./page-snapshot.js";

/** The rows of each `<table>` in the text, as the cells' plain text. */
export function htmlTables(text: string): string[][][] {
  return [...text.matchAll(/<table\b[^>]*>([\s\S]*?)<\/table>/gi)].map((t) =>
    [...t[1].matchAll(/<tr\b[^>]*>([\s\S]*?)<\/tr>/gi)].map((r) => [...r[1].matchAll(/<t([hd])\b[^>]*>([\s\S]*?)<\/t\1>/gi)].map((c) => cellText(c[2]))),
  );
}

/** Cells of the tables whose first row names the columns, each row named by its first cell. */
export function htmlTableCells(text: string): TableCell[] {
  return htmlTables(text).flatMap((rows, index) => {
    const grid = withoutSpreadsheetFrame(rows);
    const [header, ...data] = grid;
    if (!header || data.length === 0 || !namesColumns(header)) return [];
    return namedRowCells(header, data, index);
  });
}

/** A spreadsheet's grid without its frame: the first row "", A, B, C… and the first column 1, 2, 3… */
function withoutSpreadsheetFrame(rows: string[][]): string[][] {
  const [top, ...rest] = rows;
  if (!top || top[0] !== "" || top.length < 2) return rows;
  const letters = top.slice(1).every((c) => /^[A-Z]{1,3}$/.test(c));
  const numbered = rest.length > 0 && rest.every((r) => /^\d+$/.test(r[0] ?? ""));
  return letters && numbered ? rest.map((r) => r.slice(1)) : rows;
}

function cellText(html: string): string {
  return html
    .replace(/<[^>]+>/g, " ")
    .replace(/&nbsp;/g, " ")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")
    .trim();
}
