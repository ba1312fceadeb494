/**
 * The training API: AdamW against its formula (fed the PyTorch golden gradient), global-norm
 * clipping, gradient accumulation = one big batch, constant tensor count across steps, and
 * optimizer state round trip.
 */
import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../src/policy/backend.js";
import { Transformer } from "../../src/policy/model/transformer.js";
import { Trainable, type MicroBatch } from "../../src/policy/trainable.js";
import { loadGolden, relErr } from "./helpers.js";

beforeAll(async () => {
  await initBackend({ device: "wasm" });
});

interface Masked extends MicroBatch {
  mask: number[][];
}
/** -(masked mean log-prob): the golden loss, negated so that minimizing raises log-probs. */
const maskedMean = (logp: tf.Tensor2D, mb: Masked) => {
  const m = tf.tensor2d(mb.mask.map((r) => r.slice(0, logp.shape[1])));
  return tf.neg(tf.div(tf.sum(tf.mul(logp, m)), tf.sum(m))) as tf.Scalar;
};

describe("Trainable", () => {
  it("one AdamW step equals the formula applied to the PyTorch gradient; gradNorm is the golden norm", async () => {
    const { dir, tensors, inputs } = loadGolden("qwen2-untied");
    const model = await Transformer.load(dir);
    const before = model.exportWeights();
    const lr = 1e-2, wd = 0.1, eps = 1e-8;
    const tr = new Trainable(model, { lr, weightDecay: wd, eps, maxGradNorm: 0 });
    const r = tr.step([{ ids: inputs.ids, mask: inputs.mask }], maskedMean);
    expect(r.loss).toBeCloseTo(-tensors.get("loss")!.data[0], 5);
    let sq = 0;
    for (const [k, t] of tensors) if (k.startsWith("grad.")) for (const g of t.data) sq += g * g;
    expect(Math.abs(r.gradNorm - Math.sqrt(sq)) / Math.sqrt(sq)).toBeLessThan(1e-4);
    const after = model.exportWeights();
    let worst = 0;
    for (const [name, w0] of before) {
      const g = tensors.get("grad." + name)!.data.map((x) => -x); // our loss is the negated golden loss
      const decay = w0.shape.length >= 2 ? 1 - lr * wd : 1;
      // first step: m̂ = g, v̂ = g², so the update is lr·g/(|g|+eps)
      const expected = w0.data.map((p, i) => p * decay - (lr * g[i]) / (Math.abs(g[i]) + eps));
      worst = Math.max(worst, relErr(after.get(name)!.data, expected));
    }
    expect(worst).toBeLessThan(1e-4);
    tr.dispose();
    model.dispose();
  });

  it("clips by global norm: the first moment holds (1-β1)·g·max/norm", async () => {
    const { dir, inputs } = loadGolden("llama-tied");
    const model = await Transformer.load(dir);
    const tr = new Trainable(model, { lr: 1e-3, maxGradNorm: 0.01 });
    const r = tr.step([{ ids: inputs.ids, mask: inputs.mask }], maskedMean);
    expect(r.gradNorm).toBeGreaterThan(0.01);
    let sq = 0;
    for (const t of tr.optimizerState().m.values()) for (const x of t.data) sq += x * x;
    expect(Math.sqrt(sq) / (1 - 0.9)).toBeCloseTo(0.01, 5);
    tr.dispose();
    model.dispose();
  });

  it("accumulating two micro-batches equals one batch of both", async () => {
    const { dir, inputs } = loadGolden("qwen3-qknorm");
    const sumLoss = (scale: number) => (logp: tf.Tensor2D, mb: Masked) => {
      const m = tf.tensor2d(mb.mask.map((r) => [...r.slice(0, logp.shape[1]), ...new Array(Math.max(0, logp.shape[1] - r.length)).fill(0)]));
      return tf.mul(tf.sum(tf.mul(logp, m)), -scale) as tf.Scalar;
    };
    const a = await Transformer.load(dir), b = await Transformer.load(dir);
    const ta = new Trainable(a, { lr: 1e-2, maxGradNorm: 0 }), tb = new Trainable(b, { lr: 1e-2, maxGradNorm: 0 });
    const mb1 = { ids: inputs.ids.slice(0, 1), mask: inputs.mask.slice(0, 1) };
    const mb2 = { ids: inputs.ids.slice(1), mask: inputs.mask.slice(1).map((r) => r.slice(0, Math.max(...inputs.ids.slice(1).map((x) => x.length)) - 1)) };
    const ra = ta.step([mb1, mb2], sumLoss(1));
    const rb = tb.step([{ ids: inputs.ids, mask: inputs.mask }], sumLoss(0.5));
    expect(ra.microBatches).toBe(2);
    expect(Math.abs(ra.gradNorm - rb.gradNorm) / rb.gradNorm).toBeLessThan(1e-4);
    const wa = a.exportWeights(), wb = b.exportWeights();
    for (const [k, t] of wb) expect(relErr(wa.get(k)!.data, t.data), k).toBeLessThan(1e-4);
    [ta, tb, a, b].forEach((x) => x.dispose());
  });

  it.each(["full", "lora"])("keeps the tensor count constant across steps (%s)", async (mode) => {
    const { dir, inputs } = loadGolden("qwen2-untied");
    const model = await Transformer.load(dir);
    const tr = new Trainable(model, {
      lr: 1e-3,
      lora: mode === "lora" ? { r: 4, alpha: 8, dropout: 0.1, targetModules: ["q_proj", "v_proj", "down_proj"], seed: 3 } : undefined,
    });
    const mb = { ids: inputs.ids, mask: inputs.mask };
    tr.step([mb, mb], maskedMean, { entropy: true }); // first step creates the optimizer moments
    tr.logprobs(inputs.ids);
    const n = tf.memory().numTensors;
    const losses: number[] = [];
    for (let i = 0; i < 3; i++) {
      losses.push(tr.step([mb, mb], maskedMean).loss);
      tr.logprobs(inputs.ids);
      if (mode === "lora") tr.referenceLogprobs(inputs.ids);
      expect(tf.memory().numTensors).toBe(n);
    }
    expect(losses[2]).toBeLessThan(losses[0]); // it learns
    tr.dispose();
    model.dispose();
  });

  it("saves and restores optimizer state (resume continues identically)", async () => {
    const { dir, inputs } = loadGolden("llama-tied");
    const mb = { ids: inputs.ids, mask: inputs.mask };
    const a = await Transformer.load(dir);
    const ta = new Trainable(a, { lr: 1e-2 });
    ta.step([mb], maskedMean);
    const state = ta.optimizerState();
    const weights = a.exportWeights();
    ta.step([mb], maskedMean);
    const b = new Transformer(a.config, weights);
    const tb = new Trainable(b, { lr: 1e-2 });
    tb.loadOptimizerState(state);
    expect(tb.optimizer.stepCount).toBe(1);
    tb.step([mb], maskedMean);
    const wa = a.exportWeights(), wb = b.exportWeights();
    for (const [k, t] of wa) expect(relErr(wb.get(k)!.data, t.data), k).toBeLessThan(1e-6);
    [ta, tb, a, b].forEach((x) => x.dispose());
  });
});
