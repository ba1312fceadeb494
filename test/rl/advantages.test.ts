/** Advantages (each scaling, std kinds, zero-variance groups) and DAPO dynamic sampling. */
import { describe, expect, it } from "vitest";
import { computeAdvantages, isZeroVariance, std } from "../../src/rl/advantages.js";
import { dropZeroVarianceGroups, groupsToRefill, sampleUntilFull } from "../../src/rl/dynamic-sampling.js";

describe("computeAdvantages", () => {
  const groups = [
    [1, 0, 0, 1],
    [0.5, 0.5, 0.5],
    [2, 4],
  ];

  it("group scaling: (r − μ_g) / (sample std_g + 1e-4), TRL's default", () => {
    const r = computeAdvantages(groups);
    const s = Math.sqrt(1 / 3); // sample std of [1,0,0,1]
    expect(r.byGroup[0][0]).toBeCloseTo(0.5 / (s + 1e-4), 12);
    expect(r.byGroup[0][1]).toBeCloseTo(-0.5 / (s + 1e-4), 12);
    expect(r.byGroup[2]).toEqual([-1 / (Math.SQRT2 + 1e-4), 1 / (Math.SQRT2 + 1e-4)]);
    expect(r.flat).toHaveLength(9);
    expect(r.groupMean).toEqual([0.5, 0.5, 3]);
  });

  it("population std with ART's eps", () => {
    const r = computeAdvantages(groups, { stdKind: "population", eps: 1e-6 });
    expect(r.byGroup[0][0]).toBeCloseTo(0.5 / (0.5 + 1e-6), 12);
    expect(r.byGroup[2][1]).toBeCloseTo(1 / (1 + 1e-6), 12);
  });

  it("batch scaling divides by the std of all rewards but still centres on the group mean", () => {
    const r = computeAdvantages(groups, { scaleRewards: "batch" });
    const sb = std(groups.flat(), "sample");
    expect(r.byGroup[2][0]).toBeCloseTo(-1 / (sb + 1e-4), 12);
    expect(r.byGroup[0][0]).toBeCloseTo(0.5 / (sb + 1e-4), 12);
  });

  it("none (Dr.GRPO) only centres", () => {
    expect(computeAdvantages(groups, { scaleRewards: "none" }).byGroup).toEqual([[0.5, -0.5, -0.5, 0.5], [0, 0, 0], [-1, 1]]);
  });

  it("flags zero-variance groups and gives them exactly 0, in every scaling", () => {
    for (const scaleRewards of ["group", "batch", "none"] as const) {
      const r = computeAdvantages([[0.1, 0.1, 0.1], [1, 0], [7]], { scaleRewards });
      expect(r.zeroVariance).toEqual([true, false, true]);
      expect(r.zeroVarianceCount).toBe(2);
      expect(r.byGroup[0]).toEqual([0, 0, 0]);
      expect(r.byGroup[2]).toEqual([0]);
    }
    expect(isZeroVariance([0.3, 0.3 + 1e-12])).toBe(true);
    expect(isZeroVariance([0.3, 0.31])).toBe(false);
  });

  it("rejects non-finite rewards, naming where", () => {
    expect(() => computeAdvantages([[1, 2], [0, NaN]])).toThrow(/group 1, trajectory 1/);
  });
});

describe("dynamic sampling", () => {
  it("drops and counts the groups whose rewards are all equal", () => {
    const groups = [
      { id: "a", r: [1, 1, 1] },
      { id: "b", r: [0, 1, 0] },
      { id: "c", r: [0, 0, 0] },
      { id: "d", r: [0.2, 0.9] },
    ];
    const f = dropZeroVarianceGroups(groups, (g) => g.r);
    expect(f.kept.map((g) => g.id)).toEqual(["b", "d"]);
    expect(f.dropped.map((g) => g.id)).toEqual(["a", "c"]);
    expect(f.droppedCount).toBe(2);
  });

  it("asks for the shortfall scaled by the keep rate, bounded, and stops when full or out of rounds", () => {
    expect(groupsToRefill({ targetGroups: 8, keptGroups: 8, sampledGroups: 10, round: 0 })).toBe(0);
    expect(groupsToRefill({ targetGroups: 8, keptGroups: 4, sampledGroups: 8, round: 3 })).toBe(0);
    // half the groups were flat: ask for about twice the shortfall
    expect(groupsToRefill({ targetGroups: 8, keptGroups: 4, sampledGroups: 8, round: 0 })).toBe(Math.ceil(4 / (5 / 9)));
    // every group flat so far: bounded by maxPerRound
    expect(groupsToRefill({ targetGroups: 8, keptGroups: 0, sampledGroups: 64, round: 1, maxPerRound: 16 })).toBe(16);
    // never less than the shortfall
    expect(groupsToRefill({ targetGroups: 8, keptGroups: 6, sampledGroups: 6, round: 0 })).toBe(2);
  });

  it("refills until enough groups carry signal, counting only the groups still flat", async () => {
    // a stream of groups: every third one has signal
    let next = 0;
    const asked: number[] = [];
    const sampleMore = async (n: number) => {
      asked.push(n);
      return Array.from({ length: n }, () => (++next % 3 === 0 ? [0, 1] : [1, 1]));
    };
    const first = [[0, 1], [1, 1], [0, 0], [1, 0]]; // 2 of 4 with signal, target 4
    const r = await sampleUntilFull(first, (g) => g, sampleMore, { targetGroups: 4, maxRounds: 3 });
    expect(asked[0]).toBe(Math.ceil(2 / (3 / 5))); // the shortfall over the keep rate so far
    expect(dropZeroVarianceGroups(r.groups, (g) => g).kept.length).toBeGreaterThanOrEqual(4);
    expect(r.refilled).toBe(r.groups.length - first.length);
    expect(r.refilled).toBe(asked.reduce((s, n) => s + n, 0));
    // the batch trains on exactly 4 groups with signal (the surplus is logged, not trained on), and the flat ones
    const withSignal = (gs: number[][]) => dropZeroVarianceGroups(gs, (g) => g).kept;
    expect(withSignal(r.train)).toEqual(withSignal(r.groups).slice(0, 4));
    expect(r.train.length).toBe(4 + dropZeroVarianceGroups(r.groups, (g) => g).dropped.length);
    // an overshoot (every refilled group carries signal): trains on the first 4 of them only
    const over = await sampleUntilFull([[0, 1], [1, 1], [1, 1], [1, 1]], (g) => g, async (n) => Array.from({ length: n }, (_, i) => [0, i + 1]), { targetGroups: 4, maxRounds: 3 });
    expect(withSignal(over.groups).length).toBe(1 + Math.ceil(3 / (2 / 5)));
    expect(withSignal(over.train)).toEqual(withSignal(over.groups).slice(0, 4));
    expect(over.train).toHaveLength(4 + 3);
    // a batch that is already full samples nothing more, however many of its groups are flat
    const full = [[0, 1], [1, 0], [1, 1], [0, 0], [0, 0]];
    const none = await sampleUntilFull(full, (g) => g, sampleMore, { targetGroups: 2, maxRounds: 3 });
    expect(none.refilled).toBe(0);
    // nothing with signal comes back: stops after maxRounds rounds
    asked.length = 0;
    await sampleUntilFull([[1, 1]], (g) => g, async (n) => (asked.push(n), Array.from({ length: n }, () => [0, 0])), { targetGroups: 2, maxRounds: 2 });
    expect(asked).toHaveLength(2);
  });
});
