/**
 * Recipes for database servers with a read-only SQL tool (mcp-sqlite, postgres, mcp-server-mysql,
 * dbhub and their kind): a generic single-call recipe cannot write a query, so these learn the
 * tables from the server's table-listing tool, or, for a server that has only the query tool (the
 * reference Postgres server, mcp-server-mysql, dbhub), from the catalog through that tool
 * (SQLite's sqlite_master, then the standard information_schema, of Postgres' current schema or
 * MySQL's current database first), and the columns from a few
 * rows of each (looked at, not part of the solution; sql-table.ts tells keys and names from
 * categories and quantities), then ask
 * questions whose solution is one query the solver writes itself (sql-questions.ts):
 *
 * - count: how many rows a table has;
 * - where: how many rows have a categorical column (a status, a city; never a key, a name or an
 *   email, where every count is 1) equal to a value that at least two rows hold;
 * - extreme: the largest or smallest value of a numeric column;
 * - aggregate: the sum or average of a numeric column, over the table or the rows with a value;
 * - distinct: how many different values a categorical column holds;
 * - top: the name of the row with the largest or smallest value of a numeric column (no tie);
 * - lookup: a column of the one row that a unique value (a name, an email) names.
 *
 * The answer is the query's one value, read from the server's real result; counts under 2 are
 * not asked (a model that always says 1 would score), nor a text answer the task itself spells.
 * Only plain identifiers are used (quoted where one is a reserved word, or where the database
 * folds unquoted names to lower case and the name is not; in MySQL's backticks always), and only
 * SELECTs are sent.
 */
import { isResourceTool } from "../../mcp/resource-tools.js";
import type { ToolResult, ToolSpec } from "../../mcp/types.js";
import type { AnswerCheck } from "../schema.js";
import { isReadOnlyTool } from "./generic.js";
import { answerSentence, containsCheck, isUseful, numericCheck, type Draft, type Recipe, type RecipeContext } from "./recipe.js";
import { ASKERS, type SqlKind, type SqlQuestion } from "./sql-questions.js";
import { IDENT, listIn, numericExpr, queryData, oneValue, profileColumns, readValueCounts, rowsOf, sqlName, valueCountsQuery, withNumbers, type Row, type SqlDialect, type SqlValue, type TableView } from "./sql-table.js";

export { rowsOf } from "./sql-table.js";

const SQL_ARG = /^(sql|query|statement|sql_?query)$/i;

interface SqlTools {
  sql: ToolSpec;
  arg: string;
  /** a read-only lister without arguments, if the server has one */
  tables?: ToolSpec;
  /** the catalog query that listed tables through the SQL tool, once one has (the dialect is then known) */
  catalog?: string;
  /** how names are quoted, once asked (`dialectOf`) */
  dialect?: SqlDialect;
}

/**
 * Catalog queries for the table names, tried in order: SQLite; Postgres' current schema (Supabase
 * keeps a score of tables in auth and storage, that no unqualified name reaches); MySQL's and
 * MariaDB's current database (another database's tables are beside it in information_schema, and
 * `SELECT * FROM events` reads only the current one's); then the SQL standard's, every schema's
 * tables by their qualified names (`analytics.events`: SQL Server, Postgres where the current
 * schema has none, MySQL without a current database, as mcp-server-mysql runs without MYSQL_DB).
 */
const CATALOG_QUERIES = [
  "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
  "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()",
  "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()",
  "SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema', 'mysql', 'performance_schema', 'sys')",
];

/** How often each kind is drawn among the SQL tool's tasks: the ones with many distinct answers most. */
const WEIGHTS: Record<SqlKind, number> = { count: 1, where: 2, extreme: 1, aggregate: 2, distinct: 1, top: 2, lookup: 2 };
/** tables sampled in one attempt before it gives up (each costs a query) */
const TABLES_TRIED = 4;
/** rows sampled of a table: 20, else (the result was cut) 5, else 2 */
const SAMPLE_LIMITS = [20, 5, 2];

