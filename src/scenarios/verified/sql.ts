/**
 * Recipes for database servers with a read-only SQL tool (mcp-sqlite, postgres and their kind):
 * a generic single-call recipe cannot write a query, so these learn the tables from the
 * server's table-listing tool, or, for a server that has only the query tool (the reference
 * Postgres server), from the catalog through that tool (SQLite's sqlite_master, then the
 * standard information_schema), and the columns from a few rows of each (looked at, not part of
 * the solution), then ask questions whose solution is one query the solver writes itself:
 *
 * - count: how many rows a table has;
 * - count where: how many rows have a column equal to a value seen in the table;
 * - extreme: the largest or smallest value of a numeric column.
 *
 * The answer is the query's one value, read from the server's real result. Only plain
 * identifiers are used (no quoting games), and only SELECTs are sent.
 */
import { isResourceTool } from "../../mcp/resource-tools.js";
import type { ToolResult, ToolSpec } from "../../mcp/types.js";
import { isReadOnlyTool } from "./generic.js";
import { answerSentence, containsCheck, isUseful, numericCheck, resultData, type Draft, type Recipe, type RecipeContext } from "./recipe.js";

const SQL_ARG = /^(sql|query|statement|sql_?query)$/i;
const IDENT = /^[A-Za-z_][A-Za-z0-9_]{0,40}$/;

const COUNT_TRAIN = ["How many rows does the {table} table have?", "Count the records in the {table} table."];
const COUNT_TEST = ["What is the number of rows in {table}?"];
const WHERE_TRAIN = ["How many rows of the {table} table have {column} equal to {value}?", "In {table}, count the records whose {column} is {value}."];
const WHERE_TEST = ["How many {table} rows have the {column} {value}?"];
const EXTREME_TRAIN = ["What is the {which} {column} in the {table} table?", "Find the {which} value of {column} among the {table} rows."];
const EXTREME_TEST = ["In {table}, which {column} is the {which}? Give the value."];

interface SqlTools {
  sql: ToolSpec;
  arg: string;
  /** a read-only lister without arguments, if the server has one */
  tables?: ToolSpec;
  /** the catalog query that listed tables through the SQL tool, once one has (the dialect is then known) */
  catalog?: string;
}

/** Catalog queries for the table names, tried in order: SQLite, then the SQL standard's (Postgres, MySQL, SQL Server). */
const CATALOG_QUERIES = [
  "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
  "SELECT table_name FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema', 'mysql', 'performance_schema', 'sys')",
];

type Row = Record<string, unknown>;

/** The SQL recipes a tool list allows: a read-only tool taking one SQL string, and a read-only table lister if there is one. */
export function sqlRecipes(tools: readonly ToolSpec[]): Recipe[] {
  const readOnly = tools.filter((t) => isReadOnlyTool(t) && !isResourceTool(t));
  const sql = readOnly
    .map((t) => ({ t, required: (t.inputSchema.required as string[] | undefined) ?? [] }))
    .find(({ t, required }) => required.length === 1 && SQL_ARG.test(required[0]) && /\bsql\b|select/i.test(`${t.name} ${t.description ?? ""}`));
  const tables = readOnly.find((t) => /tables/i.test(t.name) && ((t.inputSchema.required as string[] | undefined) ?? []).length === 0);
  if (!sql) return [];
  const s: SqlTools = { sql: sql.t, arg: sql.required[0], tables };
  const recipe = (kind: "count" | "where" | "extreme", weight: number): Recipe => ({
    id: `generic.sql.${kind}`,
    tools: [s.sql.name, ...(s.tables ? [s.tables.name] : [])],
    primary: s.sql.name,
    weight,
    build: (ctx) => build(ctx, s, kind),
  });
  return [recipe("count", 1), recipe("where", 2), recipe("extreme", 2)];
}

