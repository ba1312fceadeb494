/**
 * The ORT sampler: greedy tokens and their log-probs equal the full forward's argmax and
 * log-softmax at every step, seeded determinism, per-row streams (a row's tokens do not depend on
 * its batch), EOS / stop strings / max tokens, and a weight update that gives exactly what a fresh
 * build gives.
 */
import { describe, expect, it } from "vitest";
import { OrtPolicy } from "../../src/policy/onnx/ort-policy.js";
import { OrtSampler } from "../../src/policy/onnx/ort-sampler.js";
import { CASES, logSoftmaxRows, randomIds, randomWeights } from "./helpers.js";

const session = { intraOpThreads: 1 };
const c = CASES["qwen2-bias-untied"];
const V = c.vocabSize;
// a toy decode: token id → one letter (a..z cycling), enough for stop strings
const decode = (ids: number[]) => ids.map((i) => String.fromCharCode(97 + (i % 26))).join("");

describe("OrtSampler", () => {
  it("greedy: tokens are the argmax and log-probs the raw log-softmax of the full forward", async () => {
    const w = randomWeights(c, 3);
    const s = await OrtSampler.create({ config: c, weights: w, eosTokenIds: [], session });
    const full = await OrtPolicy.create(c, w, { session });
    const prompts = [randomIds(7, V, 1), randomIds(3, V, 2), randomIds(5, V, 3)];
    const res = await s.generate(prompts, { maxTokens: 40, temperature: 0, seed: 1 });
    for (let b = 0; b < prompts.length; b++) {
      expect(res[b].ids).toHaveLength(40); // long enough for the cache to grow (policy cache chunks of 32)
      expect(res[b].finish).toBe("length");
      const seq = [...prompts[b], ...res[b].ids];
      const { logits } = await full.forward([seq]);
      const lp = logSoftmaxRows(logits, V);
      for (let i = 0; i < 40; i++) {
        const t = prompts[b].length - 1 + i; // the position that predicts generated token i
        const row = lp.subarray(t * V, (t + 1) * V);
        let best = 0;
        for (let v = 1; v < V; v++) if (row[v] > row[best]) best = v;
        expect(res[b].ids[i]).toBe(best);
        expect(Math.abs(res[b].logprobs[i] - row[best])).toBeLessThan(1e-4);
      }
    }
    await s.close();
    await full.release();
  });

  it("sampling is seeded, per-row streams do not depend on the batch, log-probs are raw", async () => {
    const w = randomWeights(c, 4);
    const s = await OrtSampler.create({ config: c, weights: w, eosTokenIds: [], session });
    const prompts = [randomIds(6, V, 7), randomIds(4, V, 8)];
    const opts = { maxTokens: 16, temperature: 1.3, topP: 0.95, topK: 20, seed: 42 };
    const a = await s.generate(prompts, opts);
    const b = await s.generate(prompts, opts);
    expect(b).toEqual(a);
    const other = await s.generate(prompts, { ...opts, seed: 43 });
    expect(other.map((r) => r.ids)).not.toEqual(a.map((r) => r.ids));
    // row 0 alone draws from the same stream as row 0 of the batch
    const alone = await s.generate([prompts[0]], opts);
    expect(alone[0].ids).toEqual(a[0].ids);
    // log-probs are of the raw distribution: check one against the full forward
    const full = await OrtPolicy.create(c, w, { session });
    const seq = [...prompts[1], ...a[1].ids];
    const lp = logSoftmaxRows((await full.forward([seq])).logits, V);
    for (let i = 0; i < a[1].ids.length; i++) {
      const t = prompts[1].length - 1 + i;
      expect(Math.abs(a[1].logprobs[i] - lp[t * V + a[1].ids[i]])).toBeLessThan(1e-4);
    }
    await full.release();
    await s.close();
  });

  it("EOS ends a row (kept in ids), stop strings end it, max tokens gives length", async () => {
    const w = randomWeights(c, 5);
    const probe = await OrtSampler.create({ config: c, weights: w, eosTokenIds: [], decode, session });
    const prompt = randomIds(5, V, 9);
    const free = (await probe.generate([prompt], { maxTokens: 10, temperature: 0, seed: 0 }))[0];
    expect(free.text).toBe(decode(free.ids));
    // EOS: declare the 4th greedy token the EOS token
    const eos = free.ids[3];
    const firstEos = free.ids.indexOf(eos);
    const withEos = await OrtSampler.create({ config: c, weights: w, eosTokenIds: [eos], decode, session });
    const e = (await withEos.generate([prompt, prompt], { maxTokens: 10, temperature: 0, seed: 0 }))[0];
    expect(e.finish).toBe("eos");
    expect(e.ids).toEqual(free.ids.slice(0, firstEos + 1));
    expect(e.logprobs).toHaveLength(e.ids.length);
    expect(e.text).toBe(decode(e.ids));
    // stop string: the letters of greedy tokens 2..3
    const stop = decode(free.ids.slice(2, 4));
    const st = (await probe.generate([prompt], { maxTokens: 10, temperature: 0, seed: 0, stop: [stop] }))[0];
    expect(st.finish).toBe("stop");
    expect(st.text).toContain(stop);
    expect(free.text.startsWith(st.text)).toBe(true);
    expect(st.ids.length).toBeLessThanOrEqual(4);
    expect(st.text.indexOf(stop) + stop.length).toBeGreaterThan(decode(st.ids.slice(0, -1)).length); // the last token completed it
    const short = (await probe.generate([prompt], { maxTokens: 3, temperature: 0, seed: 0 }))[0];
    expect(short).toMatchObject({ finish: "length", ids: free.ids.slice(0, 3) });
    await expect(probe.generate([[]], { maxTokens: 3 })).rejects.toThrow(/prompt 0 is empty/);
    await expect(probe.generate([[V]], { maxTokens: 3 })).rejects.toThrow(/outside/);
    await probe.close();
    await withEos.close();
  });

  for (const weightsAs of ["initializer", "input"] as const) {
    it(`updateWeights (${weightsAs}): outputs change exactly as a fresh build's`, async () => {
      const w1 = randomWeights(c, 6), w2 = randomWeights(c, 60);
      const s = await OrtSampler.create({ config: c, weights: w1, eosTokenIds: [], session, weightsAs });
      const prompts = [randomIds(6, V, 10), randomIds(2, V, 11)];
      const opts = { maxTokens: 10, temperature: 1, seed: 5 };
      const before = await s.generate(prompts, opts);
      await s.updateWeights(w2);
      const after = await s.generate(prompts, opts);
      const fresh = await OrtSampler.create({ config: c, weights: w2, eosTokenIds: [], session, weightsAs });
      expect(after).toEqual(await fresh.generate(prompts, opts));
      expect(after.map((r) => r.logprobs)).not.toEqual(before.map((r) => r.logprobs));
      // an update during a generation: that generation finishes on the weights it started with
      const inFlight = s.generate(prompts, opts);
      await s.updateWeights(w1);
      expect(await inFlight).toEqual(after);
      expect(await s.generate(prompts, opts)).toEqual(before);
      await s.close();
      await fresh.close();
      await expect(s.generate(prompts, opts)).rejects.toThrow(/after release/);
    });
  }
});
