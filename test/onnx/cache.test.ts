/**
 * Decode with the KV cache equals the full-sequence forward at every position, for a left-padded
 * batch of different lengths (the layout the sampler uses): prefill, then one token per step.
 */
import { describe, expect, it } from "vitest";
import { KvCache, OrtPolicy } from "../../src/policy/onnx/ort-policy.js";
import { attentionBias } from "../../src/policy/onnx/policy-graph.js";
import { CASES, randomIds, randomWeights, relErr } from "./helpers.js";

describe("KV-cache decode", () => {
  for (const [name, c] of Object.entries(CASES)) {
    it(`${name}: every decoded position equals the full forward`, async () => {
      const V = c.vocabSize;
      const w = randomWeights(c, 21);
      const full = await OrtPolicy.create(c, w, { session: { intraOpThreads: 1 } });
      const seqs = [randomIds(14, V, 1), randomIds(10, V, 2), randomIds(12, V, 3)];
      const prompt = [5, 2, 4]; // prefill lengths; the rest is decoded token by token
      const { logits: ref, T: Tref } = await full.forward(seqs);
      const P = Math.max(...prompt), pads = prompt.map((n) => P - n);
      let out = await full.step({
        ids: seqs.map((s, b) => [...new Array<number>(pads[b]).fill(0), ...s.slice(0, prompt[b])]),
        positions: seqs.map((_, b) => Array.from({ length: P }, (_, t) => Math.max(0, t - pads[b]))),
        bias: attentionBias(pads, 0, 0, P),
        past: null,
      });
      // a small buffer, so decoding goes through the doubling path too
      const cache = KvCache.for(c, seqs.length, P + 2);
      cache.append(out.newKeys, out.newValues, P);
      // prefill: the real positions equal the full forward
      for (let b = 0; b < seqs.length; b++)
        for (let t = 0; t < prompt[b]; t++) {
          const got = out.logits.subarray((b * P + pads[b] + t) * V, (b * P + pads[b] + t + 1) * V);
          expect(relErr(got, ref.subarray((b * Tref + t) * V, (b * Tref + t + 1) * V))).toBeLessThan(1e-5);
        }
      const steps = Math.min(...seqs.map((s, b) => s.length - prompt[b]));
      for (let i = 0; i < steps; i++) {
        const bias = attentionBias(pads, cache.filled, cache.capacity, 1);
        out = await full.step({ ids: seqs.map((s, b) => [s[prompt[b] + i]]), positions: prompt.map((n) => [n + i]), bias, past: cache });
        cache.append(out.newKeys, out.newValues, 1);
        expect(cache.filled).toBe(P + i + 1);
        for (let b = 0; b < seqs.length; b++) {
          const t = prompt[b] + i;
          expect(relErr(out.logits.subarray(b * V, (b + 1) * V), ref.subarray((b * Tref + t) * V, (b * Tref + t + 1) * V))).toBeLessThan(1e-5);
        }
      }
      await full.release();
    });
  }

  it("attentionBias: causal, pads masked, pad queries see only themselves", () => {
    const m = attentionBias([2, 0], 0, 0, 3); // [2, 1, 3, 3]
    const row = (b: number, t: number) => Array.from(m.subarray((b * 3 + t) * 3, (b * 3 + t + 1) * 3), (v) => (v === 0 ? 1 : 0));
    expect([row(0, 0), row(0, 1), row(0, 2)]).toEqual([[1, 0, 0], [0, 1, 0], [0, 0, 1]]);
    expect([row(1, 0), row(1, 1), row(1, 2)]).toEqual([[1, 0, 0], [1, 1, 0], [1, 1, 1]]);
    // decode against a buffer of 4 slots, 3 filled, row 0 with 2 pads: [cache 0..3 | new]
    const d = attentionBias([2, 0], 3, 4, 1);
    expect(Array.from(d, (v) => (v === 0 ? 1 : 0))).toEqual([0, 0, 1, 0, 1, 1, 1, 1, 0, 1]);
  });

  it("KvCache: rows leave the batch and the buffer grows without moving filled slots", () => {
    const kv = new KvCache(1, 3, 1, 2, 1); // 1 layer, B 3, 1 head, HD 2, capacity 1
    const step = (v: number) => Float32Array.from({ length: 6 }, (_, i) => v + i); // [3, 1, 1, 2]
    kv.append([step(0)], [step(100)], 1);
    kv.append([step(10)], [step(110)], 1); // grows to 2
    kv.selectRows([0, 2]);
    kv.append([step(20).subarray(0, 4)], [step(120).subarray(0, 4)], 1); // grows to 4
    expect([kv.batch, kv.capacity, kv.filled]).toEqual([2, 4, 3]);
    expect(Array.from(kv.keys[0])).toEqual([0, 1, 10, 11, 20, 21, 0, 0, 4, 5, 14, 15, 22, 23, 0, 0]);
  });
});
