/**
 * Verified scenarios on a database server with a read-only SQL tool (test/servers/sqlite.ts: a
 * real SQLite database behind list_tables / describe_table / query): the solver writes the query.
 * Started with --query-only it has the query tool alone, as the reference Postgres server: the
 * tables are then found through the query tool itself. Started with --db on the shop database
 * (test/helpers/shop-database.ts: keys, names and emails beside categories and quantities), every
 * expected answer is compared with what the file's rows say, computed here without the server.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type McpToolbox } from "../../src/mcp/connect.js";
import type { ToolResult } from "../../src/mcp/types.js";
import { checkAnswer } from "../../src/scenarios/check.js";
import { replayScenario } from "../../src/scenarios/replay.js";
import type { AnswerCheck, Scenario } from "../../src/scenarios/schema.js";
import { constantAnswerNote, generateVerified } from "../../src/scenarios/verified/generate.js";
import { rowsOf, tableNames } from "../../src/scenarios/verified/sql.js";
import { categoricalColumns, labelColumns, profileColumns, quantityColumns, readValueCounts, withNumbers, words } from "../../src/scenarios/verified/sql-table.js";
import { writeShopDatabase } from "../helpers/shop-database.js";
import { stdioTarget } from "../servers/launch.js";

const text = (t: string) => ({ isError: false, text: t, truncated: false }) as ToolResult;
const SQL_KINDS = ["count", "where", "extreme", "aggregate", "distinct", "top", "lookup"].map((k) => `template:generic.sql.${k}`);
let tb: McpToolbox;

beforeAll(async () => {
  tb = await connect(stdioTarget("sqlite"), { timeoutMs: 20_000 });
});
afterAll(async () => {
  await tb?.close();
});

const kindOf = (s: Scenario) => s.tags.find((t) => t.startsWith("template:"))!;
const queryOf = (s: Scenario) => String(s.reference!.calls[0].arguments.sql);
const checkOf = (s: Scenario) => s.expected![0] as AnswerCheck & { value: string | number };

/** Each scenario's expected answer against what its own query gives on the SQLite file, read
 *  directly; `unquoted` names no query may leave bare (they need quoting there). */
