/**
 * The SQL recipes against the real thing: PostgreSQL (a throwaway cluster, test/helpers/postgres.ts)
 * behind the reference @modelcontextprotocol/server-postgres 0.6.2 (a devDependency), through the
 * CLI. The shop database with Postgres' types (NUMERIC money and a BIGINT key, which node-postgres
 * sends as strings), a Prisma-style table ("Supplier", "leadDays") and one named by a reserved
 * word ("order", with "user" and "group" columns). Every expected answer is checked against what
 * Postgres itself answers to the task's reference query.
 */
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readScenarioFile } from "../../src/scenarios/io.js";
import type { Scenario } from "../../src/scenarios/schema.js";
import { startPostgres, type PostgresCluster } from "../helpers/postgres.js";
import { writeShopDatabase } from "../helpers/shop-database.js";
import { cli } from "../train/helpers.js";

const SERVER = `node ${resolve("node_modules/@modelcontextprotocol/server-postgres/dist/index.js")}`;

/** The shop tables, as test/helpers/shop-database.ts writes them with Postgres' types, copied into `db`. */
async function copyShop(client: pg.Client, dir: string): Promise<void> {
  const file = join(dir, "shop.db");
  writeShopDatabase(file, { postgresTypes: true });
  const lite = new Database(file, { readonly: true });
  try {
    for (const { name, sql } of lite.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string; sql: string }>) {
      await client.query(sql);
      for (const row of lite.prepare(`SELECT * FROM ${name}`).all() as Array<Record<string, unknown>>) {
        const keys = Object.keys(row);
        await client.query(`INSERT INTO ${name} (${keys.join(", ")}) VALUES (${keys.map((_, i) => `$${i + 1}`).join(", ")})`, keys.map((k) => row[k]));
      }
    }
  } finally {
    lite.close();
  }
}

describe("SQL recipes on PostgreSQL through server-postgres (the npm package)", () => {
  let cluster: PostgresCluster;
  let client: pg.Client;
  let scenarios: Scenario[];
  let stderr: string;
  const dir = mkdtempSync(join(tmpdir(), "pg-scen-"));
  beforeAll(async () => {
    cluster = await startPostgres();
    const admin = new pg.Client({ connectionString: cluster.url() });
    await admin.connect();
    await admin.query("CREATE DATABASE shop");
    await admin.end();
    client = new pg.Client({ connectionString: cluster.url("shop") });
    await client.connect();
    await copyShop(client, dir);
    await client.query(`CREATE TABLE "Supplier" (id SERIAL PRIMARY KEY, "companyName" TEXT, "country" TEXT, "leadDays" INTEGER)`);
    for (let i = 1; i <= 12; i++) await client.query(`INSERT INTO "Supplier" ("companyName", "country", "leadDays") VALUES ($1, $2, $3)`, [`Supplier ${String.fromCharCode(64 + i)}`, ["Norway", "Norway", "Chile", "Japan"][i % 4], (i * 7) % 30]);
    await client.query(`CREATE TABLE "order" (id BIGINT PRIMARY KEY, "user" TEXT, "group" TEXT, amount NUMERIC(8,2))`);
    for (let i = 1; i <= 16; i++) await client.query(`INSERT INTO "order" VALUES ($1, $2, $3, $4)`, [i, `buyer${i}@example.com`, ["retail", "retail", "wholesale", "export"][i % 4], ((i * 41) % 97) + 0.25]);
    const out = join(dir, "pg.jsonl");
    const g = await cli(["scenarios", "generate", "--server", `${SERVER} ${cluster.url("shop")}`, "--n", "60", "--seed", "4", "--out", out]);
    expect(g.code, g.stderr).toBe(0);
    stderr = g.stderr;
    scenarios = readScenarioFile(out);
  }, 120_000);
  afterAll(async () => {
    await client?.end();
    cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const sqlOf = (s: Scenario) => String((s.reference!.calls[0].arguments as { sql: string }).sql);

  it("builds tasks of every kind, on every table, each answer what Postgres answers", async () => {
    expect(scenarios.length).toBe(60);
    expect(stderr).not.toContain("could not build");
    const kinds = new Set(scenarios.flatMap((s) => s.tags.filter((t) => t.startsWith("template:generic.sql."))));
    expect(kinds.size).toBeGreaterThanOrEqual(6);
    const tables = new Set(scenarios.map((s) => /FROM ("?[A-Za-z_]+"?)/.exec(sqlOf(s))?.[1]));
    for (const t of ["customers", "products", "orders", '"Supplier"', '"order"']) expect(tables, t).toContain(t);
    for (const s of scenarios) {
      const { rows } = await client.query(sqlOf(s));
      const truth = Object.values(rows[0] as object)[0] as string | number;
      const check = s.expected![0];
      if (check.kind === "numeric") expect(check.value, s.task).toBeCloseTo(Number(truth), 5);
      else expect(check, s.task).toMatchObject({ kind: "contains", value: String(truth) });
    }
  });

  it("a table of digits stored as text (a CSV import): rows counted by a value and looked up by a key, compared as numbers", async () => {
    const admin = new pg.Client({ connectionString: cluster.url() });
    await admin.connect();
    try {
      await admin.query("CREATE DATABASE digits");
    } finally {
      await admin.end();
    }
    const db = new pg.Client({ connectionString: cluster.url("digits") });
    await db.connect();
    try {
      await db.query("CREATE TABLE ratings (id TEXT PRIMARY KEY, stars TEXT, votes TEXT)");
      for (let i = 1; i <= 24; i++) await db.query("INSERT INTO ratings VALUES ($1, $2, $3)", [String(1000 + i), String(((i * 7) % 5) + 1), String((i * 37) % 200)]);
      const out = join(dir, "digits.jsonl");
      const g = await cli(["scenarios", "generate", "--server", `${SERVER} ${cluster.url("digits")}`, "--n", "12", "--seed", "2", "--out", out]);
      expect(g.code, g.stderr).toBe(0);
      const built = readScenarioFile(out);
      const kinds = new Set(built.flatMap((s) => s.tags.filter((t) => t.startsWith("template:generic.sql."))));
      // text = integer is an error in Postgres: these were never built
      expect(kinds).toContain("template:generic.sql.where");
      expect(kinds).toContain("template:generic.sql.lookup");
      for (const s of built) {
        const { rows } = await db.query(sqlOf(s));
        expect(rows, sqlOf(s)).toHaveLength(1);
        const truth = Object.values(rows[0] as object)[0] as string | number;
        const check = s.expected![0];
        if (check.kind === "numeric") expect(check.value, s.task).toBeCloseTo(Number(truth), 5);
        else expect(check, s.task).toMatchObject({ kind: "contains", value: String(truth) });
      }
    } finally {
      await db.end();
    }
  }, 60_000);

  it("asks money as money: summed and averaged, never a text to count by or a row's name", () => {
    expect(scenarios.some((s) => /(SUM|AVG)\((CAST\()?(price|total|amount)\b/.test(sqlOf(s)))).toBe(true);
    for (const s of scenarios) {
      expect(sqlOf(s), s.task).not.toMatch(/WHERE (price|total|amount) = [^(]|'\d+(\.\d+)?'/);
      expect(s.task).not.toMatch(/"\d+(\.\d+)?"/);
    }
  });
});
