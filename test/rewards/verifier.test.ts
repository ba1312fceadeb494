/**
 * The verifier on every expected kind: the five answer checks on the final answer, and a state
 * check run after the "rollout" on each trajectory's own instance of the real shop fixture server
 * (stdio, fresh database per isolated instance): the instance where the order was cancelled
 * passes, the untouched one fails.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "../../src/mcp/connect.js";
import type { Toolbox } from "../../src/mcp/types.js";
import { scoreGroup } from "../../src/rewards/combine.js";
import type { TrajectoryScore } from "../../src/rewards/types.js";
import { verifierReward } from "../../src/rewards/verifier.js";
import type { ScenarioInput } from "../../src/scenarios/schema.js";
import { group, scenario, trajectory, type Step } from "./build.js";

async function verify(expected: ScenarioInput["expected"], answer: string, mode?: "all" | "fraction") {
  const s = scenario({ expected });
  const t = trajectory({ answer });
  return (await verifierReward({ mode }).score(t, { scenario: s, group: group([t]), index: 0 })) as TrajectoryScore;
}

describe("verifier: answer checks", () => {
  const cases: Array<[string, NonNullable<ScenarioInput["expected"]>[number], string, string]> = [
    ["exact", { kind: "exact", value: "Paris" }, "paris", "Lyon"],
    ["numeric", { kind: "numeric", value: 69.93, tolerance: 0.01 }, "The total is $69.93.", "The total is $70.50."],
    ["contains", { kind: "contains", value: "cancelled" }, "Order 5003 is now Cancelled.", "Order 5003 is placed."],
    ["regex", { kind: "regex", pattern: "order\\s+#?5003" }, "Done: order #5003", "Done: order 5002"],
    ["json_subset", { kind: "json_subset", value: { status: "cancelled" } }, '{"order_id":5003,"status":"cancelled"}', '{"status":"placed"}'],
  ];
  for (const [kind, check, good, bad] of cases) {
    it(`${kind}: 1 and success on a match, 0 otherwise, with a detail`, async () => {
      const pass = await verify([check], good);
      expect(pass.score).toBe(1);
      expect(pass.success).toBe(true);
      const fail = await verify([check], bad);
      expect(fail.score).toBe(0);
      expect(fail.success).toBe(false);
      expect(fail.detail).toMatch(/0\/1 passed/);
    });
  }

  it("numeric: a list of guesses fails, restating the task and the tools' results does not", async () => {
    const s = scenario({ task: "What is 12% of 25 after adding 3?", expected: [{ kind: "numeric", value: 6, tolerance: 1e-6 }] });
    const score = async (answer: string, steps: Step[] = []) => {
      const t = trajectory({ answer, steps, task: s.task });
      return (await verifierReward().score(t, { scenario: s, group: group([t]), index: 0 })) as TrajectoryScore;
    };
    const hedge = await score("It is 0, 1, 2, 4, 5, 6, 7, 8 or 9.");
    expect(hedge.success).toBe(false);
    expect(hedge.detail).toMatch(/the answer offers 8 other numbers of its own \(0, 1, 2, 4, 5, …\): a list of guesses is not an answer/);
    // the task's numbers, a tool's result (rounded too) and the answer itself may all be said
    const steps = [{ name: "percentage", args: { value: 25, percent: 12 }, result: '{"result": 3.0000001, "note": "ratio 0.12"}' }];
    expect((await score("12% of 25 is 3.00, and 3 + 3 = 6; the ratio was 0.12.", steps)).success).toBe(true);
    // two numbers of its own are still an answer with an aside
    expect((await score("6 (about 5.9 to 6.1)")).success).toBe(true);
  });

  it("all vs fraction over several checks", async () => {
    const checks: NonNullable<ScenarioInput["expected"]> = [
      { kind: "contains", value: "5003" },
      { kind: "contains", value: "cancelled" },
    ];
    expect((await verify(checks, "order 5003 placed")).score).toBe(0);
    const partial = await verify(checks, "order 5003 placed", "fraction");
    expect(partial.score).toBe(0.5);
    expect(partial.success).toBe(false);
  });

  it("fraction: an absence check earns its share only while every check of something present passes", async () => {
    // a deletion's shape: two values gone, one kept
    const checks: NonNullable<ScenarioInput["expected"]> = [
      { kind: "not_contains", value: "Dentist" },
      { kind: "not_contains", value: "Kite" },
      { kind: "contains", value: "Groceries" },
    ];
    const score = async (answer: string) => (await verify(checks, answer, "fraction")).score;
    expect(await score("Groceries")).toBe(1);
    expect(await score("Groceries, Kite")).toBeCloseTo(2 / 3);
    expect(await score("Groceries, Kite, Dentist")).toBeCloseTo(1 / 3);
    // everything gone, the kept value too: nothing, not two thirds
    expect(await score("")).toBe(0);
    expect(await score("Kite")).toBe(0);
    // the detail says which passed checks earned nothing, so a 0 with "1/3 passed" is not a puzzle
    const wiped = await verify(checks, "", "fraction");
    expect(wiped.detail).toMatch(/^2\/3 passed/);
    expect(wiped.detail?.match(/no credit while a present value is missing/g)).toHaveLength(2);
    expect((await verify(checks, "Groceries", "fraction")).detail).not.toMatch(/no credit/);
    expect((await verify(checks, "")).detail).not.toMatch(/no credit/);
  });

  it("has no score for a scenario without expectations", async () => {
    const t = trajectory({ answer: "x" });
    const r = await verifierReward().score(t, { scenario: scenario(), group: group([t]), index: 0 });
    expect(r).toEqual({ missing: expect.stringMatching(/no expected outcomes/) });
  });
});

describe("verifier: state check on the real shop fixture", () => {
  let base: Toolbox;
  const instances: Toolbox[] = [];
  beforeAll(async () => {
    base = await connect("fixture:shop");
    instances.push(await base.isolated(), await base.isolated());
  });
  afterAll(async () => {
    await Promise.all(instances.map((i) => i.close()));
    await base?.close();
  });

  it("passes on the instance the rollout changed and fails on the untouched one", async () => {
    // "Rollout" 0 cancels the order on its own server; rollout 1 only claims to.
    const cancelled = await instances[0].call("cancel_order", { order_id: 5003 });
    expect(cancelled.isError).toBe(false);
    const s = scenario({
      expected: [
        { kind: "state", tool: "get_order", arguments: { order_id: 5003 }, expect: { kind: "json_subset", value: { status: "cancelled" } } },
        { kind: "contains", value: "cancelled" },
      ],
    });
    const g = group([
      trajectory({ steps: [{ name: "cancel_order", args: { order_id: 5003 } }], answer: "Order 5003 is cancelled." }),
      trajectory({ steps: [], answer: "Order 5003 is cancelled." }),
    ]);
    const scored = await scoreGroup(g, s, [verifierReward()], { stateTarget: (i) => instances[i] });
    expect(scored.group.trajectories.map((t) => t.rewards.verifier)).toEqual([1, 0]);
    expect(scored.group.trajectories.map((t) => t.success)).toEqual([true, false]);
    expect(scored.breakdown[1].details.verifier).toMatch(/1\/2 passed.*✗ state get_order/);
    expect(scored.stats.failures).toEqual({});
  });

  it("a state check without a target scores 0 and is counted as a failure, not thrown", async () => {
    const s = scenario({ expected: [{ kind: "state", tool: "get_order", arguments: { order_id: 5003 }, expect: { kind: "contains", value: "x" } }] });
    const scored = await scoreGroup(group([trajectory({ answer: "x" })]), s, [verifierReward()]);
    expect(scored.group.trajectories[0].rewards.verifier).toBe(0);
    expect(scored.stats.failures.verifier).toBe(1);
    expect(scored.stats.errors[0].message).toMatch(/no stateTarget/);
  });
});
