/**
 * The reference-call match on hand-built trajectories: credit per argument of the reference
 * solution, none for the wrong tool, no score without a reference.
 */
import { describe, expect, it } from "vitest";
import { argumentMatch, referenceCallsReward } from "../../src/rewards/reference-calls.js";
import { isMissing, type TrajectoryScore } from "../../src/rewards/types.js";
import type { Trajectory } from "../../src/rollout/trajectory.js";
import type { Scenario } from "../../src/scenarios/schema.js";
import { group, scenario, trajectory } from "./build.js";

const withReference = scenario({
  reference: {
    calls: [
      { name: "statistics", arguments: { values: [7, 3, 47] } },
      { name: "percentage", arguments: { operation: "percent_of", a: 20, b: 47 } },
    ],
    answer: "9.4",
  },
});

async function score(t: Trajectory, s: Scenario = withReference) {
  return referenceCallsReward().score(t, { scenario: s, group: group([t]), index: 0 });
}

describe("reference_calls", () => {
  it("is 1 when every reference call is reproduced, whitespace in strings aside", async () => {
    const t = trajectory({ steps: [{ name: "statistics", args: { values: [7, 3, 47] } }, { name: "percentage", args: { operation: " percent_of", a: 20, b: 47.0 } }], answer: "9.4" });
    expect(((await score(t)) as TrajectoryScore).score).toBe(1);
  });

  it("gives each reference call the share of its argument leaves that the best same-named call got right", async () => {
    const t = trajectory({
      steps: [
        { name: "statistics", args: { values: [7, 3, 46] } }, // 2 of 3
        { name: "statistics", args: { values: [7, 4, 46] } }, // 1 of 3: the better call counts
        { name: "calculate", args: { expression: "20% of 47" } }, // wrong tool: 0 for percentage
      ],
      answer: "9.4",
    });
    const r = (await score(t)) as TrajectoryScore;
    expect(r.score).toBeCloseTo((2 / 3 + 0) / 2, 12);
    expect(r.detail).toBe("statistics 67%, percentage 0%");
  });

  it("counts list items by position and a missing or extra item against the match", () => {
    expect(argumentMatch({ values: [1, 2, 3] }, { values: [1, 2, 3] })).toBe(1);
    expect(argumentMatch({ values: [1, 2, 3] }, { values: [1, 2, 3, 4] })).toBe(0.75);
    expect(argumentMatch({ values: [1, 2, 3] }, { values: [2, 3] })).toBe(0);
    expect(argumentMatch({ a: 1, b: "x" }, { a: 1 })).toBe(0.5);
    expect(argumentMatch({ a: 1, b: 2 }, { a: 1, b: 2, c: 12 })).toBeCloseTo(2 / 3, 12);
    expect(argumentMatch({ a: 1 }, { a: "1" })).toBe(0);
    expect(argumentMatch({}, {})).toBe(1);
    expect(argumentMatch({}, { anything: 1 })).toBe(0);
  });

  it("has no score for a scenario without reference calls, and is a metric (weight 0) by default", async () => {
    const t = trajectory({ steps: [{ name: "statistics", args: { values: [1] } }], answer: "1" });
    expect(isMissing(await score(t, scenario()))).toBe(true);
    expect(referenceCallsReward().weight).toBe(0);
    expect(referenceCallsReward({ weight: 2 }).weight).toBe(2);
  });
});
