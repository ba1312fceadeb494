/**
 * A server whose replies are status envelopes stamped with the time (test/servers/tracker.ts,
 * standing in for @allpepper/task-orchestrator 3.3.3): every reply differs from the last by its
 * `metadata.timestamp` only, failures come back as `success: false` without the MCP error flag,
 * and its writers carry no annotations and are named `manage_item {operation: create|update|
 * delete}`, `advance`, `sync`. Before: every tool was "unstable" and nothing was built, while the
 * harvest called the writers on the user's real data (task-orchestrator's features were advanced
 * and closed); the tasks that were built asked for the envelope ("the metadata version", "the
 * message": "id is required for get operation").
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ToolResult } from "../../src/mcp/types.js";
import { connect } from "../../src/mcp/connect.js";
import { readScenarioFile } from "../../src/scenarios/io.js";
import { generateVerified } from "../../src/scenarios/verified/generate.js";
import { isReadOnlyTool, pickAnswerField, withoutClock } from "../../src/scenarios/verified/generic.js";
import { envelopeData, isUseful, reportsFailure } from "../../src/scenarios/verified/recipe.js";
import { stdioTarget } from "../servers/launch.js";
import { cli } from "../train/helpers.js";

const text = (data: unknown): ToolResult => ({ isError: false, text: JSON.stringify(data, null, 2), content: [] }) as unknown as ToolResult;
const stamp = { timestamp: "2026-12-06T13:08:16.928Z", version: "1.0.0" };

describe("a status envelope stamped with the time", () => {
  it("tells a writer by its operation argument's values, or by a verb leading its name that is a noun elsewhere", () => {
    const schema = (ops: string[]) => ({ type: "object", properties: { operation: { type: "string", enum: ops } } });
    expect(isReadOnlyTool({ name: "manage_container", inputSchema: schema(["create", "update", "delete"]) })).toBe(false);
    expect(isReadOnlyTool({ name: "entries", inputSchema: schema(["list", "bulkCreate"]) })).toBe(false);
    expect(isReadOnlyTool({ name: "query_container", inputSchema: schema(["get", "search", "overview"]) })).toBe(true);
    // an enum of another argument is no operation: sorting by "updated" reads
    expect(isReadOnlyTool({ name: "list_items", inputSchema: { type: "object", properties: { sort: { enum: ["update", "create"] } } } })).toBe(true);
    for (const name of ["advance", "terminate", "block", "unblock", "sync", "manage_sections"]) expect(isReadOnlyTool(name), name).toBe(false);
    for (const name of ["get_block", "get_blocked_tasks", "list_blocks", "get_sync_status"]) expect(isReadOnlyTool(name), name).toBe(true);
  });

  it("compares replies without the moment they were made, and reads the data inside the envelope", () => {
    const a = withoutClock(JSON.stringify({ success: true, data: { id: 3 }, metadata: stamp }));
    const b = withoutClock(JSON.stringify({ success: true, data: { id: 3 }, metadata: { ...stamp, timestamp: "2026-12-06T13:08:19.004Z" } }));
    expect(a).toBe(b);
    expect(withoutClock("created 2024-03-01, due 2024-04-01")).toBe("created 2024-03-01, due 2024-04-01");
    expect(withoutClock(`at ${Math.floor(Date.now() / 1000)} and 1700000000`)).toBe("at <time> and 1700000000");

    const next = text({ success: true, message: "Next task retrieved successfully", data: { title: "Design landing page", priority: "HIGH" }, metadata: stamp });
    expect(envelopeData(JSON.parse(next.text))).toEqual({ title: "Design landing page", priority: "HIGH" });
    expect(pickAnswerField(next)).toEqual({ label: "title", value: "Design landing page" });
    // data beside keys that are not a status's is a record's own field
    expect(envelopeData({ name: "run 4", data: { rows: 3 } })).toEqual({ name: "run 4", data: { rows: 3 } });

    const failed = text({ success: false, message: "Task not found: 476f", error: "NOT_FOUND", metadata: stamp });
    expect(reportsFailure(failed)).toBe(true);
    expect(isUseful(failed)).toBe(false);
    expect(pickAnswerField(failed)).toBeUndefined();
    expect(reportsFailure(text({ status: "failed", job: "build" }))).toBe(false);
  });

  it("never asks for a default the call left unsaid: a search's limit 20 and offset 0 come back whether or not it gave them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tracker-defaults-"));
    const box = await connect(stdioTarget("tracker"), { cwd: dir });
    try {
      const { scenarios } = await generateVerified(box, { n: 30, seed: 1, allowWrites: false, acceptFewer: true });
      expect(scenarios.length).toBeGreaterThanOrEqual(20);
      for (const s of scenarios) expect(s.task).not.toMatch(/(What is|Report|Tell me) the [^.?]*\b(limit|offset)\b/);
    } finally {
      await box.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  describe("through the CLI, on a folder of the user's (no --template-dir)", () => {
    const data = mkdtempSync(join(tmpdir(), "tracker-data-"));
    afterAll(() => rmSync(data, { recursive: true, force: true }));

    it("leaves its file alone without --allow-writes, builds tasks on the data, never on the envelope, and they replay", async () => {
      const server = stdioTarget("tracker");
      const seeded = await cli(["call", "--server", server, "--cwd", data, "list_tags", "{}"]);
      expect(seeded.code, seeded.stderr).toBe(0);
      const before = readFileSync(join(data, "tracker.json"), "utf8");
      const out = join(data, "..", `${data.split("/").pop()}.jsonl`);
      const g = await cli(["scenarios", "generate", "--server", server, "--cwd", data, "--n", "8", "--seed", "1", "--accept-fewer", "--out", out]);
      expect(g.code, g.stderr).toBe(0);
      expect(g.stderr).toContain("note: not calling manage_item, advance, sync: they change the server's state");
      expect(g.stderr).not.toContain("answered differently");
      expect(readFileSync(join(data, "tracker.json"), "utf8")).toBe(before);
      const scenarios = readScenarioFile(out);
      expect(scenarios.length).toBeGreaterThanOrEqual(6);
      for (const s of scenarios) {
        expect(s.task).not.toMatch(/\b(metadata|message|error)\b/);
        for (const e of s.expected ?? []) if (e.kind === "contains") expect(e.value, s.task).not.toMatch(/1\.0\.0|successfully|required|not found/i);
        for (const c of s.reference!.calls) expect(["query_items", "get_next_item", "list_tags"], s.task).toContain(c.name);
      }
      const check = await cli(["scenarios", "check", "--fresh", "--server", server, "--cwd", data, out]);
      rmSync(out);
      expect(check.code, check.stderr + check.stdout).toBe(0);
      expect(readFileSync(join(data, "tracker.json"), "utf8")).toBe(before);
    }, 60_000);
  });
});
