/**
 * The SQL recipes against @bytebase/dbhub 0.21.2 (a devDependency; its last release for Node 20)
 * on a SQLite file, through the CLI: dbhub answers {success, data: {rows}} and its execute_sql is
 * read-only only by its TOML config (by default it is annotated destructive, and not called).
 * The file has the hard names: a table `order` with `user`, `groups`, `rank` and `key` columns, a
 * `groups` table with a `window` column, mixed-case `Customers` (`creditLimit`), digits stored as
 * TEXT, NULLs. Every expected answer is what SQLite answers to the task's reference query.
 */
import Database from "better-sqlite3";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readScenarioFile } from "../../src/scenarios/io.js";
import type { Scenario } from "../../src/scenarios/schema.js";
import { cli } from "../train/helpers.js";

const DBHUB = resolve("node_modules/@bytebase/dbhub/dist/index.js");

function writeDatabase(file: string): void {
  const db = new Database(file);
  db.exec(`
    CREATE TABLE "order" (id INTEGER PRIMARY KEY, "user" TEXT, "groups" TEXT, "rank" INTEGER, "key" TEXT, amount DECIMAL(10,2), qty TEXT, note TEXT);
    CREATE TABLE "Customers" (CustomerId INTEGER PRIMARY KEY, FirstName TEXT, City TEXT, creditLimit DECIMAL(12,2), Visits BIGINT, Tier TEXT);
    CREATE TABLE "groups" (id INTEGER PRIMARY KEY, label TEXT, "rank" INTEGER, members INTEGER, "window" TEXT);
  `);
  const order = db.prepare(`INSERT INTO "order" VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
  for (let i = 1; i <= 30; i++) {
    order.run(9_000_000_000 + i, `buyer${i}@example.com`, ["retail", "retail", "wholesale", "export"][i % 4], i % 6, `K${String(i).padStart(3, "0")}`, ((i * 41) % 97) + 0.25, String(((i * 13) % 50) + (i % 3 === 0 ? 0.5 : 0)), i % 5 === 0 ? null : `note ${i}`);
  }
  const customer = db.prepare(`INSERT INTO "Customers" VALUES (?, ?, ?, ?, ?, ?)`);
  ["Ada", "Brian", "Chen", "Dana", "Emil", "Fatima", "Goran", "Hana", "Ivan", "Jules", "Kofi", "Lena"].forEach((n, k) => {
    const i = k + 1;
    customer.run(i, n, ["Oslo", "Lima", "Oslo", "Kyoto", "Lima", "Oslo"][i % 6], ((i * 1337) % 5000) + 0.5, (i * 123456789012) % 9999999999999, i % 4 === 0 ? null : ["gold", "silver", "silver"][i % 3]);
  });
  const group = db.prepare(`INSERT INTO "groups" VALUES (?, ?, ?, ?, ?)`);
  for (let i = 1; i <= 9; i++) group.run(i, `Group ${String.fromCharCode(64 + i)}`, i % 3, ((i * 7) % 11) + 2, ["am", "pm"][i % 2]);
  db.close();
}

describe("SQL recipes on SQLite through dbhub (the npm package)", () => {
  const dir = mkdtempSync(join(tmpdir(), "dbhub-scen-"));
  const file = join(dir, "stress.db");
  let scenarios: Scenario[];
  beforeAll(async () => {
    writeDatabase(file);
    const config = join(dir, "dbhub.toml");
    writeFileSync(config, `[[sources]]\nid = "default"\ndsn = "sqlite://${file}"\n\n[[tools]]\nname = "execute_sql"\nsource = "default"\nreadonly = true\n`);
    const out = join(dir, "hub.jsonl");
    const g = await cli(["scenarios", "generate", "--server", `node ${DBHUB} --config ${config} --transport stdio`, "--n", "24", "--seed", "4", "--out", out]);
    expect(g.code, g.stderr).toBe(0);
    scenarios = readScenarioFile(out);
  }, 90_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("builds tasks on every table, reserved names quoted, each answer what SQLite answers", () => {
    expect(scenarios).toHaveLength(24);
    const queries = scenarios.map((s) => String((s.reference!.calls[0].arguments as { sql: string }).sql));
    for (const t of ['"order"', "Customers", "groups"]) expect(queries.some((q) => q.includes(`FROM ${t}`)), t).toBe(true);
    expect(new Set(scenarios.map((s) => s.tags.find((t) => t.startsWith("template:")))).size).toBeGreaterThanOrEqual(5);
    // columns in words ("credit limit", "first name"), as snake_case ones are
    expect(scenarios.map((s) => s.task).filter((t) => /creditLimit|FirstName|Visits/.test(t))).toEqual([]);
    expect(scenarios.some((s) => /credit limit|first name|visits/.test(s.task))).toBe(true);
    const db = new Database(file, { readonly: true });
    try {
      for (const [i, s] of scenarios.entries()) {
        const rows = db.prepare(queries[i]).raw().all() as unknown[][];
        expect(rows, queries[i]).toHaveLength(1);
        const truth = rows[0][0] as string | number;
        const check = s.expected![0];
        if (check.kind === "numeric") expect(check.value, s.task).toBeCloseTo(Number(truth), 5);
        else expect(check, s.task).toMatchObject({ kind: "contains", value: String(truth) });
      }
    } finally {
      db.close();
    }
  });
});