function expectAnswersFrom(file: string, scenarios: readonly Scenario[], unquoted?: RegExp): void {
  const check = new Database(file, { readonly: true });
  try {
    for (const s of scenarios) {
      if (unquoted) expect(queryOf(s).replace(/'[^']*'/g, "''"), s.task).not.toMatch(unquoted);
      const truth = Object.values(check.prepare(queryOf(s)).get() as object)[0] as string | number;
      expect(checkOf(s).value, s.task).toBe(typeof truth === "number" ? Math.round(truth * 1e6) / 1e6 : truth);
    }
  } finally {
    check.close();
  }
}

/** Generates on `box` and checks every SQL scenario against the seeded tables, and by replay. */
async function expectSqlScenarios(box: McpToolbox, n: number): Promise<void> {
  const { scenarios } = await generateVerified(box, { n, seed: 5 });
  const sql = scenarios.filter((s) => s.tags.some((t) => t.startsWith("template:generic.sql.")));
  const kinds = new Set(sql.map(kindOf));
  expect([...kinds].every((k) => SQL_KINDS.includes(k))).toBe(true);
  expect(kinds.size).toBeGreaterThanOrEqual(3);
  // what the seeded tables hold, by query
  const truth: Record<string, number | string> = {
    "SELECT COUNT(*) AS n FROM customers": 3,
    "SELECT COUNT(*) AS n FROM orders": 5,
    "SELECT COUNT(*) AS n FROM customers WHERE city = 'London'": 2,
    "SELECT COUNT(*) AS n FROM orders WHERE status = 'open'": 3,
    "SELECT MAX(total) AS v FROM orders": 990,
    "SELECT MIN(total) AS v FROM orders": 12,
    "SELECT COUNT(DISTINCT city) AS n FROM customers": 2,
    "SELECT COUNT(DISTINCT status) AS n FROM orders": 3,
    "SELECT SUM(total) AS v FROM orders": 1230.75,
    "SELECT AVG(total) AS v FROM orders": 246.15,
    "SELECT AVG(total) AS v FROM orders WHERE status = 'open'": 40.083333,
    "SELECT city FROM customers WHERE name = 'Ada Lovelace'": "London",
    "SELECT city FROM customers WHERE name = 'Grace Hopper'": "New York",
    "SELECT status FROM orders WHERE id = 13": "cancelled",
  };
  let checked = 0;
  for (const s of sql) {
    const [call] = s.reference!.calls;
    expect(s.reference!.calls).toHaveLength(1);
    expect(call.name).toBe("query");
    const query = queryOf(s);
    expect(query).toMatch(/^SELECT /);
    // the task never gives the query away
    expect(s.task).not.toContain("SELECT");
    // a count of rows with a value is never the 1 of a name or a key
    if (kindOf(s) === "template:generic.sql.where") expect(checkOf(s).value).toBeGreaterThanOrEqual(2);
    if (query in truth) {
      checked++;
      expect(s.expected![0]).toMatchObject({ value: truth[query] });
    }
    expect((await replayScenario(box, s)).pass, s.task).toBe(true);
  }
  expect(checked).toBeGreaterThan(2);
}

/** A cell of a row as better-sqlite3 reads it. */
type Cell = string | number | null;
type Rows = Array<Record<string, Cell>>;

/**
 * What a generated query's one value must be, worked out in JavaScript from the file's rows (not
 * by running the query): one shape per kind of question. A shape with no oracle fails the test.
 */
function oracle(db: Database.Database, sql: string): Cell {
  // a cast to a number is what the oracle does anyway: it compares and sums in JavaScript numbers
  const query = sql.replace(/CAST\((\w+) AS [A-Z]+(?:\(\d+,\d+\))?\)/g, "$1");
  const rows = (table: string) => db.prepare(`SELECT * FROM ${table}`).all() as Rows;
  const literal = (l: string): Cell => (l.startsWith("'") ? l.slice(1, -1) : Number(l));
  const only = <T>(list: T[]): T => {
    expect(list, `one row answers ${query}`).toHaveLength(1);
    return list[0];
  };
  let m: RegExpExecArray | null;
  if ((m = /^SELECT COUNT\(\*\) AS n FROM (\w+)$/.exec(query))) return rows(m[1]).length;
  if ((m = /^SELECT COUNT\(\*\) AS n FROM (\w+) WHERE (\w+) = (.+)$/.exec(query))) {
    const [, table, column, value] = m;
    return rows(table).filter((r) => r[column] === literal(value)).length;
  }
  if ((m = /^SELECT COUNT\(DISTINCT (\w+)\) AS n FROM (\w+)$/.exec(query))) {
    const [, column, table] = m;
    return new Set(rows(table).map((r) => r[column]).filter((v) => v !== null)).size;
  }
  if ((m = /^SELECT (MAX|MIN)\((\w+)\) AS v FROM (\w+)$/.exec(query))) {
    const [, fn, column, table] = m;
    const values = rows(table).map((r) => Number(r[column]));
    return fn === "MAX" ? Math.max(...values) : Math.min(...values);
  }
  if ((m = /^SELECT (SUM|AVG)\((\w+)\) AS v FROM (\w+)(?: WHERE (\w+) = (.+))?$/.exec(query))) {
    const [, fn, column, table, filterColumn, filterValue] = m;
    const values = rows(table)
      .filter((r) => !filterColumn || r[filterColumn] === literal(filterValue))
      .map((r) => Number(r[column]));
    const sum = values.reduce((a, b) => a + b, 0);
    return fn === "SUM" ? sum : sum / values.length;
  }
  if ((m = /^SELECT (\w+) FROM (\w+) WHERE (\w+) = \(SELECT (MAX|MIN)\((\w+)\) FROM \w+\)$/.exec(query))) {
    const [, label, table, column, fn] = m;
    const all = rows(table);
    const values = all.map((r) => Number(r[column]));
    const extreme = fn === "MAX" ? Math.max(...values) : Math.min(...values);
    return only(all.filter((r) => Number(r[column]) === extreme))[label];
  }
  if ((m = /^SELECT (\w+) FROM (\w+) WHERE (\w+) = (.+)$/.exec(query))) {
    const [, target, table, key, value] = m;
    return only(rows(table).filter((r) => r[key] === literal(value)))[target];
  }
  throw new Error(`no oracle for ${query}`);
}

describe("SQL recipes", () => {
  it("count rows, count rows with a value, sum, average, look up, answered from the database; replayed", async () => {
    await expectSqlScenarios(tb, 12);
  });

  it("a server with only a read-only query tool: the tables are listed through it (sqlite_master)", async () => {
    const only = await connect(stdioTarget("sqlite", "--query-only"), { timeoutMs: 20_000 });
    try {
      expect(only.tools.map((t) => t.name)).toEqual(["query"]);
      await expectSqlScenarios(only, 6);
    } finally {
      await only.close();
    }
  });

  it("the query tool is sent the recipes' SELECTs only, never a made-up string (the harvest leaves it out)", async () => {
    const only = await connect(stdioTarget("sqlite", "--query-only"), { timeoutMs: 20_000 });
    const sent: string[] = [];
    const call = only.call.bind(only);
    only.call = async (name, args, options) => {
      sent.push(String((args as { sql?: unknown }).sql));
      return call(name, args, options);
    };
    try {
      await generateVerified(only, { n: 6, seed: 5 });
      expect(sent.length).toBeGreaterThan(6);
      expect(sent.filter((q) => !q.startsWith("SELECT "))).toEqual([]);
    } finally {
      await only.close();
    }
  });

  it("a server with only a query tool and no sqlite_master: the tables are listed from information_schema, of the current schema", async () => {
    const pg = await connect(stdioTarget("sqlite", "--query-only", "--information-schema"), { timeoutMs: 20_000 });
    const queries: string[] = [];
    const call = pg.call.bind(pg);
    pg.call = (name, args, options) => (queries.push(String((args as { sql?: string }).sql)), call(name, args, options));
    try {
      expect((await pg.call("query", { sql: "SELECT name FROM sqlite_master" })).isError).toBe(true);
      await expectSqlScenarios(pg, 6);
      // auth.users, storage.objects…: off the search path, `SELECT * FROM users` cannot read them
      expect(queries.filter((q) => /\b(users|sessions|identities|buckets|objects|migrations)\b/.test(q))).toEqual([]);
    } finally {
      await pg.close();
    }
  });

  it("a catalog without current_schema() (MySQL's): the tables are listed from information_schema, system schemas left out", async () => {
    const my = await connect(stdioTarget("sqlite", "--query-only", "--information-schema", "--mysql-catalog"), { timeoutMs: 20_000 });
    const queries: string[] = [];
    const call = my.call.bind(my);
    my.call = (name, args, options) => (queries.push(String((args as { sql?: string }).sql)), call(name, args, options));
    try {
      expect((await my.call("query", { sql: "SELECT current_schema()" })).isError).toBe(true);
      await expectSqlScenarios(my, 6);
      expect(queries.filter((q) => /\b(db|threads|sys_config)\b/.test(q))).toEqual([]);
    } finally {
      await my.close();
    }
  });

  it("an SQL tool annotated destructive (dbhub's execute_sql by default) is asked SELECTs under --allow-writes, never made-up SQL", async () => {
    const box = await connect(stdioTarget("sqlite", "--query-only", "--destructive-sql"), { timeoutMs: 20_000 });
    try {
      expect(box.tools.map((t) => t.name)).toEqual(["execute_sql"]);
      const { scenarios } = await generateVerified(box, { n: 6, seed: 5, allowWrites: true });
      expect(scenarios).toHaveLength(6);
      expect(scenarios.every((s) => s.tags.some((t) => t.startsWith("template:generic.sql.")))).toBe(true);
      expect(scenarios.map((s) => queryOf(s)).filter((q) => !q.startsWith("SELECT "))).toEqual([]);
    } finally {
      await box.close();
    }
  });

  it("a query tool declared as @modelcontextprotocol/server-postgres 0.6.2 declares it: `sql` not marked required, no annotations, counts as strings", async () => {
    const pg = await connect(stdioTarget("sqlite", "--query-only", "--information-schema", "--optional-sql", "--pg-numbers"), { timeoutMs: 20_000 });
    try {
      expect(pg.tools[0].inputSchema.required).toBeUndefined();
      await expectSqlScenarios(pg, 6);
    } finally {
      await pg.close();
    }
  });

  it("mixed-case names (Prisma's \"User\", \"loginCount\") quoted where the database folds unquoted names to lower case", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sql-recipes-"));
    const file = join(dir, "prisma.db");
    const db = new Database(file);
    db.exec(`
      CREATE TABLE "User" (id INTEGER PRIMARY KEY, email TEXT, name TEXT, role TEXT, "loginCount" INTEGER);
      CREATE TABLE "Post" (id INTEGER PRIMARY KEY, title TEXT, category TEXT, "viewCount" INTEGER, "authorId" INTEGER);
    `);
    const addUser = db.prepare(`INSERT INTO "User" VALUES (?, ?, ?, ?, ?)`);
    for (let i = 1; i <= 12; i++) addUser.run(i, `user${i}@example.com`, `User ${String.fromCharCode(64 + i)}`, ["USER", "USER", "ADMIN"][i % 3], (i * 37) % 101);
    const addPost = db.prepare(`INSERT INTO "Post" VALUES (?, ?, ?, ?, ?)`);
    for (let i = 1; i <= 24; i++) addPost.run(i, `Post ${String.fromCharCode(64 + i)}`, ["news", "howto", "review"][i % 3], (i * 53) % 997, 1 + (i % 12));
    db.close();
    const pg = await connect(stdioTarget("sqlite", "--db", file, "--query-only", "--fold-case"), { timeoutMs: 20_000 });
    try {
      // the emulation: `User` is `user`, which names no table; `AS Ab` names a column "ab"
      expect((await pg.call("query", { sql: "SELECT * FROM User" })).isError).toBe(true);
      expect(rowsOf(await pg.call("query", { sql: "SELECT 1 AS Ab" }))).toEqual([{ ab: 1 }]);
      const { scenarios } = await generateVerified(pg, { n: 10, seed: 5 });
      expect(new Set(scenarios.map(kindOf)).size).toBeGreaterThanOrEqual(3);
      expectAnswersFrom(file, scenarios, /(?<!")\b(User|Post|loginCount|viewCount)\b(?!")/);
    } finally {
      await pg.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a table whose first 20 rows overflow a result (a long description each) is sampled by fewer rows", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sql-recipes-"));
    const file = join(dir, "wide.db");
    const db = new Database(file);
    db.exec(`CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT, category TEXT, price REAL, description TEXT);`);
    const add = db.prepare(`INSERT INTO products VALUES (?, ?, ?, ?, ?)`);
    for (let i = 1; i <= 30; i++) add.run(i, `Product ${i}`, ["tools", "toys", "food"][i % 3], i * 3.5 + 0.99, "A fine product with many words. ".repeat(40));
    db.close();
    const box = await connect(stdioTarget("sqlite", "--db", file, "--query-only"), { timeoutMs: 20_000 });
    try {
      // 20 rows are more than a result holds (20,000 characters): the sample comes back cut
      expect((await box.call("query", { sql: "SELECT * FROM products LIMIT 20" })).truncated).toBe(true);
      const { scenarios } = await generateVerified(box, { n: 8, seed: 5 });
      expect(scenarios).toHaveLength(8);
      expectAnswersFrom(file, scenarios);
    } finally {
      await box.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a TEXT column of digits (a CSV imported as text) is compared and summed as numbers, not as text", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sql-recipes-"));
    const file = join(dir, "csv.db");
    const db = new Database(file);
    db.exec(`CREATE TABLE items (name TEXT, category TEXT, price TEXT, stock TEXT);`);
    const add = db.prepare(`INSERT INTO items VALUES (?, ?, ?, ?)`);
    const prices = ["9.5", "120.25", "15", "8.75", "99", "22.5", "310", "4.25", "56", "1000.5", "87", "13"];
    prices.forEach((p, i) => add.run(`Item ${String.fromCharCode(65 + i)}`, ["a", "a", "b", "c"][i % 4], p, String([7, 12, 3, 40, 100, 9, 250, 1, 66, 18, 5, 30][i])));
    db.close();
    const box = await connect(stdioTarget("sqlite", "--db", file, "--query-only"), { timeoutMs: 20_000 });
    try {
      const { scenarios } = await generateVerified(box, { n: 24, seed: 3 });
      const sql = scenarios.filter((s) => /template:generic\.sql\.(extreme|top|aggregate)/.test(s.tags.join(" ")));
      expect(sql.length).toBeGreaterThan(3);
      const check = new Database(file, { readonly: true });
      try {
        // the oracle orders and sums in JavaScript numbers: text order (MAX is '99') fails it
        for (const s of sql) {
          const truth = oracle(check, queryOf(s));
          const expected = checkOf(s);
          if (typeof truth === "number") expect(Number(expected.value), s.task).toBeCloseTo(truth, 5);
          else expect(expected.value, s.task).toBe(truth);
        }
      } finally {
        check.close();
      }
    } finally {
      await box.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    { db: "SQLite", flags: [] as string[] },
    { db: "a database that folds names (Postgres)", flags: ["--fold-case"] },
  ])("reserved words as names (a table \"order\", columns \"user\" and \"group\") are quoted on $db", async ({ flags }) => {
    const dir = mkdtempSync(join(tmpdir(), "sql-recipes-"));
    const file = join(dir, "reserved.db");
    const db = new Database(file);
    db.exec(`CREATE TABLE "order" (id INTEGER PRIMARY KEY, "user" TEXT, "group" TEXT, amount INTEGER);`);
    const add = db.prepare(`INSERT INTO "order" VALUES (?, ?, ?, ?)`);
    for (let i = 1; i <= 16; i++) add.run(i, `buyer${i}@example.com`, ["retail", "retail", "wholesale", "export"][i % 4], (i * 41) % 97);
    db.close();
    const box = await connect(stdioTarget("sqlite", "--db", file, "--query-only", ...flags), { timeoutMs: 20_000 });
    try {
      // bare, the reserved word is syntax
      expect((await box.call("query", { sql: "SELECT * FROM order" })).isError).toBe(true);
      const { scenarios } = await generateVerified(box, { n: 10, seed: 5 });
      const sql = scenarios.filter((s) => s.tags.some((t) => t.startsWith("template:generic.sql.")));
      expect(new Set(sql.map(kindOf)).size).toBeGreaterThanOrEqual(3);
      expectAnswersFrom(file, sql, /(?<!")\b(order|user|group)\b(?!")/);
    } finally {
      await box.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // as SQLite stores them, and as a Postgres schema declares them and node-postgres answers them
  // (NUMERIC prices and totals, a BIGINT key, COUNT and SUM: all as strings)
  describe.each([
    { types: "SQLite's", postgresTypes: false, flags: [] as string[] },
    { types: "Postgres'", postgresTypes: true, flags: ["--pg-numbers"] },
  ])("on a shop database with keys, names and emails beside categories and quantities, $types types", ({ postgresTypes, flags }) => {
    let dir: string;
    let file: string;
    let db: Database.Database;
    let scenarios: Scenario[];
    let sql: Scenario[];
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "sql-recipes-"));
      file = join(dir, "shop.db");
      writeShopDatabase(file, { postgresTypes });
      db = new Database(file, { readonly: true });
      const box = await connect(stdioTarget("sqlite", "--db", file, ...flags), { timeoutMs: 20_000 });
      try {
        ({ scenarios } = await generateVerified(box, { n: 40, seed: 5 }));
      } finally {
        await box.close();
      }
      sql = scenarios.filter((s) => kindOf(s).startsWith("template:generic.sql."));
    });
    afterAll(() => {
      db?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("the answers vary: no one answer in more than a fifth of the tasks, and no count of rows with a value under 2", () => {
      const byAnswer = new Map<string, number>();
      for (const s of scenarios) byAnswer.set(JSON.stringify(checkOf(s).value), (byAnswer.get(JSON.stringify(checkOf(s).value)) ?? 0) + 1);
      const [answer, most] = [...byAnswer].sort((a, b) => b[1] - a[1])[0];
      // counting rows by a name or an email made 12 of these 40 tasks expect 1
      expect(most, `${most} of ${scenarios.length} tasks expect ${answer}`).toBeLessThanOrEqual(0.2 * scenarios.length);
      expect(byAnswer.size).toBeGreaterThan(0.7 * scenarios.length);
      expect(constantAnswerNote(scenarios)).toBeUndefined();
      const where = sql.filter((s) => kindOf(s) === "template:generic.sql.where");
      expect(where.length).toBeGreaterThan(0);
      for (const s of where) {
        expect(checkOf(s).value, s.task).toBeGreaterThanOrEqual(2);
        // counted by a category, never by a key, a name or an email (every count of those is 1)
        expect(queryOf(s)).toMatch(/ WHERE (city|tier|status|category|quantity) = /);
      }
    });

    it("every kind of question is asked, and each expected answer is what the file's rows say", () => {
      expect(new Set(sql.map(kindOf))).toEqual(new Set(SQL_KINDS));
      for (const s of sql) {
        const truth = oracle(db, queryOf(s));
        const check = checkOf(s);
        if (typeof truth === "number") {
          expect(check.kind, s.task).toBe("numeric");
          expect(Number(check.value), s.task).toBeCloseTo(truth, 5);
        } else {
          expect(check, s.task).toMatchObject({ kind: "contains", value: truth });
          // a text answer is never spelled out in the task
          expect(s.task.toLowerCase()).not.toContain(String(truth).toLowerCase());
        }
      }
    });

    it("prices and totals are quantities, even as strings: summed and compared, never counted by, a key, a name, nor quoted as text", () => {
      expect(sql.some((s) => /(SUM|AVG|MAX|MIN)\((CAST\()?(price|total)\b/.test(queryOf(s)))).toBe(true);
      for (const s of sql) {
        // "count the orders whose total is "323.97"", "the row whose price is "67.86"", "id "1019""
        expect(queryOf(s), s.task).not.toMatch(/ WHERE (price|total) = [^(]|'\d+(\.\d+)?'/);
        expect(s.task).not.toMatch(/"\d+(\.\d+)?"/);
        // a column named "total" is summed without "the total total"
        expect(s.task).not.toMatch(/\btotal total\b/i);
        // "the price of the row with the largest stock": a row is named by a name or an email
        if (kindOf(s) === "template:generic.sql.top") expect(queryOf(s)).toMatch(/^SELECT (name|email) FROM/);
      }
    });

    it("an average is asked to two decimals, and either rounding of a half cent passes", () => {
      const averages = sql.filter((s) => queryOf(s).includes("AVG("));
      expect(averages.length).toBeGreaterThan(0);
      for (const s of averages) expect(s.task).toMatch(/two decimal/);
      const check: AnswerCheck = { kind: "numeric", value: 2.125, tolerance: 0.006, relTolerance: 0 };
      expect(checkAnswer(check, "2.12").pass && checkAnswer(check, "2.13").pass).toBe(true);
      expect(checkAnswer(check, "2.14").pass).toBe(false);
    });

    it("every task replays on a fresh server instance", async () => {
      const fresh = await connect(stdioTarget("sqlite", "--db", file, ...flags), { timeoutMs: 20_000 });
      try {
        for (const s of scenarios) expect((await replayScenario(fresh, s)).pass, s.task).toBe(true);
      } finally {
        await fresh.close();
      }
    });
  });

  it("tell categories and quantities from keys, names and emails in a sample", () => {
    const sample = [
      { id: 1, name: "Ada", email: "ada@x.org", city: "London", customer_id: 7, total: 12.5, quantity: 2 },
      { id: 2, name: "Alan", email: "alan@x.org", city: "Paris", customer_id: 7, total: 99, quantity: 2 },
      { id: 3, name: "Grace", email: "grace@x.org", city: "London", customer_id: 8, total: 3.25, quantity: 1 },
    ];
    const columns = profileColumns(sample);
    const names = (list: Array<{ name: string }>) => list.map((c) => c.name);
    expect(names(categoricalColumns(columns))).toEqual(["city"]);
    expect(names(quantityColumns(columns))).toEqual(["total", "quantity"]);
    expect(names(labelColumns(columns))).toEqual(["name", "email"]);
    // codes in digits (a CSV's zip codes and phone numbers, read as numbers) are no quantity
    const contacts = withNumbers([
      { name: "Ada", zip: "10001", phone: "5550100", postalCode: 2139, isbn: 9780131103627, score: 7 },
      { name: "Alan", zip: "94105", phone: "5550199", postalCode: 2140, isbn: 9780262033848, score: 9 },
    ]);
    expect(names(quantityColumns(profileColumns(contacts)))).toEqual(["score"]);
    // whole numbers that repeat count rows only where no text column repeats
    expect(names(categoricalColumns(columns.filter((c) => c.name !== "city")))).toEqual(["quantity"]);
  });

  it("name columns in words: snake_case and camelCase alike, acronyms kept", () => {
    expect(["credit_limit", "creditLimit", "FirstName", "Visits", "leadDays", "HTTPStatus", "SKU", "order_ID", "total2024"].map(words)).toEqual([
      "credit limit", "credit limit", "first name", "visits", "lead days", "HTTP status", "SKU", "order ID", "total2024",
    ]);
  });

  it("read table names and rows as database servers write them", () => {
    expect(tableNames(text('[{"name": "customers"}, {"name": "orders"}, {"name": "bad name; drop"}]'))).toEqual(["customers", "orders"]);
    expect(tableNames(text('{"tables": ["a", "b"]}'))).toEqual(["a", "b"]);
    expect(tableNames(text("- users\n- posts"))).toEqual(["users", "posts"]);
    expect(rowsOf(text('{"rows": [{"n": 4}]}'))).toEqual([{ n: 4 }]);
    expect(rowsOf(text("4 rows"))).toBeUndefined();
    // @benborla29/mcp-server-mysql 2.0.9: the rows, then a second text part with the time taken
    expect(rowsOf(text('[\n  {\n    "n": 18\n  }\n]\nQuery execution time: 0.71 ms'))).toEqual([{ n: 18 }]);
    expect(rowsOf(text('[{"s": "a ] b"}, {"s": "[\\"x"}]\nQuery execution time: 1 ms'))).toEqual([{ s: "a ] b" }, { s: '["x' }]);
    expect(rowsOf(text('[{"n": 1}] and [{"n": 2}]\nQuery execution time: 1 ms'))).toBeUndefined();
    // @bytebase/dbhub 0.21.2: the rows two levels down
    expect(rowsOf(text('{"success": true, "data": {"rows": [{"Ab": 1}], "count": 1, "source_id": "default"}}'))).toEqual([{ Ab: 1 }]);
    expect(rowsOf(text('{"success": true, "data": {"rows": [], "count": 0}}'))).toEqual([]);
    // node-postgres' bigint and numeric: a column of numbers as strings holds numbers, not names
    const pg = [{ id: "1019", total: "22.70", code: "x7" }, { id: "1020", total: null, code: "7" }];
    expect(withNumbers(pg)).toEqual([{ id: 1019, total: 22.7, code: "x7" }, { id: 1020, total: null, code: "7" }]);
    expect(readValueCounts([{ v: "4", n: "3" }], true)).toEqual([{ value: 4, n: 3 }]);
    expect(readValueCounts([{ v: "4", n: "3" }])).toEqual([{ value: "4", n: 3 }]);
    // tied counts in one order whatever order the database sent them in (MariaDB's varies)
    const ties = [{ v: "wholesale", n: 10 }, { v: "export", n: 10 }, { v: "retail", n: 20 }];
    const expected = [{ value: "retail", n: 20 }, { value: "export", n: 10 }, { value: "wholesale", n: 10 }];
    expect(readValueCounts(ties)).toEqual(expected);
    expect(readValueCounts([ties[1], ties[2], ties[0]])).toEqual(expected);
  });
});
