import { describe, expect, it } from "vitest";
import {
  DEFAULT_SAMPLE_OPTIONS,
  Rng,
  SequenceSampler,
  StopMatcher,
  argmax,
  logSoftmaxAt,
  logSumExp,
  pickToken,
  resolveSampleOptions,
} from "../../src/policy/sampling.js";

const f32 = (xs: number[]) => Float32Array.from(xs);

/** exact log softmax in float64 of the float32-rounded logits */
function refLogSoftmax(xs: Float32Array, i: number): number {
  const m = Math.max(...xs);
  let s = 0;
  for (const x of xs) s += Math.exp(x - m);
  return xs[i] - m - Math.log(s);
}

function counts(logits: Float32Array, opts: { temperature: number; topK: number; topP: number }, n: number, seed: number): number[] {
  const rng = new Rng(seed);
  const c = new Array<number>(logits.length).fill(0);
  for (let i = 0; i < n; i++) c[pickToken(logits, opts, rng).token]++;
  return c;
}

/** Pearson chi-square over the cells with positive expectation; asserts zero-expectation cells stay empty */
function chiSquare(obs: number[], probs: number[]): number {
  const n = obs.reduce((a, b) => a + b, 0);
  let chi = 0;
  probs.forEach((p, i) => {
    if (p === 0) expect(obs[i], `token ${i} must never be drawn`).toBe(0);
    else chi += (obs[i] - n * p) ** 2 / (n * p);
  });
  return chi;
}

describe("Rng", () => {
  it("is deterministic per seed and differs across seeds and streams", () => {
    const a = new Rng(42), b = new Rng(42), c = new Rng(43), d = new Rng(42, 1);
    const xa = Array.from({ length: 5 }, () => a.next());
    expect(Array.from({ length: 5 }, () => b.next())).toEqual(xa);
    expect(Array.from({ length: 5 }, () => c.next())).not.toEqual(xa);
    expect(Array.from({ length: 5 }, () => d.next())).not.toEqual(xa);
    for (const x of xa) expect(x >= 0 && x < 1).toBe(true);
  });

  it("pins the stream for seed 0 (changing the generator breaks saved runs)", () => {
    const r = new Rng(0);
    const words = Array.from({ length: 3 }, () => r.nextUint32());
    expect(words).toMatchInlineSnapshot(`
      [
        2447823953,
        1896925384,
        3552283628,
      ]
    `);
  });

  it("is xoshiro128** (reference outputs for the state [1, 2, 3, 4])", () => {
    // by hand from the reference C: rotl(s1 * 5, 7) * 9 = 1280 * 9, then s1 becomes 0
    const r = Rng.fromState([1, 2, 3, 4]);
    expect([r.nextUint32(), r.nextUint32()]).toEqual([11520, 0]);
  });

  it("resumes from a saved state", () => {
    const r = new Rng(7);
    for (let i = 0; i < 10; i++) r.next();
    const st = r.getState();
    const ahead = Array.from({ length: 5 }, () => r.next());
    const r2 = Rng.fromState(st);
    expect(Array.from({ length: 5 }, () => r2.next())).toEqual(ahead);
    expect(() => r2.setState([0, 0, 0, 0])).toThrow(/all-zero/);
    expect(() => r2.setState([1, 2, 3])).toThrow(/4 unsigned/);
  });

  it("is roughly uniform", () => {
    const r = new Rng(123);
    const bins = new Array(10).fill(0);
    for (let i = 0; i < 100_000; i++) bins[Math.floor(r.next() * 10)]++;
    const chi = chiSquare(bins, new Array(10).fill(0.1));
    expect(chi).toBeLessThan(27.9); // df 9, p = 0.001
  });
});