/**
 * The SQL recipes a tool list allows: a tool taking one SQL string, and a read-only table lister
 * if there is one. A read-only SQL tool is preferred; one that may write (@bytebase/dbhub's
 * execute_sql unless its config makes it read-only) is in the list only under --allow-writes,
 * and is then sent the recipes' SELECTs rather than made-up strings.
 */
export function sqlRecipes(tools: readonly ToolSpec[]): Recipe[] {
  const readOnly = tools.filter((t) => isReadOnlyTool(t) && !isResourceTool(t));
  const writers = tools.filter((t) => !isReadOnlyTool(t) && !isResourceTool(t));
  const sql = [...readOnly, ...writers]
    .map((t) => ({ t, arg: sqlArgument(t) }))
    .find(({ t, arg }) => arg !== undefined && /\bsql\b|select/i.test(`${t.name} ${t.description ?? ""}`));
  const tables = readOnly.find((t) => /tables/i.test(t.name) && ((t.inputSchema.required as string[] | undefined) ?? []).length === 0);
  if (!sql?.arg) return [];
  const s: SqlTools = { sql: sql.t, arg: sql.arg, tables };
  return (Object.keys(WEIGHTS) as SqlKind[]).map((kind) => ({
    id: `generic.sql.${kind}`,
    tools: [s.sql.name, ...(s.tables ? [s.tables.name] : [])],
    primary: s.sql.name,
    weight: WEIGHTS[kind],
    build: (ctx) => build(ctx, s, kind),
  }));
}

/**
 * The argument a tool takes its SQL in: its one required argument, or its one argument where it
 * marks none required (@modelcontextprotocol/server-postgres 0.6.2 declares `sql` without `required`).
 */
function sqlArgument(t: ToolSpec): string | undefined {
  const required = (t.inputSchema.required as string[] | undefined) ?? [];
  const args = required.length > 0 ? required : Object.keys((t.inputSchema.properties as Record<string, unknown> | undefined) ?? {});
  return args.length === 1 && SQL_ARG.test(args[0]) ? args[0] : undefined;
}

async function build(ctx: RecipeContext, s: SqlTools, kind: SqlKind): Promise<Draft | undefined> {
  const question = await askSomeTable(ctx, s, kind);
  if (!question) return undefined;
  const value = oneValue(await ctx.call(s.sql.name, { [s.arg]: question.query }));
  if (value === undefined || (question.accept && !question.accept(value))) return undefined;
  const task = ctx.phrase(question.phrasings.train, question.phrasings.test, question.vars);
  // "the name of the customer whose email is ada.knuth@…": the task would hand out the answer
  if (typeof value === "string" && spells(task, value)) return undefined;
  const { check, shown } = question.answer?.(value) ?? plainAnswer(value);
  return { task, difficulty: question.difficulty, expected: [check], answer: answerSentence(question.label, shown) };
}

/** The kind's question about the first of a few tables (in random order) that has the columns it needs. */
async function askSomeTable(ctx: RecipeContext, s: SqlTools, kind: SqlKind): Promise<SqlQuestion | undefined> {
  const names = await listTables(ctx, s);
  s.dialect ??= await dialectOf(ctx, s);
  for (const table of ctx.rng.shuffle(names).slice(0, TABLES_TRIED)) {
    const view = await viewTable(ctx, s, table);
    const question = view && (await ASKERS[kind](ctx, view));
    if (question) return question;
  }
  return undefined;
}

