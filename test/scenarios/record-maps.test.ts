/**
 * Record tools whose rows and filters are free-form maps of column → value (test/servers/rows.ts,
 * standing in for mcp-sqlite 1.0.9's create_record, read_records, update_records and
 * delete_records). Before, such a map was synthesized as `{}`: every insert, update and delete
 * failed ("no columns", "conditions are required"), and mcp-sqlite under --allow-writes got no
 * change task at all. A map is now filled from a row the server showed for the same table: the
 * value it holds where the map picks rows, a new one where it is a change's data; a change's
 * "Record created successfully" is no answer to ask for.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readScenarioFile } from "../../src/scenarios/io.js";
import { stdioTarget } from "../servers/launch.js";
import { cli } from "../train/helpers.js";

const COLUMNS: Record<string, string[]> = { customers: ["id", "name", "city", "tier"], products: ["id", "title", "category", "price"] };
const CHANGES = ["create_record", "update_records", "delete_records"];

describe("record tools that take maps of column → value (mcp-sqlite), through the CLI", () => {
  const dir = mkdtempSync(join(tmpdir(), "record-maps-"));
  const template = mkdtempSync(join(tmpdir(), "record-maps-data-"));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(template, { recursive: true, force: true });
  });

  it("inserts, updates and deletes rows of a table with that table's columns, checked by a read, and every task replays", async () => {
    const server = stdioTarget("rows");
    const out = join(dir, "rows.jsonl");
    const g = await cli(["scenarios", "generate", "--server", server, "--template-dir", template, "--allow-writes", "--n", "14", "--seed", "1", "--accept-fewer", "--out", out]);
    expect(g.code, g.stderr).toBe(0);
    // the template stays as it was: each instance wrote its rows into its own copy
    expect(readdirSync(template)).toEqual([]);
    const scenarios = readScenarioFile(out);
    const changes = scenarios.filter((s) => CHANGES.includes(s.reference!.calls[0].name));
    expect(new Set(changes.map((s) => s.reference!.calls[0].name)).size, g.stderr).toBeGreaterThanOrEqual(2);
    expect(changes.length).toBeGreaterThanOrEqual(3);
    for (const s of scenarios) {
      const { name, arguments: args } = s.reference!.calls[0];
      for (const key of ["data", "conditions"]) {
        if (!(key in args)) continue;
        const columns = Object.keys(args[key] as object);
        expect(columns.length, s.task).toBeGreaterThan(0);
        for (const c of columns) expect(COLUMNS[String(args.table)], s.task).toContain(c);
      }
      if (CHANGES.includes(name)) expect(s.expected!.some((e) => e.kind === "state"), s.task).toBe(true);
      for (const e of s.expected ?? []) if (e.kind === "contains") expect(e.value, s.task).not.toMatch(/successfully/i);
    }
    const check = await cli(["scenarios", "check", "--fresh", "--server", server, "--template-dir", template, out]);
    expect(check.code, check.stderr + check.stdout).toBe(0);
  }, 60_000);
});
