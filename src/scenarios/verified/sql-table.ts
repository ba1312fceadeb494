/**
 * What the SQL recipes know about one table: a sample of its rows, and what each column looks
 * like in it (a key, a name, a category whose values repeat, a quantity), so that a question
 * is asked only of columns where its answer says something. A count of rows whose email is X
 * is 1 for every X: a model that always answers 1 would score on such tasks without a query.
 */
import type { ToolResult } from "../../mcp/types.js";
import { balancedEnd } from "../check.js";
import { resultData } from "./recipe.js";

export type Row = Record<string, unknown>;
/** a value as a query's result gives it and a task may quote it */
export type SqlValue = string | number;

export const IDENT = /^[A-Za-z_][A-Za-z0-9_]{0,40}$/;
/** a key or a reference by its name (id, customer_id, userId, uuid): its numbers are no quantity */
const ID_LIKE = /(^|_)(id|uuid|guid)$|[a-z0-9](Id|ID)$/i;

export interface ColumnProfile {
  name: string;
  /** every sampled value that is not null is a finite number (and there is one) */
  numeric: boolean;
  /** every sampled value that is not null is a string (and there is one) */
  text: boolean;
  idLike: boolean;
  /** the sampled values a query and a task can quote, null left out */
  values: SqlValue[];
  /** every sampled row has a value and no two are equal: a key, a name, an email */
  unique: boolean;
  /** some sampled value occurs twice: a status, a city, a category */
  repeats: boolean;
}

export interface TableView {
  table: string;
  /** a table's or a column's name as a query writes it (`sqlName`) */
  ref(name: string): string;
  /** a numeric column as a query compares and sums it: cast where its values came as text (a
   *  TEXT column of digits would compare as text: MAX('99', '120.25') is '99') */
  num(name: string): string;
  sample: Row[];
  columns: ColumnProfile[];
  /** how many rows of the whole table hold each quotable value of a column, most first; [] when the query fails */
  valueCounts(column: string): Promise<Array<{ value: SqlValue; n: number }>>;
}

/** The profile of each plainly named column of a sample. */
export function profileColumns(sample: readonly Row[]): ColumnProfile[] {
  if (sample.length === 0) return [];
  return Object.keys(sample[0])
    .filter((c) => IDENT.test(c))
    .map((name) => profileColumn(name, sample.map((r) => r[name])));
}

function profileColumn(name: string, raw: readonly unknown[]): ColumnProfile {
  const present = raw.filter((v) => v !== null && v !== undefined);
  const distinct = new Set(present.map((v) => JSON.stringify(v))).size;
  return {
    name,
    numeric: present.length > 0 && present.every((v) => typeof v === "number" && Number.isFinite(v)),
    text: present.length > 0 && present.every((v) => typeof v === "string"),
    idLike: ID_LIKE.test(name),
    values: present.filter(isQuotable),
    unique: present.length === raw.length && distinct === raw.length,
    repeats: distinct < present.length,
  };
}

/**
 * The sample with every column whose values all read as numbers holding numbers: Postgres sends
 * bigint and numeric as text ("1019", "22.70"), and those are keys and quantities, not names to
 * look a row up by or text to count rows by.
 */
export function withNumbers(sample: readonly Row[]): Row[] {
  const absent = (v: unknown) => v === null || v === undefined;
  const columns = Object.keys(sample[0] ?? {}).filter(
    (c) => sample.some((r) => typeof r[c] === "string") && sample.every((r) => absent(r[c]) || asNumber(r[c]) !== undefined),
  );
  return sample.map((r) => ({ ...r, ...Object.fromEntries(columns.map((c) => [c, absent(r[c]) ? r[c] : asNumber(r[c])])) }));
}

/**
 * Columns to count rows by: values that repeat (a status, a city), never a key. Text ones are
 * preferred; whole numbers that repeat (a quantity, a rating) only where no text column does.
 */
export function categoricalColumns(columns: readonly ColumnProfile[]): ColumnProfile[] {
  const repeating = columns.filter((c) => c.repeats && !c.idLike && c.values.length > 0);
  const text = repeating.filter((c) => c.text);
  return text.length > 0 ? text : repeating.filter((c) => c.numeric && c.values.every((v) => Number.isInteger(v)));
}

/** a code written in digits (a zip code, a phone number, an ISBN): no amount to sum, average or rank */
const CODE_LIKE = /(^|_)(zip|zipcode|postal_?code|post_?code|phone|phone_?number|mobile|fax|isbn|ean|upc|sku|code|pin)$|[a-z0-9](Zip|ZipCode|PostalCode|Phone|PhoneNumber|Code|Isbn|ISBN)$/i;

