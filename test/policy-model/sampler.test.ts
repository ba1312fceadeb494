/**
 * The tfjs sampler with KV cache against the full (cache-free) forward: sampled log-probs equal
 * the trainer's log-probs of the same tokens, greedy picks the argmax, batching with other
 * prompts (left padding) does not change a row, seeds reproduce, stop strings and EOS end rows,
 * and no tensors leak.
 */
import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../src/policy/backend.js";
import { Transformer } from "../../src/policy/model/transformer.js";
import { TfjsSampler } from "../../src/policy/tfjs-sampler.js";
import { Trainable } from "../../src/policy/trainable.js";
import { loadGolden } from "./helpers.js";

beforeAll(async () => {
  await initBackend({ device: "wasm" });
});

const decode = (ids: number[]) => ids.map((i) => String.fromCharCode(65 + (i % 58))).join("");
const base = { maxTokens: 10, temperature: 1, topP: 1, topK: 0, stop: [] as string[], seed: 5 };
const prompts = [[5, 9, 13, 2], [7], [1, 2, 3, 4, 5, 6, 7]];

async function loraModel() {
  const { dir, inputs } = loadGolden("qwen2-untied");
  const model = await Transformer.load(dir);
  const tr = new Trainable(model, { lr: 5e-2, lora: { r: 2, alpha: 4, dropout: 0, targetModules: ["q_proj", "v_proj", "up_proj"], seed: 1 } });
  tr.step([{ ids: inputs.ids }], (logp) => tf.neg(tf.mean(logp)) as tf.Scalar); // make B nonzero
  return { model, tr };
}

describe("TfjsSampler", () => {
  it("samples log-probs equal to the trainer's log-probs of the same tokens (LoRA on)", async () => {
    const { model, tr } = await loraModel();
    const s = new TfjsSampler(model, { decode, eosTokenIds: [] });
    const out = await s.generate(prompts, base);
    const lp = tr.logprobs(prompts.map((p, b) => [...p, ...out[b].ids]));
    out.forEach((r, b) => {
      expect(r.ids.length).toBe(10);
      expect(r.finish).toBe("length");
      expect(r.text).toBe(decode(r.ids));
      const ref = lp[b].slice(prompts[b].length - 1);
      r.logprobs.forEach((x, i) => expect(Math.abs(x - ref[i]), `row ${b} token ${i}`).toBeLessThan(1e-4));
    });
    model.dispose();
  });

  it("greedy: a row is the same alone or batched, and picks the argmax", async () => {
    const { model } = await loraModel();
    const s = new TfjsSampler(model, { decode, eosTokenIds: [] });
    const g = { ...base, temperature: 0 };
    const batched = await s.generate(prompts, g);
    for (let b = 0; b < prompts.length; b++) {
      const [alone] = await s.generate([prompts[b]], g);
      expect(alone.ids).toEqual(batched[b].ids);
    }
    const seq = [...prompts[0], ...batched[0].ids];
    const logits = model.logits([seq]);
    const am = tf.argMax(logits, 2);
    expect(Array.from(am.dataSync()).slice(prompts[0].length - 1, seq.length - 1)).toEqual(batched[0].ids);
    tf.dispose([logits, am]);
    model.dispose();
  });

  it("is deterministic for a seed, and ends rows on stop strings and EOS", async () => {
    const { model } = await loraModel();
    const s = new TfjsSampler(model, { decode, eosTokenIds: [] });
    const a = await s.generate(prompts, { ...base, topK: 20, topP: 0.9 });
    const b = await s.generate(prompts, { ...base, topK: 20, topP: 0.9 });
    const c = await s.generate(prompts, { ...base, topK: 20, topP: 0.9, seed: 6 });
    expect(b).toEqual(a);
    expect(c.map((r) => r.ids)).not.toEqual(a.map((r) => r.ids));
    // the third token's text as a stop string: row 0 stops there (or earlier, if it occurs earlier)
    const stop = decode([a[0].ids[2]]);
    const st = await s.generate(prompts, { ...base, topK: 20, topP: 0.9, stop: [stop] });
    expect(st[0].finish).toBe("stop");
    expect(st[0].text.endsWith(stop)).toBe(true);
    expect(st[0].ids).toEqual(a[0].ids.slice(0, st[0].ids.length));
    const eos = new TfjsSampler(model, { decode, eosTokenIds: [a[1].ids[1]] });
    const e = await eos.generate(prompts, { ...base, topK: 20, topP: 0.9 });
    expect(e[1].finish).toBe("eos");
    expect(e[1].ids.at(-1)).toBe(a[1].ids[1]);
    model.dispose();
  });

  it("leaks no tensors and caps generation at max_position_embeddings", async () => {
    const { model } = await loraModel();
    const s = new TfjsSampler(model, { decode, eosTokenIds: [], batchSize: 2 });
    await s.generate(prompts, base);
    const n = tf.memory().numTensors;
    await s.generate(prompts, base);
    expect(tf.memory().numTensors).toBe(n);
    const long = await s.generate([Array.from({ length: 60 }, (_, i) => i)], { ...base, maxTokens: 50 });
    expect(long[0].ids.length).toBe(4); // 64 positions in the config
    await expect(s.generate([[]], base)).rejects.toThrow(/prompt 0 is empty/);
    model.dispose();
  });
});
