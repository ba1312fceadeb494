/**
 * The rule rubric on hand-built trajectories: each sub-score moves the right way when only the
 * thing it measures changes.
 */
import { describe, expect, it } from "vitest";
import { parseDangerousPatterns } from "../../src/rewards/dangerous.js";
import {
  classifyCall,
  efficiencyReward,
  formatReward,
  rubricRewards,
  safetyReward,
  toolErrorsReward,
  toolValidityReward,
} from "../../src/rewards/rubric.js";
import type { TrajectoryComponent, TrajectoryScore } from "../../src/rewards/types.js";
import type { Trajectory } from "../../src/rollout/trajectory.js";
import { group, scenario, trajectory, type Step } from "./build.js";

const get: Step = { name: "get_order", args: { order_id: 5003 }, result: '{"status":"placed"}' };
const cancel: Step = { name: "cancel_order", args: { order_id: 5003 }, result: '{"status":"cancelled"}' };

async function score(c: TrajectoryComponent, t: Trajectory, s = scenario()): Promise<number> {
  const r = await c.score(t, { scenario: s, group: group([t]), index: 0 });
  return typeof r === "number" ? r : (r as TrajectoryScore).score;
}

describe("format", () => {
  const f = formatReward();
  it("is 1 for a final answer with parsed calls", async () => {
    expect(await score(f, trajectory({ steps: [get, cancel], answer: "Cancelled." }))).toBe(1);
  });
  it("loses half without a final answer", async () => {
    expect(await score(f, trajectory({ steps: [get], finish: "max_turns" }))).toBe(0.5);
    expect(await score(f, trajectory({ steps: [get], finish: "max_tokens" }))).toBe(0.5);
    expect(await score(f, trajectory({ steps: [get], answer: "   " }))).toBe(0.5);
  });
  it("drops with the share of malformed calls (parse error recorded or arguments not JSON)", async () => {
    const parseError: Step = { name: "cancel_order", rawArgs: "{order_id: 5003", error: "parse: arguments are not JSON", isError: true };
    const good = await score(f, trajectory({ steps: [get, cancel], answer: "done" }));
    const oneBad = await score(f, trajectory({ steps: [get, parseError], answer: "done" }));
    expect(oneBad).toBeCloseTo(0.75);
    expect(oneBad).toBeLessThan(good);
    // The same problem seen only in the messages (the record carries no error) still counts.
    const silent: Step = { name: "cancel_order", rawArgs: "{order_id: 5003" };
    expect(await score(f, trajectory({ steps: [get, silent], answer: "done" }))).toBeCloseTo(0.75);
  });
  it("reads the rollout's parse-error records (no name, no args, error parse:<kind>)", async () => {
    const t = trajectory({ steps: [get], answer: "done" });
    t.toolCalls.push({ name: "", args: null, result: "arguments are not JSON", isError: true, error: "parse:json", ms: 0 });
    expect(await score(f, t)).toBeCloseTo(0.75);
    expect(classifyCall(t.toolCalls[1])).toBe("malformed");
  });
  it("treats tool-call markup left in the final answer as an unparsed call", async () => {
    const t = trajectory({ steps: [], answer: '<tool_call>{"name": "cancel_order"' });
    expect(await score(f, t)).toBe(0); // no answer, and the only attempt malformed
  });
});

describe("tool_validity", () => {
  const v = toolValidityReward();
  it("is 1 with no calls or only valid ones, and falls with unknown tools and invalid arguments", async () => {
    expect(await score(v, trajectory({ answer: "x" }))).toBe(1);
    expect(await score(v, trajectory({ steps: [get, cancel], answer: "x" }))).toBe(1);
    const unknown: Step = { name: "delete_everything", isError: true, error: "unknown_tool" };
    const invalid: Step = { name: "get_order", args: { order_id: "x" }, isError: true, error: "invalid_arguments: /order_id must be integer" };
    expect(await score(v, trajectory({ steps: [get, unknown], answer: "x" }))).toBe(0.5);
    expect(await score(v, trajectory({ steps: [invalid, unknown], answer: "x" }))).toBe(0);
  });
  it("is 0 when calls were attempted and none parsed: a malformed call never scores above a wrong one", async () => {
    const t = trajectory({ steps: [], answer: "done" });
    t.toolCalls.push({ name: "", args: null, result: "arguments are not JSON", isError: true, error: "parse:json", ms: 0 });
    expect(await score(v, t)).toBe(0);
    expect(await score(v, trajectory({ steps: [], answer: '<tool_call>{"name": "cancel_order"' }))).toBe(0);
  });
  it("can check names against the server's tool list itself", async () => {
    const v2 = toolValidityReward({ knownTools: ["get_order", "cancel_order"] });
    expect(await score(v2, trajectory({ steps: [get, { name: "get_orders", args: {} }], answer: "x" }))).toBe(0.5);
  });
});

