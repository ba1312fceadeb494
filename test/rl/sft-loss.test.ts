/** SFT warm-start loss: value and gradient (tf.grad) against hand-computed masked NLL. */
import * as tf from "@tensorflow/tfjs-core";
import "@tensorflow/tfjs-backend-cpu";
import { beforeAll, describe, expect, it } from "vitest";
import { sftLoss } from "../../src/rl/sft-loss.js";

beforeAll(async () => {
  await tf.setBackend("cpu");
});

const logp = [
  [-0.5, -1.0, -2.0, -0.1],
  [-0.2, -0.3, -9.0, -9.0],
];
const mask = [
  [1, 1, 1, 0],
  [0, 1, 1, 0],
];

function run(cfg: Parameters<typeof sftLoss>[1], weights?: number[]) {
  const lp = tf.tensor2d(logp);
  const m = tf.tensor2d(mask);
  const out = sftLoss({ logp: lp, mask: m, weights }, cfg);
  const grad = tf.grad((x: tf.Tensor) => sftLoss({ logp: x as tf.Tensor2D, mask: m, weights }, cfg).loss)(lp);
  const r = { loss: out.loss.dataSync()[0], grad: grad.arraySync() as number[][], metrics: out.metrics };
  tf.dispose([lp, m, out.loss, grad]);
  return r;
}

describe("sftLoss", () => {
  it("token mean: −Σ m·logp / Σ m, gradient −m / Σ m", () => {
    const r = run({});
    expect(r.loss).toBeCloseTo((0.5 + 1 + 2 + 0.3 + 9) / 5, 5);
    expect(r.grad[0][0]).toBeCloseTo(-1 / 5, 6);
    expect(Math.abs(r.grad[0][3])).toBe(0);
    expect(Math.abs(r.grad[1][0])).toBe(0);
    expect(r.metrics.tokens).toBe(5);
    expect(r.metrics.nll).toBeCloseTo(r.loss, 5);
  });

  it("sequence mean: each sequence weighs the same", () => {
    const r = run({ reduction: "sequence" });
    expect(r.loss).toBeCloseTo(((0.5 + 1 + 2) / 3 + (0.3 + 9) / 2) / 2, 5);
    expect(r.grad[0][1]).toBeCloseTo(-1 / 6, 6);
    expect(r.grad[1][2]).toBeCloseTo(-1 / 4, 6);
  });

  it("micro-batches, step token count and per-sequence weights", () => {
    expect(run({ numMicroBatches: 2 }).loss).toBeCloseTo((0.5 + 1 + 2 + 0.3 + 9) / 10, 5);
    expect(run({ totalStepTokens: 20 }).loss).toBeCloseTo((0.5 + 1 + 2 + 0.3 + 9) / 20, 5);
    const w = run({}, [1, 0]);
    expect(w.loss).toBeCloseTo((0.5 + 1 + 2) / 5, 5);
    expect(w.grad[1][1]).toBeCloseTo(0, 7);
  });

  it("rejects a mask of the wrong shape", () => {
    expect(() => sftLoss({ logp: tf.zeros([2, 4]) as tf.Tensor2D, mask: tf.zeros([2, 3]) as tf.Tensor2D })).toThrow(/mask has shape \[2,3\]/);
  });
});

describe("pickBest (rejection sampling for the warm start)", () => {
  it("keeps the best trajectories per group above the bar, earlier first on ties", async () => {
    const { pickBest } = await import("../../src/rl/rejection-sampling.js");
    const groups = [
      [{ id: "a", r: 0.5 }, { id: "b", r: 1 }, { id: "c", r: 1 }],
      [{ id: "d", r: 0.2 }, { id: "e", r: NaN }],
    ];
    expect(pickBest(groups, (t) => t.r).map((t) => t.id)).toEqual(["b"]);
    expect(pickBest(groups, (t) => t.r, { perGroup: 2, minReward: 0.2 }).map((t) => t.id)).toEqual(["b", "c", "d"]);
  });
});