/** Columns that hold a quantity: numbers, not keys, references or codes. */
export function quantityColumns(columns: readonly ColumnProfile[]): ColumnProfile[] {
  return columns.filter((c) => c.numeric && !c.idLike && !CODE_LIKE.test(c.name));
}

/** Columns that name a row: text, a different value in each sampled row (a name, a title, an email). */
export function labelColumns(columns: readonly ColumnProfile[]): ColumnProfile[] {
  return columns.filter((c) => c.text && c.unique && !c.idLike && c.values.length > 0);
}

/** Values of a column that more than one row of the whole table holds, from a GROUP BY probe (else from the sample). */
export async function repeatedValues(view: TableView, column: string): Promise<SqlValue[]> {
  const counts = await view.valueCounts(column);
  if (counts.length > 0) return counts.filter((c) => c.n >= 2).map((c) => c.value);
  const seen = new Map<string, { value: SqlValue; n: number }>();
  for (const v of view.sample.map((r) => r[column]).filter(isQuotable)) {
    const key = JSON.stringify(v);
    seen.set(key, { value: v, n: (seen.get(key)?.n ?? 0) + 1 });
  }
  return [...seen.values()].filter((c) => c.n >= 2).map((c) => c.value);
}

/**
 * Reserved words that tables and columns are often named (an `order` table, a `user` or `group`
 * column): bare, each is syntax in Postgres and most of them in SQLite and MySQL too.
 */
const RESERVED = new Set(
  ("all analyse analyze and any array as asc between both by case cast check collate column constraint create cross " +
    "current_date current_role current_time current_timestamp current_user default delete desc distinct do drop else end " +
    "except exists false fetch for foreign from full grant group having in index inner insert intersect into is join key " +
    "lateral leading left like limit natural not null offset on only or order outer primary range references returning " +
    "right rows select session_user set some table then to trailing true union unique update user using values when where " +
    "window with").split(" "),
);

/**
 * A column whose values came as text but read as numbers, as a number: Postgres sends NUMERIC
 * and BIGINT as text too (the cast is then a no-op), SQLite only a TEXT column's values, which
 * MAX and MIN would order as text. MySQL casts to DECIMAL; elsewhere REAL is understood.
 */
export function numericExpr(ref: string, dialect: SqlDialect): string {
  return `CAST(${ref} AS ${dialect.foldsCase ? "NUMERIC" : dialect.quote === "`" ? "DECIMAL(38,10)" : "REAL"})`;
}

/** How a database's queries quote a name: what it folds unquoted names to, and its quote mark. */
export interface SqlDialect {
  /** unquoted names fold to lower case (Postgres) */
  foldsCase: boolean;
  /** `"` (the standard: Postgres, SQLite, SQL Server) or MySQL's backtick */
  quote: '"' | "`";
}

/**
 * A name as a query writes it: quoted where it is a reserved word, or where the database folds
 * unquoted names to lower case (Postgres) and the name is not lower case (Prisma's "User",
 * "createdAt"); else bare. In MySQL's backticks always: MySQL 8 and MariaDB reserve some 270
 * words between them and each version adds more (`rank`, `groups`, `window` in 8.0), and a
 * server may check the query with a grammar of its own (@benborla29/mcp-server-mysql parses
 * with node-sql-parser's MySQL 8 grammar, which refuses a bare `groups` that MariaDB takes):
 * a backticked name is a name in all of them.
 */
export function sqlName(name: string, dialect: SqlDialect): string {
  const quoted = dialect.quote === "`" || RESERVED.has(name.toLowerCase()) || (dialect.foldsCase && name !== name.toLowerCase());
  return quoted ? `${dialect.quote}${name}${dialect.quote}` : name;
}

/** The GROUP BY query behind `valueCounts` (the names as `sqlName` writes them). */
export function valueCountsQuery(table: string, column: string): string {
  // ties broken by the value: groups of one count come in any order (MariaDB's vary run to run)
  return `SELECT ${column} AS v, COUNT(*) AS n FROM ${table} GROUP BY ${column} ORDER BY n DESC, v LIMIT 100`;
}

/**
 * Value counts from the GROUP BY query's rows (a count may come as a string: Postgres' bigint),
 * a numeric column's values as numbers (as `withNumbers` reads its sample); most first, ties in
 * the values' order here (a database's collation orders text its own way), so that a seed picks
 * the same value on every run.
 */
