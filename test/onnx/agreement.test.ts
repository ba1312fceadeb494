/**
 * The ONNX graph against three references: a plain float64 JS forward (reference-forward.ts), the
 * PyTorch goldens committed under test/golden/ (make_goldens.py), and the tfjs model
 * (src/policy/model/transformer.ts), with and without LoRA merged. Logits and per-token log-probs
 * must agree within 1e-4; the ORT sampler picks the same tokens as the tfjs sampler.
 */
import { beforeAll, describe, expect, it } from "vitest";
import * as path from "node:path";
import * as tf from "@tensorflow/tfjs-core";
import "@tensorflow/tfjs-backend-cpu";
import { OrtPolicy } from "../../src/policy/onnx/ort-policy.js";
import { OrtSampler } from "../../src/policy/onnx/ort-sampler.js";
import { TfjsSampler } from "../../src/policy/tfjs-sampler.js";
import { loadCheckpoint } from "../../src/policy/weights.js";
import { readSafetensors } from "../../src/policy/safetensors.js";
import { Transformer } from "../../src/policy/model/transformer.js";
import { referenceLogits } from "./reference-forward.js";
import { CASES, logSoftmaxRows, maxAbsDiff, randomIds, randomWeights, relErr } from "./helpers.js";
import { GOLDEN_CASES, GOLDEN_DIR, loadGolden } from "../policy-model/helpers.js";

const session = { intraOpThreads: 1 };

describe("ONNX policy graph vs a float64 JS forward", () => {
  for (const [name, c] of Object.entries(CASES)) {
    it(`${name}: logits and log-probs within 1e-4`, async () => {
      const w = randomWeights(c, 7);
      const ids = [randomIds(11, c.vocabSize, 1), randomIds(6, c.vocabSize, 2)];
      const p = await OrtPolicy.create(c, w, { session });
      const { logits, T } = await p.forward(ids);
      const V = c.vocabSize;
      const lp = logSoftmaxRows(logits, V);
      for (let b = 0; b < ids.length; b++) {
        const ref = referenceLogits(c, w, ids[b]);
        const refFlat = Float64Array.from(ref.flatMap((r) => [...r]));
        const got = logits.subarray(b * T * V, (b * T + ids[b].length) * V);
        expect(relErr(got, refFlat)).toBeLessThan(1e-4);
        const refLp = logSoftmaxRows(refFlat, V);
        expect(maxAbsDiff(lp.subarray(b * T * V, (b * T + ids[b].length) * V), refLp)).toBeLessThan(1e-4);
      }
      await p.release();
    });
  }
});

describe("ONNX policy graph vs the PyTorch goldens", () => {
  for (const name of GOLDEN_CASES) {
    it(`${name}: logits and per-token log-probs`, async () => {
      const { tensors, inputs } = loadGolden(name);
      const { config, weights } = await loadCheckpoint(path.join(GOLDEN_DIR, name));
      const p = await OrtPolicy.create(config, weights, { session });
      const { logits, T } = await p.forward(inputs.ids); // right-padded with 0, as the goldens are
      const gl = tensors.get("logits")!;
      expect(gl.shape).toEqual([inputs.ids.length, T, config.vocabSize]);
      expect(relErr(logits, gl.data)).toBeLessThan(1e-4);
      const V = config.vocabSize, lp = logSoftmaxRows(logits, V), glp = tensors.get("logp")!.data;
      for (let b = 0; b < inputs.ids.length; b++)
        for (let t = 0; t < inputs.ids[b].length - 1; t++)
          expect(Math.abs(lp[(b * T + t) * V + inputs.ids[b][t + 1]] - glp[b * (T - 1) + t])).toBeLessThan(1e-4);
      await p.release();
    });
  }
  it("the golden folder is where the policy-model tests keep it", () => {
    expect(readSafetensors(path.join(GOLDEN_DIR, GOLDEN_CASES[0], "goldens.safetensors")).tensors.has("logits")).toBe(true);
  });
});

describe("ONNX policy graph vs the tfjs model", () => {
  beforeAll(async () => {
    await tf.setBackend("cpu");
  });
  for (const [name, c] of Object.entries(CASES)) {
    for (const lora of [false, true]) {
      it(`${name}${lora ? " with LoRA merged" : ""}: logits and log-probs within 1e-4`, async () => {
        const model = new Transformer(c, randomWeights(c, 11));
        if (lora) {
          model.enableLora({ r: 4, alpha: 8, dropout: 0, targetModules: ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"], seed: 3 });
          // B starts at 0 (PEFT init): give it values so the adapters change the outputs
          let k = 0;
          for (const pair of model.adapters()!.values()) pair.b.assign(tf.mul(tf.randomNormal(pair.b.shape, 0, 0.3, "float32", 17 + k++), 1) as tf.Tensor2D);
        }
        const ids = [randomIds(9, c.vocabSize, 5), randomIds(9, c.vocabSize, 6)];
        const tl = model.logits(ids);
        const want = tl.dataSync() as Float32Array;
        tl.dispose();
        const merged = model.exportWeights(true);
        if (lora) {
          // the merged weights really differ from the base ones
          const base = model.exportWeights(false);
          expect(maxAbsDiff(merged.get("model.layers.0.self_attn.q_proj.weight")!.data, base.get("model.layers.0.self_attn.q_proj.weight")!.data)).toBeGreaterThan(1e-3);
        }
        const p = await OrtPolicy.create(c, merged, { session });
        const { logits } = await p.forward(ids);
        expect(relErr(logits, want)).toBeLessThan(1e-4);
        expect(maxAbsDiff(logSoftmaxRows(logits, c.vocabSize), logSoftmaxRows(want, c.vocabSize))).toBeLessThan(1e-4);
        await p.release();
        model.dispose();
      });
    }
  }
});

describe("OrtSampler vs the tfjs sampler", () => {
  beforeAll(async () => {
    await tf.setBackend("cpu");
  });
  const decode = (ids: number[]) => ids.map((i) => String.fromCharCode(97 + (i % 26))).join("");
  for (const [name, c] of Object.entries(CASES)) {
    it(`${name}: same tokens at temperature 0 and with a fixed seed; log-probs within 1e-4`, async () => {
      const w = randomWeights(c, 13);
      const model = new Transformer(c, w);
      const tfs = new TfjsSampler(model, { decode, eosTokenIds: [] });
      const ors = await OrtSampler.create({ config: c, weights: w, eosTokenIds: [], decode, session });
      const prompts = [randomIds(7, c.vocabSize, 21), randomIds(3, c.vocabSize, 22), randomIds(5, c.vocabSize, 23)];
      for (const opts of [{ temperature: 0 }, { temperature: 1, topP: 0.9, seed: 77 }]) {
        const a = await tfs.generate(prompts, { maxTokens: 12, ...opts });
        const b = await ors.generate(prompts, { maxTokens: 12, ...opts });
        expect(b.map((r) => r.ids)).toEqual(a.map((r) => r.ids));
        expect(b.map((r) => [r.text, r.finish])).toEqual(a.map((r) => [r.text, r.finish]));
        for (let i = 0; i < a.length; i++) expect(maxAbsDiff(b[i].logprobs, a[i].logprobs)).toBeLessThan(1e-4);
      }
      await ors.close();
      model.dispose();
    });
  }
});
