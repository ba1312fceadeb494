/**
 * The SQL recipes against a real MariaDB (a throwaway server, test/helpers/mariadb.ts) behind two
 * npm servers: @benborla29/mcp-server-mysql 2.0.9 (its `mysql_query` checks each query with
 * node-sql-parser's MySQL grammar, which refuses MySQL 8's reserved words bare: `groups`, `rank`)
 * and @bytebase/dbhub 0.21.2 (`execute_sql`, read-only by its TOML config). The schema is the
 * hard kind: reserved words as a table and as columns (`order`, `groups`, `user`, `rank`, `key`),
 * mixed-case names, DECIMAL money, BIGINT keys and counts, digits stored as text, NULLs, and a
 * second database whose table no unqualified name reaches. Every expected answer is compared
 * with what MariaDB itself answers to the task's reference query, and no query the generator
 * sends past its catalog and dialect probes fails.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type McpToolbox } from "../../src/mcp/connect.js";
import type { Scenario } from "../../src/scenarios/schema.js";
import { generateVerified } from "../../src/scenarios/verified/generate.js";
import { startMariaDb, type MariaDbServer } from "../helpers/mariadb.js";

const MYSQL_SERVER = resolve("node_modules/@benborla29/mcp-server-mysql/dist/index.js");
const DBHUB = resolve("node_modules/@bytebase/dbhub/dist/index.js");

function schema(): string {
  const lines = [
    "CREATE DATABASE shop; CREATE DATABASE analytics; USE shop;",
    "CREATE TABLE `order` (id BIGINT PRIMARY KEY, `user` VARCHAR(60), `groups` VARCHAR(20), `rank` INT, `key` VARCHAR(20), amount DECIMAL(10,2), qty VARCHAR(10), note VARCHAR(40) NULL);",
    "CREATE TABLE Customers (CustomerId INT PRIMARY KEY, FirstName VARCHAR(40), City VARCHAR(40), creditLimit DECIMAL(12,2), Visits BIGINT, Tier VARCHAR(10) NULL);",
    "CREATE TABLE `groups` (id INT PRIMARY KEY, label VARCHAR(40), `rank` INT, members INT, `window` VARCHAR(10));",
    "CREATE TABLE analytics.events (id BIGINT UNSIGNED PRIMARY KEY, kind VARCHAR(20), duration_ms BIGINT, country VARCHAR(20));",
  ];
  for (let i = 1; i <= 40; i++) {
    const qty = (i * 13) % 50 + (i % 3 === 0 ? 0.5 : 0);
    lines.push(`INSERT INTO \`order\` VALUES (${9_000_000_000 + i}, 'buyer${i}@example.com', '${["retail", "retail", "wholesale", "export"][i % 4]}', ${i % 6}, 'K${String(i).padStart(3, "0")}', ${((i * 41) % 97) + 0.25}, '${qty}', ${i % 5 === 0 ? "NULL" : `'note ${i}'`});`);
  }
  const names = ["Ada", "Brian", "Chen", "Dana", "Emil", "Fatima", "Goran", "Hana", "Ivan", "Jules", "Kofi", "Lena", "Mira", "Nils", "Olga", "Pavel", "Quinn", "Rosa"];
  names.forEach((n, k) => {
    const i = k + 1;
    lines.push(`INSERT INTO Customers VALUES (${i}, '${n}', '${["Oslo", "Lima", "Oslo", "Kyoto", "Lima", "Oslo"][i % 6]}', ${((i * 1337) % 5000) + 0.5}, ${(i * 123456789012) % 9999999999999}, ${i % 4 === 0 ? "NULL" : `'${["gold", "silver", "silver"][i % 3]}'`});`);
  });
  for (let i = 1; i <= 9; i++) lines.push(`INSERT INTO \`groups\` VALUES (${i}, 'Group ${String.fromCharCode(64 + i)}', ${i % 3}, ${((i * 7) % 11) + 2}, '${["am", "pm"][i % 2]}');`);
  for (let i = 1; i <= 12; i++) lines.push(`INSERT INTO analytics.events VALUES (${i}, '${["click", "view", "view", "buy"][i % 4]}', ${i * 1000003}, '${["NO", "CL", "JP"][i % 3]}');`);
  return lines.join("\n");
}

/** The catalog and dialect probes, which fail by design on some databases (sql.ts tries SQLite's and Postgres' first). */
const EXPECTED_TO_FAIL = /sqlite_master|current_schema\(\)/;

