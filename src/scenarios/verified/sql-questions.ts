/**
 * The questions the SQL recipes ask of one table (sql.ts sends the query and reads the answer).
 * Each kind looks at the table's column profiles (sql-table.ts) and returns the one SELECT whose
 * single value answers it, how to phrase it (training and held-out phrasings apart), and which
 * values are worth asking for: a count of 1 or 0 is not (a model guessing "1" would score).
 */
import type { AnswerCheck } from "../schema.js";
import { containsCheck, numericCheck, type RecipeContext } from "./recipe.js";
import {
  categoricalColumns,
  labelColumns,
  quantityColumns,
  quoted,
  repeatedValues,
  sqlLiteral,
  words,
  type ColumnProfile,
  type SqlValue,
  type TableView,
} from "./sql-table.js";

export const SQL_KINDS = ["count", "where", "extreme", "aggregate", "distinct", "top", "lookup"] as const;
export type SqlKind = (typeof SQL_KINDS)[number];

interface Phrasings {
  train: readonly string[];
  test: readonly string[];
}

export interface SqlQuestion {
  /** one SELECT; its result is one row of one value */
  query: string;
  phrasings: Phrasings;
  vars: Record<string, string>;
  /** what the answer is, for the reference answer's sentence ("number of rows in orders") */
  label: string;
  difficulty: number;
  /** whether the query's value is worth a task (default: any) */
  accept?: (value: SqlValue) => boolean;
  /** how the value is checked and written in the reference answer (default: as it is) */
  answer?: (value: SqlValue) => { check: AnswerCheck; shown: SqlValue };
}

type Asker = (ctx: RecipeContext, view: TableView) => Promise<SqlQuestion | undefined>;

const COUNT: Phrasings = {
  train: ["How many rows does the {table} table have?", "Count the records in the {table} table."],
  test: ["What is the number of rows in the {table} table?"],
};
const WHERE: Phrasings = {
  train: ["How many rows of the {table} table have {column} equal to {value}?", "In the {table} table, count the records whose {column} is {value}."],
  test: ["How many {table} rows have the {column} {value}?"],
};
const EXTREME: Phrasings = {
  train: ["What is the {which} {column} in the {table} table?", "Find the {which} value of {column} among the {table} rows."],
  test: ["In the {table} table, which {column} is the {which}? Give the value."],
};
const SUM: Phrasings = {
  train: ["What is the total {column} over the {table} rows{filter}?", "Add up the {column} of the {table} rows{filter}. What is the sum?"],
  test: ["Summing {column} across the {table} rows{filter}, what do you get?"],
};
/** for a column already named as a sum ("total", "total_amount"): no "total total" */
const SUM_OF_TOTALS: Phrasings = {
  train: ["What do the {column} values of the {table} rows{filter} add up to?", "Add up the {column} values of the {table} rows{filter}. What is the sum?"],
  test: ["Summing the {column} values across the {table} rows{filter}, what do you get?"],
};
const AVG: Phrasings = {
  train: ["What is the average {column} of the {table} rows{filter}? Round to two decimal places.", "Compute the mean {column} of the {table} rows{filter}, to two decimal places."],
  test: ["To two decimals, what is the mean of {column} among the {table} rows{filter}?"],
};
const DISTINCT: Phrasings = {
  train: ["How many different {column} values occur in the {table} table?", "Count the distinct values of {column} in {table}."],
  test: ["In the {table} table, how many distinct {column} values are there?"],
};
const TOP: Phrasings = {
  train: ["Which {table} row has the {which} {column}? Give its {label}.", "In the {table} table, find the {label} of the row with the {which} {column}."],
  test: ["Among the {table} rows, whose {column} is the {which}? Answer with the {label}."],
};
const LOOKUP: Phrasings = {
  train: ["What is the {target} of the {table} row whose {key} is {value}?", "In the {table} table, look up the row with {key} {value} and give its {target}."],
  test: ["Find the {target} recorded for {key} {value} in the {table} table."],
};

