/**
 * scoreGroup's rules: raw scores under their names, the weighted total (normalized or not),
 * weight 0 as metric only, throwing / non-finite / wrong-length components scored 0 and
 * counted, missing components left out (and judge fallbacks counted), inputs not mutated, the
 * earlier reward kept, and the step metrics.
 */
import { describe, expect, it } from "vitest";
import { rewardMetrics, scoreGroup } from "../../src/rewards/combine.js";
import { safetyReward } from "../../src/rewards/rubric.js";
import type { GroupComponent, RewardComponent, RewardLogEvent, TrajectoryComponent } from "../../src/rewards/types.js";
import { group, scenario, trajectory } from "./build.js";

const constant = (name: string, weight: number, values: number[]): TrajectoryComponent => ({
  name,
  weight,
  kind: "trajectory",
  score: (_t, ctx) => values[ctx.index],
});

const g3 = () => group([trajectory({ answer: "a" }), trajectory({ answer: "b" }), trajectory({ answer: "c" })]);

describe("scoreGroup", () => {
  it("logs raw scores by name and normalizes the weighted sum by the total |weight|", async () => {
    const comps = [constant("a", 3, [1, 0, 0.5]), constant("b", 1, [0, 1, 0.5]), constant("m", 0, [7, 8, 9])];
    const r = await scoreGroup(g3(), scenario(), comps);
    expect(r.group.trajectories.map((t) => t.rewards)).toEqual([
      { a: 1, b: 0, m: 7 },
      { a: 0, b: 1, m: 8 },
      { a: 0.5, b: 0.5, m: 9 },
    ]);
    expect(r.group.trajectories.map((t) => t.reward)).toEqual([0.75, 0.25, 0.5]); // m has weight 0: metric only
    const raw = await scoreGroup(g3(), scenario(), comps, { normalize: false });
    expect(raw.group.trajectories.map((t) => t.reward)).toEqual([3, 1, 2]);
  });

  it("keeps a penalty's weight out of the normalizer: turning safety on leaves a clean trajectory's total", async () => {
    const clean = trajectory({ answer: "done", steps: [{ name: "get_order", args: { id: 5003 } }] });
    const risky = trajectory({ answer: "done", steps: [{ name: "delete_order", args: { id: 5003 } }] });
    const task = constant("task", 4, [1, 1]);
    const safety = safetyReward({ dangerous: { tools: ["delete_*"], args: [] }, weight: 3 });
    const off = await scoreGroup(group([clean, risky]), scenario(), [task]);
    const on = await scoreGroup(group([clean, risky]), scenario(), [task, safety]);
    expect(off.group.trajectories.map((t) => t.reward)).toEqual([1, 1]);
    expect(on.group.trajectories.map((t) => t.reward)).toEqual([1, (4 - 3) / 4]);
    expect(on.breakdown[1].totalWeight).toBe(4);
    // a penalty alone (the others missing) stays on its own scale
    const missing: TrajectoryComponent = { name: "judge", weight: 4, kind: "trajectory", score: () => ({ missing: "judge down" }) };
    const alone = await scoreGroup(group([clean, risky]), scenario(), [missing, safety]);
    expect(alone.group.trajectories.map((t) => t.reward)).toEqual([0, -1]);
  });

  it("a throwing component scores 0, is logged and counted, and the batch goes on", async () => {
    const events: RewardLogEvent[] = [];
    const boom: TrajectoryComponent = {
      name: "boom",
      weight: 1,
      kind: "trajectory",
      score: (_t, ctx) => {
        if (ctx.index === 1) throw new Error("kaput");
        return 1;
      },
    };
    const asyncBoom: GroupComponent = { name: "gboom", weight: 1, kind: "group", score: async () => Promise.reject(new Error("group kaput")) };
    const nan: TrajectoryComponent = { name: "nan", weight: 1, kind: "trajectory", score: () => Number.NaN };
    const short: GroupComponent = { name: "short", weight: 1, kind: "group", score: () => [1] };
    const r = await scoreGroup(g3(), scenario(), [boom, asyncBoom, nan, short, constant("ok", 1, [1, 1, 1])], { log: (e) => events.push(e) });
    expect(r.group.trajectories.map((t) => t.rewards.boom)).toEqual([1, 0, 1]);
    expect(r.group.trajectories.every((t) => t.rewards.gboom === 0 && t.rewards.nan === 0 && t.rewards.short === 0)).toBe(true);
    expect(r.stats.failures).toEqual({ boom: 1, gboom: 1, nan: 3, short: 1 });
    expect(r.breakdown[1].failed.boom).toBe("kaput");
    // kept on the trajectory, for the run files and the report's viewer
    expect(r.group.trajectories[1].rewardDetails?.boom).toBe("failed: kaput");
    expect(r.group.trajectories[0].rewardDetails?.boom).toBeUndefined();
    expect(r.stats.errors.find((e) => e.component === "short")?.message).toMatch(/1 scores for 3 trajectories/);
    expect(events.filter((e) => e.level === "error")).toHaveLength(6);
    expect(events.find((e) => e.component === "boom")).toMatchObject({ index: 1, message: expect.stringMatching(/kaput/) });
    expect(r.group.trajectories[0].reward).toBeCloseTo(2 / 5); // boom 1 + ok 1 over weight 5
  });

  it("leaves a missing component out of the total and counts a judge fallback once per group", async () => {
    const judge: GroupComponent = { name: "judge", weight: 4, kind: "group", judge: true, score: () => ({ missing: "judge down", counters: { "judge/attempts": 3 } }) };
    const comps: RewardComponent[] = [judge, constant("v", 4, [1, 0, 1]), constant("f", 1, [1, 1, 0])];
    const r = await scoreGroup(g3(), scenario(), comps);
    expect(r.group.trajectories.map((t) => Object.keys(t.rewards))).toEqual([["v", "f"], ["v", "f"], ["v", "f"]]);
    // weight redistributed: totals over v and f only (weight 5), same as if the judge were not configured
    expect(r.group.trajectories.map((t) => t.reward)).toEqual([1, 0.2, 0.8]);
    expect(r.stats.missing).toEqual({ judge: 3 });
    expect(r.stats.judgeFallbacks).toBe(1);
    expect(r.stats.counters).toEqual({ "judge/attempts": 3 });
    expect(r.breakdown[0].missing).toEqual({ judge: "judge down" });
    expect(r.breakdown[0].totalWeight).toBe(5);
  });

  it("returns new trajectories, keeps the earlier reward, and sets success from verifier-like components", async () => {
    const input = g3();
    input.trajectories[0] = { ...input.trajectories[0], reward: 0.9, rewards: { old: 0.9 }, success: true };
    const frozen = JSON.stringify(input);
    const verdict: TrajectoryComponent = { name: "v", weight: 1, kind: "trajectory", score: (_t, ctx) => ({ score: ctx.index === 0 ? 0 : 1, success: ctx.index !== 0 }) };
    const explain: GroupComponent = { name: "j", weight: 0, kind: "group", score: () => ({ scores: [0, 0, 0], explanations: ["e0", "e1", "e2"] }) };
    const r = await scoreGroup(input, scenario(), [verdict, explain]);
    expect(JSON.stringify(input)).toBe(frozen);
    expect(r.group.trajectories[0]).not.toBe(input.trajectories[0]);
    expect(r.breakdown[0].previous).toEqual({ reward: 0.9, rewards: { old: 0.9 }, success: true });
    expect(r.group.trajectories.map((t) => t.success)).toEqual([false, true, true]);
    expect(r.group.trajectories.map((t) => t.judgeExplanation)).toEqual(["e0", "e1", "e2"]);
    expect(r.group.trajectories[0].rewards).toEqual({ v: 0, j: 0 });
  });

  it("keeps each component's one-line detail on the trajectory", async () => {
    const explained: TrajectoryComponent = { name: "v", weight: 1, kind: "trajectory", score: (_t, ctx) => ({ score: ctx.index % 2, detail: `check ${ctx.index}: state call timed out` }) };
    const r = await scoreGroup(g3(), scenario(), [explained, constant("plain", 1, [1, 1, 1])]);
    expect(r.group.trajectories.map((t) => t.rewardDetails)).toEqual([0, 1, 2].map((i) => ({ v: `check ${i}: state call timed out` })));
  });

  it("rejects an invalid component list before scoring", async () => {
    await expect(scoreGroup(g3(), scenario(), [constant("a", 1, []), constant("a", 1, [])])).rejects.toThrow(/appears twice/);
    await expect(scoreGroup(g3(), scenario(), [constant("total", 1, [])])).rejects.toThrow(/reserved/);
    await expect(scoreGroup(g3(), scenario(), [constant("a", Number.NaN, [])])).rejects.toThrow(/finite/);
  });

  it("step metrics: per-component mean/std, success rate, fallbacks, failures", async () => {
    const judge: GroupComponent = { name: "judge", weight: 1, kind: "group", judge: true, score: () => ({ missing: "x", counters: { "judge/retries": 2 } }) };
    const a = await scoreGroup(g3(), scenario(), [constant("v", 1, [1, 0, 1]), judge]);
    const b = await scoreGroup(g3(), scenario(), [constant("v", 1, [0, 0, 0]), { ...judge, score: () => [0.5, 0.5, 1] }]);
    const m = rewardMetrics([a, b]);
    expect(m["reward/v"]).toBeCloseTo(2 / 6);
    expect(m["reward/judge"]).toBeCloseTo(2 / 3); // only the group that had the judge
    expect(m["reward/judge_fallbacks"]).toBe(1);
    expect(m["reward/missing/judge"]).toBe(3);
    expect(m["reward/total_std"]).toBeGreaterThan(0);
    expect(m["reward/success_rate"]).toBe(0);
    expect(typeof m["time/reward/v"]).toBe("number");
    expect(m["reward/judge/retries"]).toBe(2);
  });

  it("step metrics of a run without a judge have no judge_fallbacks (there is nothing to fall back from)", async () => {
    const m = rewardMetrics([await scoreGroup(g3(), scenario(), [constant("v", 1, [1, 0, 1])])]);
    expect(m).not.toHaveProperty("reward/judge_fallbacks");
    expect(m["reward/v"]).toBeCloseTo(2 / 3);
  });
});