export function readValueCounts(rows: readonly Row[] | undefined, numeric = false): Array<{ value: SqlValue; n: number }> {
  const counts = (rows ?? []).flatMap((r) => {
    const n = asNumber(r.n);
    const value = numeric ? asNumber(r.v) : r.v;
    return isQuotable(value) && typeof n === "number" ? [{ value, n }] : [];
  });
  const key = (v: SqlValue) => (typeof v === "number" ? v : String(v));
  return counts.sort((a, b) => b.n - a.n || (key(a.value) < key(b.value) ? -1 : key(a.value) > key(b.value) ? 1 : 0));
}

/**
 * Rows from a query's result: a JSON list of objects, bare, under one key ({rows: [...]}) or two
 * (@bytebase/dbhub's {success, data: {rows: [...]}}); the JSON may be followed by lines of its
 * own (@benborla29/mcp-server-mysql adds "Query execution time: 0.71 ms").
 */
export function rowsOf(result: ToolResult): Row[] | undefined {
  if (result.isError) return undefined;
  const list = listIn(queryData(result));
  if (!list || !list.every((r) => r && typeof r === "object" && !Array.isArray(r))) return undefined;
  return list as Row[];
}

/** A JSON value's list: itself, or the first list among its fields, or among its fields' fields. */
export function listIn(data: unknown, depth = 2): unknown[] | undefined {
  if (Array.isArray(data)) return data;
  if (!data || typeof data !== "object" || depth === 0) return undefined;
  const values = Object.values(data);
  return values.find(Array.isArray) ?? values.map((v) => listIn(v, depth - 1)).find((l) => l !== undefined);
}

/** A query result's JSON: the whole text, or a JSON list or object on its first lines with more lines after it. */
export function queryData(result: ToolResult): unknown {
  const whole = resultData(result);
  if (whole !== undefined) return whole;
  const end = jsonEnd(result.text);
  if (end === undefined || !/^[ \t]*(\r?\n|$)/.test(result.text.slice(end))) return undefined;
  try {
    return JSON.parse(result.text.slice(0, end)) as unknown;
  } catch {
    return undefined;
  }
}

/** Where the JSON list or object that a text starts with ends (brackets counted outside strings). */
function jsonEnd(text: string): number | undefined {
  const start = text.search(/\S/);
  if (start < 0 || (text[start] !== "[" && text[start] !== "{")) return undefined;
  const close = balancedEnd(text, start);
  return close < 0 ? undefined : close + 1;
}

/** The one value of a one-row, one-column result; undefined for none, several, null or a long text. */
export function oneValue(result: ToolResult): SqlValue | undefined {
  const rows = rowsOf(result);
  if (!rows || rows.length !== 1) return undefined;
  const values = Object.values(rows[0]);
  if (values.length !== 1) return undefined;
  const v = asNumber(values[0]) ?? values[0];
  return typeof v === "number" ? v : typeof v === "string" && v.length > 0 && v.length <= 60 ? v : undefined;
}

/** A number, or a string that is one as databases print them (Postgres sends bigint and numeric as text). */
function asNumber(v: unknown): number | undefined {
  if (typeof v === "number") return Number.isFinite(v) ? v : undefined;
  return typeof v === "string" && /^-?(0|[1-9]\d{0,14})(\.\d+)?$/.test(v) ? Number(v) : undefined;
}

/** A value that can go into a query and a task as it is: a finite number, or a short plain text without quotes. */
export function isQuotable(v: unknown): v is SqlValue {
  return typeof v === "number" ? Number.isFinite(v) : typeof v === "string" && /^[A-Za-z0-9 .,@-]{1,30}$/.test(v) && v.trim() === v;
}

/** The value as an SQL literal: numbers bare, text in single quotes (isQuotable rules out a quote inside). */
export function sqlLiteral(v: SqlValue): string {
  return typeof v === "number" ? String(v) : `'${v}'`;
}

/** The value as a task quotes it: text in double quotes, numbers bare. */
export function quoted(v: SqlValue): string {
  return typeof v === "number" ? String(v) : `"${v}"`;
}

/**
 * A column's name as words: credit_limit and creditLimit → "credit limit", FirstName → "first
 * name", Visits → "visits"; an acronym stays (HTTPStatus → "HTTP status", SKU → "SKU").
 */
export function words(column: string): string {
  return column
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(/[_\s]+/)
    .filter((w) => w !== "")
    .map((w) => (/^[A-Z][a-z0-9]*$/.test(w) ? w.toLowerCase() : w))
    .join(" ");
}