describe("SQL recipes on MariaDB through npm servers", () => {
  let db: MariaDbServer;
  const dir = mkdtempSync(join(tmpdir(), "mariadb-scen-"));
  beforeAll(async () => {
    db = await startMariaDb();
    db.sql(schema());
  }, 60_000);
  afterAll(async () => {
    await db?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Generates on the server, recording every SQL call and whether it failed. */
  async function generate(box: McpToolbox, n: number): Promise<{ scenarios: Scenario[]; failed: string[] }> {
    const failed: string[] = [];
    const call = box.call.bind(box);
    box.call = async (name, args, options) => {
      const r = await call(name, args, options);
      // (only the recipes' SELECTs are sent: sql.test.ts checks that no made-up string is)
      if (r.isError && /^SELECT /.test(String((args as { sql?: string }).sql))) failed.push(`${String((args as { sql?: string }).sql)} -> ${r.text.slice(0, 200)}`);
      return r;
    };
    try {
      const { scenarios } = await generateVerified(box, { n, seed: 4 });
      return { scenarios, failed: failed.filter((f) => !EXPECTED_TO_FAIL.test(f)) };
    } finally {
      await box.close();
    }
  }

  const sqlOf = (s: Scenario) => String(Object.values(s.reference!.calls[0].arguments)[0]);

  /** Every answer is MariaDB's own to the reference query. */
  function expectMariaDbAnswers(scenarios: Scenario[]): void {
    for (const s of scenarios) {
      const out = db.sql(sqlOf(s), "shop").trimEnd().split("\n");
      expect(out, `${s.task}: ${sqlOf(s)}`).toHaveLength(1);
      const check = s.expected![0];
      if (check.kind === "numeric") expect(check.value, s.task).toBeCloseTo(Number(out[0]), 5);
      else expect(check, s.task).toMatchObject({ kind: "contains", value: out[0] });
    }
  }

  it("mcp-server-mysql: every table of the current database, reserved words quoted as its parser needs, answers MariaDB's", async () => {
    const box = await connect(`stdio:node ${MYSQL_SERVER}`, {
      timeoutMs: 20_000,
      env: { MYSQL_HOST: "127.0.0.1", MYSQL_PORT: String(db.port), MYSQL_USER: db.user, MYSQL_PASS: db.password, MYSQL_DB: "shop" },
    });
    const { scenarios, failed } = await generate(box, 30);
    expect(failed).toEqual([]);
    expect(scenarios).toHaveLength(30);
    const queries = scenarios.map(sqlOf);
    // the other database's table is never asked for by a bare name
    expect(queries.filter((q) => /\bevents\b/.test(q))).toEqual([]);
    for (const t of ["`order`", "`Customers`", "`groups`"]) expect(queries.some((q) => q.includes(`FROM ${t}`)), t).toBe(true);
    expect(new Set(scenarios.map((s) => s.tags.find((t) => t.startsWith("template:")))).size).toBeGreaterThanOrEqual(6);
    expectMariaDbAnswers(scenarios);
  }, 60_000);

  it("mcp-server-mysql without MYSQL_DB (no current database): every database's tables, by qualified names", async () => {
    const box = await connect(`stdio:node ${MYSQL_SERVER}`, {
      timeoutMs: 20_000,
      env: { MYSQL_HOST: "127.0.0.1", MYSQL_PORT: String(db.port), MYSQL_USER: db.user, MYSQL_PASS: db.password },
    });
    const { scenarios, failed } = await generate(box, 16);
    expect(failed).toEqual([]);
    expect(scenarios).toHaveLength(16);
    const queries = scenarios.map(sqlOf);
    expect(queries.some((q) => q.includes("FROM `analytics`.`events`"))).toBe(true);
    expect(queries.some((q) => q.includes("FROM `shop`.")), queries.join("\n")).toBe(true);
    expect(scenarios.some((s) => s.task.includes("analytics.events"))).toBe(true);
    expectMariaDbAnswers(scenarios);
  }, 60_000);

  it("dbhub (read-only execute_sql) on MariaDB: answers MariaDB's", async () => {
    const config = join(dir, "dbhub.toml");
    writeFileSync(
      config,
      `[[sources]]\nid = "default"\ndsn = "mariadb://${db.user}:${db.password}@127.0.0.1:${db.port}/shop"\n\n[[tools]]\nname = "execute_sql"\nsource = "default"\nreadonly = true\n`,
    );
    const box = await connect(`stdio:node ${DBHUB} --config ${config} --transport stdio`, { timeoutMs: 20_000 });
    const { scenarios, failed } = await generate(box, 20);
    expect(failed).toEqual([]);
    expect(scenarios).toHaveLength(20);
    expect(scenarios.map(sqlOf).filter((q) => /\bevents\b/.test(q))).toEqual([]);
    expectMariaDbAnswers(scenarios);
  }, 60_000);
});
