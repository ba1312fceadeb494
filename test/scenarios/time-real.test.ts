/**
 * time-mcp (a devDependency): six tools over the clock. current_time and relative_time ("3 years
 * ago") answer from the time now, and days_in_month, get_week_year and get_timestamp do too when
 * their optional date is left out (this month's days). A task built on one of those would be
 * wrong a day or a month later, which a replay a minute later cannot see: the generator must give
 * every date (in the layout the tool asks for) and never expect an answer counted from now.
 * (Checked by hand with `scenarios check --fresh` on the server under `faketime -f +75d`.)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readScenarioFile } from "../../src/scenarios/io.js";
import { datedByNow } from "../../src/scenarios/verified/generic.js";
import { cli } from "../train/helpers.js";

const SERVER = `node ${resolve("node_modules/time-mcp/dist/index.js")}`;

describe("time-mcp (the npm package) through the CLI", () => {
  const dir = mkdtempSync(join(tmpdir(), "time-real-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("builds only tasks whose answers hold on another day: every date given, nothing counted from now", async () => {
    const out = join(dir, "time.jsonl");
    const g = await cli(["scenarios", "generate", "--server", SERVER, "--n", "12", "--seed", "1", "--accept-fewer", "--out", out]);
    expect(g.code, g.stderr).toBe(0);
    const scenarios = readScenarioFile(out);
    expect(scenarios.length).toBeGreaterThan(5);
    for (const s of scenarios) {
      for (const call of s.reference!.calls) {
        expect(["current_time", "relative_time"], s.task).not.toContain(call.name);
        const dated = call.arguments.date ?? call.arguments.time;
        expect(dated, `${s.id} ${call.name}`).toMatch(/^\d{4}-\d{2}-\d{2}/);
      }
      for (const e of s.expected ?? []) if (e.kind === "contains") expect(datedByNow(e.value), e.value).toBe(false);
    }
    const check = await cli(["scenarios", "check", "--fresh", "--server", SERVER, out]);
    expect(check.code, check.stderr + check.stdout).toBe(0);
  });

  it("converts between real time zones and asks for the converted time and the timestamp, not the digits of a sentence", async () => {
    const out = join(dir, "time40.jsonl");
    const g = await cli(["scenarios", "generate", "--server", SERVER, "--n", "40", "--seed", "1", "--out", out]);
    expect(g.code, g.stderr).toBe(0);
    // no longer one tool's tasks with the same answer over and over
    expect(g.stderr).not.toContain("expect the same answer");
    const scenarios = readScenarioFile(out);
    const of = (tool: string) => scenarios.filter((s) => s.reference!.calls.some((c) => c.name === tool));
    expect(of("convert_time").length).toBeGreaterThan(2);
    expect(of("get_timestamp").length).toBeGreaterThan(2);
    for (const s of of("convert_time")) {
      const args = s.reference!.calls[0].arguments;
      // a zone the tz database knows (an alias such as Asia/Kolkata too): Intl takes it
      for (const zone of [args.sourceTimezone, args.targetTimezone]) expect(() => new Intl.DateTimeFormat("en", { timeZone: String(zone) }), String(zone)).not.toThrow();
      // the time in the other zone, which the call did not give
      const [e] = s.expected!;
      expect(e.kind === "contains" && /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(e.value) && e.value !== args.time, JSON.stringify(e)).toBe(true);
    }
    // "The week of the year is 3, and the isoWeek of the year is 2.": one of the two, by its name
    expect(of("get_week_year").length).toBeGreaterThan(0);
    for (const s of of("get_week_year")) {
      expect(s.task).toMatch(/(week|isoWeek) of the year[?.]$/);
      expect(s.expected![0]).toMatchObject({ kind: "numeric" });
    }
    for (const s of of("get_timestamp")) expect(s.expected![0]).toMatchObject({ kind: "numeric", value: Date.parse(`${String(s.reference!.calls[0].arguments.time).replace(" ", "T")}Z`) });
    const check = await cli(["scenarios", "check", "--fresh", "--server", SERVER, out]);
    expect(check.code, check.stderr + check.stdout).toBe(0);
  });
});