/** at least two rows: "1" is the answer a model would guess */
const informativeCount = (v: SqlValue) => typeof v === "number" && v >= 2;

/** how many rows a table has */
const count: Asker = async (_ctx, { table, ref }) => ({
  query: `SELECT COUNT(*) AS n FROM ${ref(table)}`,
  phrasings: COUNT,
  vars: { table },
  label: `number of rows in ${table}`,
  difficulty: 2,
  accept: informativeCount,
});

/** how many rows hold a value of a categorical column that several rows share */
const where: Asker = async (ctx, view) => {
  const column = pickOf(ctx, categoricalColumns(view.columns));
  if (!column) return undefined;
  const value = pickOf(ctx, await repeatedValues(view, column.name));
  if (value === undefined) return undefined;
  return {
    // a number is compared with the column as a number: digits stored as text (`text = integer`
    // is an error in Postgres) are cast, as `num` casts them
    query: `SELECT COUNT(*) AS n FROM ${view.ref(view.table)} WHERE ${typeof value === "number" ? view.num(column.name) : view.ref(column.name)} = ${sqlLiteral(value)}`,
    phrasings: WHERE,
    vars: { table: view.table, column: words(column.name), value: quoted(value) },
    label: `number of ${view.table} rows with ${words(column.name)} ${value}`,
    difficulty: 3,
    // "how many rows have rating 3?" answered 3: echoing the number would score
    accept: (v) => informativeCount(v) && v !== value,
  };
};

/** the largest or smallest value of a numeric column */
const extreme: Asker = async (ctx, { table, columns, ref, num }) => {
  const column = pickOf(ctx, quantityColumns(columns));
  if (!column) return undefined;
  const which = ctx.rng.bool() ? "largest" : "smallest";
  return {
    query: `SELECT ${which === "largest" ? "MAX" : "MIN"}(${num(column.name)}) AS v FROM ${ref(table)}`,
    phrasings: EXTREME,
    vars: { table, column: words(column.name), which },
    label: `${which} ${words(column.name)} in ${table}`,
    difficulty: 3,
  };
};

/** the sum or the average of a numeric column, over the table or over the rows with a shared categorical value */
const aggregate: Asker = async (ctx, view) => {
  const column = pickOf(ctx, quantityColumns(view.columns));
  if (!column) return undefined;
  const average = ctx.rng.bool();
  const filter = ctx.rng.bool() ? await sharedValueFilter(ctx, view, column) : undefined;
  const namedAsSum = /^(total|sum)\b/.test(words(column.name));
  const what = average ? `average ${words(column.name)}` : namedAsSum ? `sum of the ${words(column.name)} values` : `total ${words(column.name)}`;
  return {
    query: `SELECT ${average ? "AVG" : "SUM"}(${view.num(column.name)}) AS v FROM ${view.ref(view.table)}${filter ? ` WHERE ${filter.sql}` : ""}`,
    phrasings: average ? AVG : namedAsSum ? SUM_OF_TOTALS : SUM,
    vars: { table: view.table, column: words(column.name), filter: filter ? ` whose ${filter.words}` : "" },
    label: `${what} of the ${view.table} rows${filter ? ` whose ${filter.words}` : ""}`,
    difficulty: filter ? 4 : 3,
    answer: twoDecimals,
  };
};

/** how many distinct values a categorical column holds */
const distinct: Asker = async (ctx, { table, columns, ref }) => {
  const column = pickOf(ctx, categoricalColumns(columns));
  if (!column) return undefined;
  return {
    query: `SELECT COUNT(DISTINCT ${ref(column.name)}) AS n FROM ${ref(table)}`,
    phrasings: DISTINCT,
    vars: { table, column: words(column.name) },
    label: `number of distinct ${words(column.name)} values in ${table}`,
    difficulty: 3,
    accept: informativeCount,
  };
};

/**
 * The name (a label column) of the row with the largest or smallest value of a numeric column.
 * The query returns every row at the extreme, and sql.ts keeps only a result of one row: a tie
 * has no single answer.
 */