describe("pickToken", () => {
  const logits = f32([1.5, -0.3, 2.25, 2.25, 0, -7, 0.7]);

  it("greedy takes the argmax, ties to the lowest id, and leaves the rng untouched", () => {
    const r = new Rng(1);
    const st = r.getState();
    const p = pickToken(logits, { temperature: 0, topK: 0, topP: 1 }, r);
    expect(p.token).toBe(2);
    expect(r.getState()).toEqual(st);
    expect(argmax(f32([NaN, 1, 3, 3]))).toBe(2);
  });

  it("top-k = 1 equals greedy at any temperature", () => {
    const r = new Rng(5);
    for (let i = 0; i < 50; i++) expect(pickToken(logits, { temperature: 1.7, topK: 1, topP: 1 }, r).token).toBe(2);
  });

  it("returns the exact log softmax of the raw logits, whatever the filters", () => {
    const r = new Rng(9);
    for (const opts of [
      { temperature: 0, topK: 0, topP: 1 },
      { temperature: 0.3, topK: 3, topP: 0.9 },
      { temperature: 2, topK: 0, topP: 0.5 },
      { temperature: 1, topK: 0, topP: 1 },
    ]) {
      for (let i = 0; i < 20; i++) {
        const p = pickToken(logits, opts, r);
        expect(p.logprob).toBeCloseTo(refLogSoftmax(logits, p.token), 12);
      }
    }
    expect(logSoftmaxAt(f32([0, 0]), 1)).toBeCloseTo(Math.log(0.5), 14);
    expect(logSumExp(f32([1000, 1000]))).toBeCloseTo(1000 + Math.log(2), 10);
  });

  it("is numerically stable with huge and -Infinity logits", () => {
    const big = f32([1e30, 1e30 - 1e24, -Infinity, NaN]);
    const p = pickToken(big, { temperature: 1, topK: 0, topP: 1 }, new Rng(3));
    expect(p.token === 0 || p.token === 1).toBe(true);
    expect(Number.isFinite(p.logprob)).toBe(true);
    const masked = f32([-Infinity, 0, -Infinity]);
    for (let i = 0; i < 20; i++) expect(pickToken(masked, { temperature: 1, topK: 0, topP: 1 }, new Rng(i)).token).toBe(1);
    expect(() => pickToken(f32([-Infinity, NaN]), { temperature: 1, topK: 0, topP: 1 }, new Rng(0))).toThrow(/-Infinity or NaN/);
  });

  it("is deterministic for a seed", () => {
    const opts = { temperature: 0.8, topK: 5, topP: 0.95 };
    const run = (seed: number) => {
      const r = new Rng(seed);
      return Array.from({ length: 30 }, () => pickToken(logits, opts, r).token);
    };
    expect(run(11)).toEqual(run(11));
    expect(run(11)).not.toEqual(run(12));
  });

  // probabilities of `logits` at temperature t, filtered as HF does
  function expected(t: number, topK: number, topP: number): number[] {
    const xs = Array.from(logits);
    const w = xs.map((x) => Math.exp(x / t));
    const order = xs.map((_, i) => i).sort((a, b) => w[b] - w[a] || a - b);
    let keep = topK > 0 ? order.slice(0, topK) : order;
    const zk = keep.reduce((s, i) => s + w[i], 0);
    let cum = 0;
    const nucleus: number[] = [];
    for (const i of keep) {
      nucleus.push(i);
      cum += w[i] / zk;
      if (cum >= topP) break;
    }
    keep = nucleus;
    const z = keep.reduce((s, i) => s + w[i], 0);
    return xs.map((_, i) => (keep.includes(i) ? w[i] / z : 0));
  }

  // chi-square critical values at p = 0.001 for df 1..6
  const crit = [10.83, 13.82, 16.27, 18.47, 20.52, 22.46];
  for (const [t, k, p] of [
    [1, 0, 1],
    [0.7, 0, 0.8],
    [1.3, 4, 1],
    [1, 5, 0.6],
    [2, 0, 0.99],
  ] as const) {
    it(`matches the expected frequencies (temperature ${t}, top-k ${k}, top-p ${p})`, () => {
      const probs = expected(t, k, p);
      const obs = counts(logits, { temperature: t, topK: k, topP: p }, 40_000, 2024);
      const df = probs.filter((x) => x > 0).length - 1;
      if (df === 0) return expect(obs[probs.indexOf(1)]).toBe(40_000);
      expect(chiSquare(obs, probs)).toBeLessThan(crit[df - 1]);
    });
  }

  it("keeps at least one token under a tiny top-p, and handles a large vocabulary", () => {
    const r = new Rng(4);
    for (let i = 0; i < 20; i++) expect(pickToken(logits, { temperature: 1, topK: 0, topP: 1e-9 }, r).token).toBe(2);
    const V = 151_936;
    const big = new Float32Array(V);
    const r2 = new Rng(8);
    for (let i = 0; i < V; i++) big[i] = (r2.next() - 0.5) * 8;
    big[777] = 30;
    big[1234] = 29;
    const seen = new Set<number>();
    for (let i = 0; i < 50; i++) seen.add(pickToken(big, { temperature: 1, topK: 0, topP: 0.9 }, r2).token);
    expect([...seen].sort((a, b) => a - b)).toEqual([777, 1234]);
    const k = new Set<number>();
    // at temperature 20 the third-best token keeps about 12% of the top-3 mass
    for (let i = 0; i < 50; i++) k.add(pickToken(big, { temperature: 20, topK: 3, topP: 1 }, r2).token);
    expect(k.has(777) && k.has(1234) && k.size === 3).toBe(true);
  });
});

