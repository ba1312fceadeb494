/**
 * Two GRPO knobs through the real update on a tiny model:
 * - num_iterations (μ): μ AdamW steps on one batch of rollouts, the ratio taken against the
 *   log-probs from before the first step (TRL's old_per_token_logps). Checked against the same
 *   two steps written out by hand with grpoLoss.
 * - beta: the k3 KL to the reference (LoRA adapters off). With every advantage 0 the policy term
 *   has no gradient, so a β update can only pull the adapted policy back towards the base model.
 */
import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../src/policy/backend.js";
import { Transformer } from "../../src/policy/model/transformer.js";
import { Trainable } from "../../src/policy/trainable.js";
import { computeAdvantages } from "../../src/rl/advantages.js";
import { lossBatch } from "../../src/rl/batch.js";
import { GrpoConfigSchema, lossConfigOf } from "../../src/rl/config.js";
import { grpoLoss } from "../../src/rl/grpo-loss.js";
import { MetricKey } from "../../src/rl/metrics.js";
import type { Trajectory } from "../../src/rollout/trajectory.js";
import { grpoUpdate } from "../../src/train/grpo-update.js";
import { syntheticRollout, tinyModelDir } from "./helpers.js";

beforeAll(async () => {
  await initBackend({ device: "wasm" });
});

const rollout = (id: string, seed: number, reward: number): Trajectory => syntheticRollout({ id, groupId: "g", seed, reward, prompt: 10 });

const weightsOf = (tr: Trainable): Float32Array[] => [...tr.model.trainableVariables().values()].map((v) => v.dataSync() as Float32Array);

function maxAbsDiff(a: Float32Array[], b: Float32Array[]): number {
  let m = 0;
  a.forEach((x, i) => x.forEach((v, j) => (m = Math.max(m, Math.abs(v - b[i][j])))));
  return m;
}

/** mean |logp − ref| over the sampled tokens: how far the adapted policy is from the base */
function distanceToBase(tr: Trainable, group: Trajectory[]): number {
  const ids = group.map((t) => t.tokenIds);
  const lp = tr.logprobs(ids);
  const ref = tr.referenceLogprobs(ids);
  let s = 0, n = 0;
  group.forEach((t, b) => lp[b].forEach((x, i) => t.assistantMask[i + 1] && ((s += Math.abs(x - ref[b][i])), n++)));
  return s / n;
}

describe("grpoUpdate num_iterations", () => {
  const group = [rollout("a", 1, 1), rollout("b", 2, 0), rollout("c", 3, 0.5), rollout("d", 4, 0)];

  it("takes μ optimizer steps, the ratio against the log-probs from before the first", async () => {
    const cfg = GrpoConfigSchema.parse({ num_iterations: 2, loss_type: "grpo", epsilon: 0.05, importance_sampling_correction: false });
    const viaUpdate = new Trainable(await Transformer.load(tinyModelDir(5)), { lr: 2e-2 });
    const m = grpoUpdate(viaUpdate, { groups: [group], cfg, microBatchSize: 8, microBatchTokens: 2048, samplerIsOtherEngine: false });
    expect(viaUpdate.optimizer.stepCount).toBe(2);
    // the second step's ratio is no longer 1, and with ε 0.05 and lr 2e-2 some of it is clipped
    expect(Math.abs(m[MetricKey.ratioMean] - 1)).toBeGreaterThan(1e-4);
    expect(m[MetricKey.clipRegion]).toBeGreaterThan(0);

    // by hand: old = log-probs before any step; two steps of grpoLoss against it
    const byHand = new Trainable(await Transformer.load(tinyModelDir(5)), { lr: 2e-2 });
    const mb = { ...lossBatch(group), adv: computeAdvantages([group.map((t) => t.reward)], { scaleRewards: cfg.scale_rewards, stdKind: cfg.std_kind, eps: cfg.advantage_epsilon }).byGroup[0] };
    const old = byHand.logprobs(mb.ids, mb.mask);
    const lossCfg = { ...lossConfigOf(cfg), numMicroBatches: 1 };
    for (let i = 0; i < 2; i++) {
      byHand.step([mb], (logp, b) =>
        grpoLoss({ logp, oldLogp: tf.tensor2d(old, logp.shape), mask: tf.tensor2d(b.mask, logp.shape), advantages: b.adv }, lossCfg).loss,
      );
    }
    expect(maxAbsDiff(weightsOf(viaUpdate), weightsOf(byHand))).toBeLessThan(1e-6);

    // μ = 1 is one step whose ratio is exactly 1
    const once = new Trainable(await Transformer.load(tinyModelDir(5)), { lr: 2e-2 });
    const m1 = grpoUpdate(once, { groups: [group], cfg: { ...cfg, num_iterations: 1 }, microBatchSize: 8, microBatchTokens: 2048, samplerIsOtherEngine: false });
    expect(once.optimizer.stepCount).toBe(1);
    expect(m1[MetricKey.ratioMean]).toBeCloseTo(1, 6);
    expect(maxAbsDiff(weightsOf(once), weightsOf(viaUpdate))).toBeGreaterThan(1e-5);

    // micro-batches of 2 rollouts: 2 per iteration, 4 in all, each reported as it is done
    const progress: Array<[number, number]> = [];
    grpoUpdate(new Trainable(await Transformer.load(tinyModelDir(5)), { lr: 2e-2 }), { groups: [group], cfg, microBatchSize: 2, microBatchTokens: 2048, samplerIsOtherEngine: false, onProgress: (d, t) => progress.push([d, t]) });
    expect(progress).toEqual([[1, 4], [2, 4], [3, 4], [4, 4]]);
  });
});

describe("grpoUpdate beta (KL to the base model)", () => {
  const lora = { r: 4, alpha: 8, dropout: 0, targetModules: ["q_proj", "v_proj", "up_proj"] as const, seed: 3 };

  it("pulls LoRA-adapted weights back towards the base when the rollouts carry no advantage", async () => {
    const signal = [rollout("a", 1, 1), rollout("b", 2, 0)];
    const flat = [rollout("c", 5, 0.5), rollout("d", 6, 0.5)];
    const run = async (beta: number) => {
      const tr = new Trainable(await Transformer.load(tinyModelDir(6)), { lr: 2e-2, lora: { ...lora, targetModules: [...lora.targetModules] } });
      const base = GrpoConfigSchema.parse({ importance_sampling_correction: false });
      // adapt first (β 0): the policy moves away from the base on these tokens
      for (let i = 0; i < 3; i++) grpoUpdate(tr, { groups: [signal], cfg: base, microBatchSize: 8, microBatchTokens: 2048, samplerIsOtherEngine: false });
      const before = distanceToBase(tr, flat);
      const m = grpoUpdate(tr, { groups: [flat], cfg: { ...base, beta }, microBatchSize: 8, microBatchTokens: 2048, samplerIsOtherEngine: false });
      return { before, after: distanceToBase(tr, flat), m };
    };
    // the same history both ways (AdamW's momentum keeps moving the weights a little either way)
    const off = await run(0);
    const on = await run(1);
    expect(off.before).toBeGreaterThan(1e-3);
    expect(on.before).toBeCloseTo(off.before, 6);
    expect(off.m[MetricKey.kl]).toBeUndefined();
    expect(on.m[MetricKey.kl]).toBeGreaterThan(0);
    expect(on.after).toBeLessThan(off.after * 0.9);
  });
});