const top: Asker = async (ctx, { table, columns, ref, num }) => {
  const label = pickOf(ctx, labelColumns(columns));
  const column = pickOf(ctx, quantityColumns(columns));
  if (!label || !column) return undefined;
  const which = ctx.rng.bool() ? "largest" : "smallest";
  return {
    query: `SELECT ${ref(label.name)} FROM ${ref(table)} WHERE ${num(column.name)} = (SELECT ${which === "largest" ? "MAX" : "MIN"}(${num(column.name)}) FROM ${ref(table)})`,
    phrasings: TOP,
    vars: { table, label: words(label.name), column: words(column.name), which },
    label: `${words(label.name)} of the ${table} row with the ${which} ${words(column.name)}`,
    difficulty: 4,
  };
};

/**
 * One column of the row a unique value names (a name, an email; a key where there is nothing
 * else). sql.ts keeps only a result of one row, so the value does name one row of the whole table.
 */
const lookup: Asker = async (ctx, { table, sample, columns, ref, num }) => {
  const key = pickOf(ctx, lookupKeys(columns, sample.length));
  if (!key) return undefined;
  const row = ctx.rng.pick(sample);
  const keyValue = row[key.name] as SqlValue;
  const targets = columns.filter((c) => c !== key && !c.idLike && c.values.includes(row[c.name] as SqlValue));
  const target = pickOf(ctx, targets);
  if (!target) return undefined;
  return {
    query: `SELECT ${ref(target.name)} FROM ${ref(table)} WHERE ${typeof keyValue === "number" ? num(key.name) : ref(key.name)} = ${sqlLiteral(keyValue)}`,
    phrasings: LOOKUP,
    vars: { table, target: words(target.name), key: words(key.name), value: quoted(keyValue) },
    label: `${words(target.name)} of the ${table} row whose ${words(key.name)} is ${keyValue}`,
    difficulty: 3,
  };
};

export const ASKERS: Record<SqlKind, Asker> = { count, where, extreme, aggregate, distinct, top, lookup };

/**
 * Columns whose value names one row: a name or an email, else a key (id). Never a quantity:
 * "the row whose price is 131.98" names a row by chance, and a float may not compare equal.
 */
function lookupKeys(columns: readonly ColumnProfile[], sampled: number): ColumnProfile[] {
  const keys = columns.filter((c) => c.unique && c.values.length === sampled);
  const names = keys.filter((c) => c.text && !c.idLike);
  return names.length > 0 ? names : keys.filter((c) => c.idLike && c.values.every((v) => typeof v === "string" || Number.isInteger(v)));
}

/** Rows sharing a value of a categorical column other than `except`: "status is "open"". */
async function sharedValueFilter(ctx: RecipeContext, view: TableView, except: ColumnProfile): Promise<{ sql: string; words: string } | undefined> {
  const column = pickOf(ctx, categoricalColumns(view.columns).filter((c) => c !== except && c.text));
  if (!column) return undefined;
  const value = pickOf(ctx, await repeatedValues(view, column.name));
  if (value === undefined) return undefined;
  return { sql: `${view.ref(column.name)} = ${sqlLiteral(value)}`, words: `${words(column.name)} is ${quoted(value)}` };
}

/**
 * A sum or average: whole numbers exactly; others as asked, to two decimals, where either
 * rounding of the exact value passes (2.125 as 2.12 or 2.13).
 */
function twoDecimals(value: SqlValue): { check: AnswerCheck; shown: SqlValue } {
  if (typeof value !== "number") return { check: containsCheck(value), shown: value };
  if (Number.isInteger(value)) return { check: numericCheck(value), shown: value };
  return {
    check: { kind: "numeric", value: Math.round(value * 1e6) / 1e6, tolerance: 0.006, relTolerance: 0 },
    shown: Math.round(value * 100) / 100,
  };
}

function pickOf<T>(ctx: RecipeContext, items: readonly T[]): T | undefined {
  return items.length > 0 ? ctx.rng.pick(items) : undefined;
}