describe("sample options", () => {
  it("fills defaults and rejects bad values", () => {
    expect(resolveSampleOptions({ topP: 0.9 })).toEqual({ ...DEFAULT_SAMPLE_OPTIONS, topP: 0.9 });
    expect(() => resolveSampleOptions({ topP: 0 })).toThrow(/topP/);
    expect(() => resolveSampleOptions({ temperature: -1 })).toThrow(/temperature/);
    expect(() => resolveSampleOptions({ topK: 1.5 })).toThrow(/topK/);
    expect(() => resolveSampleOptions({ stop: [""] })).toThrow(/stop/);
  });
});

describe("StopMatcher", () => {
  // a toy vocabulary where tokens are strings, some multi-character
  const vocab = ["a", "b", "</", "tool", "_call", ">", "</tool_call>\nx", "END", ""];
  const decode = (ids: number[]) => ids.map((i) => vocab[i]).join("");

  it("stops when a stop string is completed across tokens", () => {
    const m = new StopMatcher(["</tool_call>"], decode);
    expect(m.push(0)).toBeNull();
    expect(m.push(2)).toBeNull();
    expect(m.push(3)).toBeNull();
    expect(m.push(4)).toBeNull();
    expect(m.push(5)).toBe("</tool_call>");
    expect(m.matched).toBe("</tool_call>");
  });

  it("finds a stop string inside one token's text, and after a long prefix", () => {
    const m = new StopMatcher(["</tool_call>", "END"], decode);
    for (let i = 0; i < 500; i++) expect(m.push(i % 2)).toBeNull();
    expect(m.push(6)).toBe("</tool_call>");
    const m2 = new StopMatcher(["END"], decode);
    m2.push(0);
    expect(m2.push(7)).toBe("END");
  });

  it("decodes only a tail window", () => {
    let longest = 0;
    const m = new StopMatcher(["END"], (ids) => {
      longest = Math.max(longest, ids.length);
      return decode(ids);
    });
    for (let i = 0; i < 1000; i++) m.push(i % 2);
    expect(longest).toBeLessThanOrEqual(13);
  });

  it("handles tokens that decode to nothing and no stop strings", () => {
    const m = new StopMatcher(["ab"], decode);
    m.push(0);
    m.push(8);
    m.push(8);
    expect(m.push(1)).toBe("ab");
    const none = new StopMatcher([], () => {
      throw new Error("must not decode");
    });
    expect(none.push(1)).toBeNull();
  });
});

describe("SequenceSampler", () => {
  // toy vocabulary: 0 = EOS, 1..3 letters, 4 = "STOP"
  const vocab = ["<eos>", "a", "b", "c", "STOP"];
  const decode = (ids: number[]) => ids.map((i) => vocab[i]).join("");
  const row = (favour: number) => {
    const l = new Float32Array(5).fill(0);
    l[favour] = 10;
    return l;
  };

  it("finishes on eos (kept in ids, not in text), stop strings and length", () => {
    const opts = resolveSampleOptions({ temperature: 0, maxTokens: 10, stop: ["STOP"] });
    const eos = new SequenceSampler(opts, [0], decode, 0);
    eos.step(row(1));
    eos.step(row(0));
    expect(eos.result()).toMatchObject({ ids: [1, 0], text: "a", finish: "eos" });
    expect(eos.result().logprobs[1]).toBeCloseTo(refLogSoftmax(row(0), 0), 12);
    expect(() => eos.step(row(1))).toThrow(/already finished/);
    const stop = new SequenceSampler(opts, [0], decode, 0);
    stop.step(row(2));
    stop.step(row(4));
    expect(stop.result()).toMatchObject({ ids: [2, 4], text: "bSTOP", finish: "stop" });
    const len = new SequenceSampler({ ...opts, maxTokens: 3 }, [0], decode, 0);
    while (!len.done) len.step(row(3));
    expect(len.result()).toMatchObject({ ids: [3, 3, 3], text: "ccc", finish: "length" });
    expect(new SequenceSampler({ ...opts, maxTokens: 0 }, [0], decode, 0).result().finish).toBe("length");
  });

  it("gives each sequence its own stream, independent of the batch", () => {
    const opts = resolveSampleOptions({ temperature: 1, maxTokens: 20, seed: 5 });
    const flat = new Float32Array(5).fill(0);
    const run = (index: number) => {
      const s = new SequenceSampler(opts, [], decode, index);
      while (!s.done) s.step(flat);
      return s.result().ids;
    };
    expect(run(1)).toEqual(run(1));
    expect(run(0)).not.toEqual(run(1));
  });
});
