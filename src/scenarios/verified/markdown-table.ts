/**
 * Tables in a tool's text result written in Markdown (GitHub's pipe tables): many servers list
 * their things so, a header row, a delimiter row of dashes, then a row a line, with or without
 * the outer pipes (@accesslint/mcp's list_rules: `  ID  |  Description  |  Level` over
 * `---|---|---`). Each cell of a row named once by its first cell is a question, as in an HTML
 * table (html-table.ts), and each row is a record whose cells later calls may take as arguments
 * (a rule's ID for explain_rule).
 * Reference: https://github.github.com/gfm/#tables-extension-
 */
import { namedRowCells, namesColumns, type TableCell } from "./page-snapshot.js";

// a delimiter cell: dashes, with a colon at either end for alignment
const DELIMITER_CELL = /^:?-{3,}:?$/;

/** A row's cells: split on pipes that are not escaped, the outer pipes dropped, trimmed. */
function cells(line: string): string[] {
  let s = line.trim();
  if (s.startsWith("|")) s = s.slice(1);
  if (s.endsWith("|") && !s.endsWith("\\|")) s = s.slice(0, -1);
  return s.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, "|"));
}

/** The rows of each pipe table in the text, its header first, as the cells' text. */
export function markdownTables(text: string): string[][][] {
  const lines = text.split("\n");
  const tables: string[][][] = [];
  for (let i = 1; i < lines.length; i++) {
    if (!lines[i].includes("-") || !lines[i - 1].includes("|")) continue;
    const delimiter = cells(lines[i]);
    const header = cells(lines[i - 1]);
    // GFM: the delimiter row has as many cells as the header, each of dashes; two columns at least
    if (header.length < 2 || delimiter.length !== header.length || !delimiter.every((c) => DELIMITER_CELL.test(c))) continue;
    const rows = [header];
    let j = i + 1;
    for (; j < lines.length && lines[j].includes("|") && lines[j].trim() !== ""; j++) rows.push(cells(lines[j]));
    if (rows.length > 1) tables.push(rows);
    i = j;
  }
  return tables;
}

/** Cells of the tables whose header names the columns, each row named by its first cell. */
export function markdownTableCells(text: string): TableCell[] {
  return markdownTables(text).flatMap(([header, ...data], index) => {
    return namesColumns(header) ? namedRowCells(header, data, index) : [];
  });
}

/** Each row of the tables as a record of its cells by column name (rows of another width left out). */
export function markdownTableRecords(text: string): Array<Record<string, string>> {
  return markdownTables(text).flatMap(([header, ...data]) =>
    data.filter((row) => row.length === header.length).map((row) => Object.fromEntries(header.map((h, k) => [h, row[k]]).filter(([h, v]) => h && v))),
  );
}