/** A table's first rows and its columns' profiles; value counts on demand, by probe. */
async function viewTable(ctx: RecipeContext, s: SqlTools, table: string): Promise<TableView | undefined> {
  const dialect = s.dialect ?? { foldsCase: false, quote: '"' };
  // a table from another schema is qualified (analytics.events): each part a name of its own
  const ref = (name: string) => name.split(".").map((part) => sqlName(part, dialect)).join(".");
  let rows: Row[] | undefined;
  // a table of long texts (a description each) overflows a result in 20 rows, cut where it is
  // too long and no longer JSON: sampled by fewer rows then
  for (const limit of SAMPLE_LIMITS) {
    const sampled = await ctx.probe(s.sql.name, { [s.arg]: `SELECT * FROM ${ref(table)} LIMIT ${limit}` });
    rows = rowsOf(sampled);
    if (rows || !sampled.truncated) break;
  }
  if (!rows || rows.length === 0) return undefined;
  const sample = withNumbers(rows);
  const columns = profileColumns(sample);
  const numeric = new Set(columns.filter((c) => c.numeric).map((c) => c.name));
  const asText = new Set([...numeric].filter((c) => rows.some((r) => typeof r[c] === "string")));
  return {
    table,
    ref,
    num: (name) => (asText.has(name) ? numericExpr(ref(name), dialect) : ref(name)),
    sample,
    columns,
    valueCounts: async (column) => readValueCounts(rowsOf(await ctx.probe(s.sql.name, { [s.arg]: valueCountsQuery(ref(table), ref(column)) })), numeric.has(column)),
  };
}

/**
 * How the database wants names written. Postgres folds unquoted names to lower case (its answer
 * to `SELECT 1 AS Ab` is a column "ab"): a table "User" is then `"User"` in a query, and `User`
 * names no table; SQLite, MySQL and SQL Server keep the case. A double-quoted name is a name in
 * standard SQL, and a string in MySQL (unless ANSI_QUOTES), which quotes names with backticks.
 */
async function dialectOf(ctx: RecipeContext, s: SqlTools): Promise<SqlDialect | undefined> {
  const row = rowsOf(await ctx.probe(s.sql.name, { [s.arg]: "SELECT 1 AS Ab" }))?.[0];
  // no answer (a timeout, a busy server): asked again for the next table, not taken as "keeps case"
  if (row === undefined) return undefined;
  const foldsCase = "ab" in row;
  if (foldsCase) return { foldsCase, quote: '"' };
  const quoted = rowsOf(await ctx.probe(s.sql.name, { [s.arg]: 'SELECT "x" AS v FROM (SELECT 1 AS x) AS t' }))?.[0];
  return { foldsCase, quote: quoted === undefined || Number(quoted.v) === 1 ? '"' : "`" };
}

function plainAnswer(value: SqlValue): { check: AnswerCheck; shown: SqlValue } {
  return { check: typeof value === "number" ? numericCheck(value) : containsCheck(value), shown: value };
}

/** Whether the task's words include the answer's (letters and digits, any case). */
function spells(task: string, answer: string): boolean {
  const norm = (t: string) => ` ${t.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim()} `;
  return norm(task).includes(norm(answer));
}

/** The tables, from the server's lister, else from the catalog through the SQL tool. */
async function listTables(ctx: RecipeContext, s: SqlTools): Promise<string[]> {
  if (s.tables) {
    const listed = await ctx.probe(s.tables.name, {});
    return isUseful(listed) ? tableNames(listed) : [];
  }
  for (const query of s.catalog ? [s.catalog] : CATALOG_QUERIES) {
    const rows = rowsOf(await ctx.probe(s.sql.name, { [s.arg]: query }));
    // one column of names, or of schemas and names (a qualified name: schema.table); an error,
    // or rows of another shape, means another dialect
    const names = rows
      ?.map((r) => Object.values(r))
      .filter((v) => v.length === 1 || (v.length === 2 && /^table_schema$/i.test(Object.keys(rows[0])[0] ?? "")))
      .filter((v) => v.every((p) => typeof p === "string" && IDENT.test(p)))
      .map((v) => v.join("."));
    if (!names || names.length === 0) continue;
    s.catalog = query;
    return [...new Set(names)];
  }
  return [];
}

/** Table names from a lister's result: a JSON list of names or of {name…} objects, or one name a line. */
export function tableNames(result: ToolResult): string[] {
  const list = listIn(queryData(result));
  const names = list
    ? list.map((e) => (typeof e === "string" ? e : e && typeof e === "object" ? Object.entries(e as Row).find(([k]) => /name/i.test(k))?.[1] : undefined))
    : result.text.split("\n").map((l) => l.trim().replace(/^[-*]\s+/, ""));
  return [...new Set(names.filter((n): n is string => typeof n === "string" && IDENT.test(n)))];
}
