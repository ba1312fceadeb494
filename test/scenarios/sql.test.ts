/**
 * Verified scenarios on a database server with a read-only SQL tool (test/servers/sqlite.ts: a
 * real SQLite database behind list_tables / describe_table / query): the solver writes the query.
 * Started with --query-only it has the query tool alone, as the reference Postgres server: the
 * tables are then found through the query tool itself.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type McpToolbox } from "../../src/mcp/connect.js";
import type { ToolResult } from "../../src/mcp/types.js";
import { replayScenario } from "../../src/scenarios/replay.js";
import { generateVerified } from "../../src/scenarios/verified/generate.js";
import { rowsOf, tableNames } from "../../src/scenarios/verified/sql.js";
import { stdioTarget } from "../servers/launch.js";

const text = (t: string) => ({ isError: false, text: t, truncated: false }) as ToolResult;
let tb: McpToolbox;

beforeAll(async () => {
  tb = await connect(stdioTarget("sqlite"), { timeoutMs: 20_000 });
});
afterAll(async () => {
  await tb?.close();
});

/** Generates on `box` and checks every SQL scenario against the seeded tables, and by replay. */
async function expectSqlScenarios(box: McpToolbox, n: number): Promise<void> {
  const { scenarios } = await generateVerified(box, { n, seed: 5 });
  const sql = scenarios.filter((s) => s.tags.some((t) => t.startsWith("template:generic.sql.")));
  const kinds = new Set(sql.map((s) => s.tags.find((t) => t.startsWith("template:"))));
  expect(kinds).toEqual(new Set(["template:generic.sql.count", "template:generic.sql.where", "template:generic.sql.extreme"]));
  // what the seeded tables hold, by query
  const truth: Record<string, number> = {
    "SELECT COUNT(*) AS n FROM customers": 3,
    "SELECT COUNT(*) AS n FROM orders": 5,
    "SELECT COUNT(*) AS n FROM customers WHERE city = 'London'": 2,
    "SELECT COUNT(*) AS n FROM orders WHERE status = 'open'": 3,
    "SELECT MAX(total) AS v FROM orders": 990,
    "SELECT MIN(total) AS v FROM orders": 12,
  };
  let checked = 0;
  for (const s of sql) {
    const [call] = s.reference!.calls;
    expect(s.reference!.calls).toHaveLength(1);
    expect(call.name).toBe("query");
    const query = String(call.arguments.sql);
    expect(query).toMatch(/^SELECT /);
    // the task never gives the query away
    expect(s.task).not.toContain("SELECT");
    if (query in truth) {
      checked++;
      expect(s.expected![0]).toMatchObject({ kind: "numeric", value: truth[query] });
    }
    expect((await replayScenario(box, s)).pass, s.task).toBe(true);
  }
  expect(checked).toBeGreaterThan(2);
}

describe("SQL recipes", () => {
  it("count rows, count rows with a value, and find a column's extreme, answered from the database; replayed", async () => {
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

  it("a server with only a query tool and no sqlite_master: the tables are listed from information_schema", async () => {
    const pg = await connect(stdioTarget("sqlite", "--query-only", "--information-schema"), { timeoutMs: 20_000 });
    try {
      expect((await pg.call("query", { sql: "SELECT name FROM sqlite_master" })).isError).toBe(true);
      await expectSqlScenarios(pg, 6);
    } finally {
      await pg.close();
    }
  });

  it("read table names and rows as database servers write them", () => {
    expect(tableNames(text('[{"name": "customers"}, {"name": "orders"}, {"name": "bad name; drop"}]'))).toEqual(["customers", "orders"]);
    expect(tableNames(text('{"tables": ["a", "b"]}'))).toEqual(["a", "b"]);
    expect(tableNames(text("- users\n- posts"))).toEqual(["users", "posts"]);
    expect(rowsOf(text('{"rows": [{"n": 4}]}'))).toEqual([{ n: 4 }]);
    expect(rowsOf(text("4 rows"))).toBeUndefined();
  });
});