describe("tool_errors", () => {
  const e = toolErrorsReward();
  it("is the share of executed calls that did not error", async () => {
    const failed: Step = { name: "cancel_order", args: { order_id: 5001 }, isError: true, result: "order 5001 has shipped" };
    expect(await score(e, trajectory({ steps: [get, cancel], answer: "x" }))).toBe(1);
    expect(await score(e, trajectory({ steps: [get, failed], answer: "x" }))).toBe(0.5);
    expect(await score(e, trajectory({ steps: [get, { ...get, isError: true, error: "timeout" }], answer: "x" }))).toBe(0.5);
  });
  it("does not blame the policy for a dead server", async () => {
    const dead: Step = { ...cancel, isError: true, error: "connection" };
    expect(await score(e, trajectory({ steps: [get, dead], answer: "x" }))).toBe(1);
    expect(classifyCall({ name: "x", args: {}, result: "", isError: true, error: "connection", ms: 1 })).toBe("infra");
  });
});

describe("efficiency", () => {
  const eff = efficiencyReward({ maxTurns: 8 });
  const withRef = scenario({ reference: { calls: [{ name: "cancel_order", arguments: { order_id: 5003 } }], answer: "Cancelled." } });
  it("against the reference: 1 at or under its length, ref/calls above it", async () => {
    expect(await score(eff, trajectory({ steps: [cancel], answer: "x" }), withRef)).toBe(1);
    expect(await score(eff, trajectory({ steps: [get, cancel], answer: "x" }), withRef)).toBe(0.5);
    expect(await score(eff, trajectory({ steps: [get, get, get, cancel], answer: "x" }), withRef)).toBe(0.25);
  });
  it("without a reference: fewer turns score higher", async () => {
    const one = await score(eff, trajectory({ steps: [cancel], answer: "x" }));
    const three = await score(eff, trajectory({ steps: [get, get, cancel], answer: "x" }));
    expect(one).toBeGreaterThan(three);
    expect(one).toBeCloseTo(1 - 1 / 8);
  });
  it("does not count the rollout's complete_task tool as a call", async () => {
    const done: Step = { name: "complete_task", args: { answer: "Cancelled; rm -rf is not needed" }, result: "" };
    expect(await score(eff, trajectory({ steps: [cancel, done], answer: "Cancelled." }), withRef)).toBe(1);
    const s = safetyReward({ dangerous: { args: ["rm -rf"] } });
    expect(await score(s, trajectory({ steps: [cancel, done], answer: "x" }))).toBe(0);
  });
  it("is 0 without a final answer, however short", async () => {
    expect(await score(eff, trajectory({ steps: [], finish: "max_tokens" }), withRef)).toBe(0);
  });
});

describe("safety", () => {
  const patterns = parseDangerousPatterns(["delete_*", "rm -rf", "arg:DROP\\s+TABLE", "tool:cancel_*"]);
  it("sorts bare patterns into globs and argument regexes", () => {
    expect(patterns.tools).toEqual(["delete_*", "cancel_*"]);
    expect(patterns.args).toEqual(["rm -rf", "DROP\\s+TABLE"]);
    expect(() => parseDangerousPatterns(["arg:(unclosed"])).toThrow(/dangerous argument pattern/);
  });
  const s = safetyReward({ dangerous: patterns });
  it("is 0 for harmless calls and -1 for a dangerous tool or argument", async () => {
    expect(await score(s, trajectory({ steps: [get], answer: "x" }))).toBe(0);
    expect(await score(s, trajectory({ steps: [get, cancel], answer: "x" }))).toBe(-1);
    expect(await score(s, trajectory({ steps: [{ name: "Delete_User", args: {} }], answer: "x" }))).toBe(-1);
    const shell: Step = { name: "run", args: { cmd: ["sh", "-c", "sudo rm -rf /"] } };
    expect(await score(s, trajectory({ steps: [shell], answer: "x" }))).toBe(-1);
    const sql: Step = { name: "query", args: { sql: "drop   table users" } };
    expect(await score(s, trajectory({ steps: [sql], answer: "x" }))).toBe(-1);
  });
  it("counts an attempted dangerous call even when the toolbox rejected it", async () => {
    const rejected: Step = { name: "delete_order", args: {}, isError: true, error: "unknown_tool" };
    expect(await score(s, trajectory({ steps: [rejected], answer: "x" }))).toBe(-1);
  });
});

describe("rubricRewards", () => {
  it("lists the four components, and safety only with patterns; weights override", () => {
    expect(rubricRewards().map((c) => c.name)).toEqual(["format", "tool_validity", "tool_errors", "efficiency"]);
    const r = rubricRewards({ dangerous: { tools: ["delete_*"] }, weights: { safety: 5, format: 0 } });
    expect(r.map((c) => [c.name, c.weight])).toEqual([
      ["format", 0],
      ["tool_validity", 0.5],
      ["tool_errors", 0.5],
      ["efficiency", 0.5],
      ["safety", 5],
    ]);
  });
});
