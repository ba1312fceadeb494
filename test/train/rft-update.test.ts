/**
 * rft_coef through the real GRPO step on a tiny model: a group whose rollouts all succeed has no
 * GRPO signal (dynamic sampling drops it, nothing is trained), but with rft_coef its best rollout
 * is imitated — the update runs and raises that rollout's log-probability.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../src/policy/backend.js";
import { Transformer } from "../../src/policy/model/transformer.js";
import { Trainable } from "../../src/policy/trainable.js";
import { GrpoConfigSchema } from "../../src/rl/config.js";
import { MetricKey } from "../../src/rl/metrics.js";
import type { Trajectory } from "../../src/rollout/trajectory.js";
import { grpoUpdate } from "../../src/train/grpo-update.js";
import { syntheticRollout, tinyModelDir } from "./helpers.js";

beforeAll(async () => {
  await initBackend({ device: "wasm" });
});

const rollout = (id: string, groupId: string, seed: number, reward: number, success: boolean): Trajectory =>
  syntheticRollout({ id, groupId, seed, reward, success });

const meanLogp = (tr: Trainable, t: Trajectory) => {
  const lp = tr.logprobs([t.tokenIds])[0];
  const picked = lp.filter((_, i) => t.assistantMask[i + 1] === 1);
  return picked.reduce((s, x) => s + x, 0) / picked.length;
};

describe("grpoUpdate with rft_coef", () => {
  it("trains on an all-success group only when its best rollout is imitated", async () => {
    // two successes with equal reward: zero variance; the first (ties go earlier) is the best
    const group = [rollout("a", "g", 1, 1, true), rollout("b", "g", 2, 1, true)];
    const run = async (rft_coef: number) => {
      const tr = new Trainable(await Transformer.load(tinyModelDir(4)), { lr: 1e-2 });
      const before = meanLogp(tr, group[0]);
      const cfg = GrpoConfigSchema.parse({ dynamic_sampling: true, rft_coef, importance_sampling_correction: false });
      const m = grpoUpdate(tr, { groups: [group], cfg, microBatchSize: 4, microBatchTokens: 2048, samplerIsOtherEngine: false });
      return { m, gain: meanLogp(tr, group[0]) - before };
    };
    const off = await run(0);
    expect(off.m["update/skipped"]).toBe(1);
    expect(off.gain).toBe(0);
    const on = await run(1);
    expect(on.m["update/skipped"]).toBeUndefined();
    expect(on.m[MetricKey.rftImitated]).toBe(1);
    expect(on.m[MetricKey.groupsKept]).toBe(1);
    expect(on.gain).toBeGreaterThan(0.01);
  });
});