async function build(ctx: RecipeContext, s: SqlTools, kind: "count" | "where" | "extreme"): Promise<Draft | undefined> {
  const names = await listTables(ctx, s);
  if (names.length === 0) return undefined;
  const table = ctx.rng.pick(names);
  const sample = rowsOf(await ctx.probe(s.sql.name, { [s.arg]: `SELECT * FROM ${table} LIMIT 20` }));
  if (!sample || sample.length === 0) return undefined;
  const columns = Object.keys(sample[0]).filter((c) => IDENT.test(c));
  let query: string;
  let vars: Record<string, string>;
  let label: string;
  let templates: [readonly string[], readonly string[]];
  if (kind === "count") {
    query = `SELECT COUNT(*) AS n FROM ${table}`;
    vars = { table };
    label = `number of rows in ${table}`;
    templates = [COUNT_TRAIN, COUNT_TEST];
  } else if (kind === "where") {
    // a short text value that several rows may share (a status, a city), not an id or a long note
    const textColumns = columns.filter((c) => !/(^|_)id$|Id$/.test(c) && sample.some((r) => typeof r[c] === "string" && isPlainValue(r[c] as string)));
    if (textColumns.length === 0) return undefined;
    const column = ctx.rng.pick(textColumns);
    const value = ctx.rng.pick(sample.map((r) => r[column]).filter((v): v is string => typeof v === "string" && isPlainValue(v)));
    query = `SELECT COUNT(*) AS n FROM ${table} WHERE ${column} = '${value}'`;
    vars = { table, column: column.replace(/_/g, " "), value: `"${value}"` };
    label = `number of ${table} rows with ${column.replace(/_/g, " ")} ${value}`;
    templates = [WHERE_TRAIN, WHERE_TEST];
  } else {
    const numeric = columns.filter((c) => !/(^|_)id$|Id$/.test(c) && sample.every((r) => r[c] === null || typeof r[c] === "number") && sample.some((r) => typeof r[c] === "number"));
    if (numeric.length === 0) return undefined;
    const column = ctx.rng.pick(numeric);
    const largest = ctx.rng.bool();
    query = `SELECT ${largest ? "MAX" : "MIN"}(${column}) AS v FROM ${table}`;
    vars = { table, column: column.replace(/_/g, " "), which: largest ? "largest" : "smallest" };
    label = `${vars.which} ${vars.column} in ${table}`;
    templates = [EXTREME_TRAIN, EXTREME_TEST];
  }
  const result = await ctx.call(s.sql.name, { [s.arg]: query });
  const value = oneValue(result);
  if (value === undefined) return undefined;
  // "how many have X" answered 0 teaches nothing a model without the tools would not say
  if (kind !== "extreme" && value === 0) return undefined;
  return {
    task: ctx.phrase(templates[0], templates[1], vars),
    difficulty: kind === "count" ? 2 : 3,
    expected: [typeof value === "number" ? numericCheck(value) : containsCheck(value)],
    answer: answerSentence(label, value),
  };
}

/** The tables, from the server's lister, else from the catalog through the SQL tool. */
async function listTables(ctx: RecipeContext, s: SqlTools): Promise<string[]> {
  if (s.tables) {
    const listed = await ctx.probe(s.tables.name, {});
    return isUseful(listed) ? tableNames(listed) : [];
  }
  for (const query of s.catalog ? [s.catalog] : CATALOG_QUERIES) {
    const rows = rowsOf(await ctx.probe(s.sql.name, { [s.arg]: query }));
    // one column of names; an error, or rows of another shape, means another dialect
    const names = rows?.map((r) => Object.values(r)).filter((v) => v.length === 1).map(([v]) => v);
    if (!names || names.length === 0) continue;
    s.catalog = query;
    return [...new Set(names.filter((n): n is string => typeof n === "string" && IDENT.test(n)))];
  }
  return [];
}

/** Table names from a lister's result: a JSON list of names or of {name…} objects, or one name a line. */
export function tableNames(result: ToolResult): string[] {
  const data = resultData(result);
  const list = Array.isArray(data) ? data : data && typeof data === "object" ? Object.values(data).find(Array.isArray) : undefined;
  const names = list
    ? list.map((e) => (typeof e === "string" ? e : e && typeof e === "object" ? Object.entries(e as Row).find(([k]) => /name/i.test(k))?.[1] : undefined))
    : result.text.split("\n").map((l) => l.trim().replace(/^[-*]\s+/, ""));
  return [...new Set(names.filter((n): n is string => typeof n === "string" && IDENT.test(n)))];
}

/** Rows from a query's result: a JSON list of objects, bare or under one key ({rows: [...]}). */
export function rowsOf(result: ToolResult): Row[] | undefined {
  if (result.isError) return undefined;
  const data = resultData(result);
  const list = Array.isArray(data) ? data : data && typeof data === "object" ? Object.values(data).find(Array.isArray) : undefined;
  if (!list || !list.every((r) => r && typeof r === "object" && !Array.isArray(r))) return undefined;
  return list as Row[];
}

/** The one value of a one-row, one-column result. */
function oneValue(result: ToolResult): string | number | undefined {
  const rows = rowsOf(result);
  if (!rows || rows.length !== 1) return undefined;
  const values = Object.values(rows[0]);
  if (values.length !== 1) return undefined;
  const v = values[0];
  return typeof v === "number" && Number.isFinite(v) ? v : typeof v === "string" && v.length > 0 && v.length <= 60 ? v : undefined;
}

function isPlainValue(v: string): boolean {
  return /^[A-Za-z0-9 .,@-]{1,30}$/.test(v) && !v.includes("'");
}
