/**
 * The tfjs Sampler: batched generation with a KV cache. Prompts are left-padded to a common
 * length; each row's positions start at 0 at its first real token and padded keys are masked,
 * so a row's result does not depend on what it is batched with (up to float rounding). One
 * prefill over the prompts, then one token per step for all rows; token choice (temperature,
 * top-k, top-p, seeded per row) and stop strings come from sampling.ts, shared with the ONNX
 * engine. Weights are frozen for the call (LoRA merged, projections pre-transposed).
 */
import * as tf from "@tensorflow/tfjs-core";
import type { LayerCache } from "./model/attention.js";
import type { Transformer } from "./model/transformer.js";
import type { SampleOptions, SampleResult, Sampler } from "./sampler.js";
import { pickToken, resolveSampleOptions, Rng, StopMatcher } from "./sampling.js";

export interface TfjsSamplerOptions {
  /** token ids → text, for stop strings and the result text */
  decode: (ids: number[]) => string;
  /** ids that end a sequence (default: the config's eos_token_id) */
  eosTokenIds?: number[];
  /** prompts generated together at most (default 8) */
  batchSize?: number;
}

const NEG = -1e9;

export class TfjsSampler implements Sampler {
  private readonly eos: Set<number>;
  private readonly batchSize: number;

  constructor(
    readonly model: Transformer,
    private readonly opts: TfjsSamplerOptions,
  ) {
    this.eos = new Set(opts.eosTokenIds ?? model.config.eosTokenIds);
    this.batchSize = opts.batchSize ?? 8;
    if (!(this.batchSize >= 1)) throw new Error(`TfjsSampler: batchSize must be >= 1, got ${this.batchSize}`);
  }

  async generate(prompts: number[][], options: Partial<SampleOptions>): Promise<SampleResult[]> {
    const o = resolveSampleOptions(options);
    const out: SampleResult[] = [];
    for (let i = 0; i < prompts.length; i += this.batchSize) {
      out.push(...this.generateBatch(prompts.slice(i, i + this.batchSize), o, i));
      await new Promise((r) => setImmediate(r)); // let timers and I/O run between batches
    }
    return out;
  }

  private generateBatch(prompts: number[][], o: SampleOptions, offset: number): SampleResult[] {
    const c = this.model.config;
    const B = prompts.length;
    prompts.forEach((p, b) => {
      if (p.length === 0) throw new Error(`generate: prompt ${offset + b} is empty`);
      for (const id of p) if (!(Number.isInteger(id) && id >= 0 && id < c.vocabSize)) throw new Error(`generate: prompt ${offset + b} has token id ${id} outside the vocabulary (${c.vocabSize})`);
    });
    const L = Math.max(...prompts.map((p) => p.length));
    // positions run to longest-prompt + generated - 1; stay inside the rotary table
    const maxNew = Math.max(0, Math.min(o.maxTokens, c.maxPositions - L));
    const rngs = prompts.map((_, b) => new Rng(o.seed, offset + b));
    const stops = prompts.map(() => new StopMatcher(o.stop, this.opts.decode));
    const res = prompts.map(() => ({ ids: [] as number[], logprobs: [] as number[], finish: "length" as SampleResult["finish"], done: false }));
    if (maxNew === 0) return res.map((r) => ({ ids: [], text: "", logprobs: [], finish: "length" }));

    const pad = prompts.map((p) => L - p.length);
    const len = prompts.map((p) => p.length); // next position per row
    const keyValid: number[][] = prompts.map((_, b) => Array.from({ length: L }, (_, t) => (t >= pad[b] ? 1 : 0)));
    const w = this.model.inference();
    let cache: LayerCache[] = [];
    try {
      // prefill
      const ids = new Int32Array(B * L), pos = new Int32Array(B * L), bias = new Float32Array(B * L * L);
      prompts.forEach((p, b) => {
        ids.set(p, b * L + pad[b]);
        for (let t = 0; t < L; t++) {
          pos[b * L + t] = Math.max(0, t - pad[b]);
          for (let k = 0; k < L; k++) bias[(b * L + t) * L + k] = k > t || !keyValid[b][k] ? NEG : 0;
        }
      });
      let logits = this.step(w, ids, pos, bias, B, L, L, [], (c2) => (cache = c2));
      for (let s = 0; s < maxNew; s++) {
        const next = new Int32Array(B);
        for (let b = 0; b < B; b++) {
          const r = res[b];
          if (r.done) continue;
          const row = logits.subarray(b * c.vocabSize, (b + 1) * c.vocabSize);
          const { token, logprob } = pickToken(row, o, rngs[b]);
          r.ids.push(token);
          r.logprobs.push(logprob);
          next[b] = token;
          if (this.eos.has(token)) [r.finish, r.done] = ["eos", true];
          else if (stops[b].push(token) !== null) [r.finish, r.done] = ["stop", true];
        }
        if (res.every((r) => r.done) || s === maxNew - 1) break;
        // decode one token for every row (finished rows ride along; their outputs are ignored)
        const Tk = L + s + 1;
        const p1 = new Int32Array(B), b1 = new Float32Array(B * Tk);
        for (let b = 0; b < B; b++) {
          keyValid[b].push(1);
          p1[b] = len[b]++;
          for (let k = 0; k < Tk; k++) b1[b * Tk + k] = keyValid[b][k] ? 0 : NEG;
        }
        const prev = cache;
        logits = this.step(w, next, p1, b1, B, 1, Tk, prev, (c2) => (cache = c2));
        for (const kv of prev) tf.dispose([kv.k, kv.v]);
      }
    } finally {
      for (const kv of cache) tf.dispose([kv.k, kv.v]);
      w.dispose();
    }
    return res.map((r) => ({ ids: r.ids, text: this.opts.decode(r.ids), logprobs: r.logprobs, finish: r.finish }));
  }

  /** One forward over T new tokens per row; returns the last position's logits [B*V] and the new cache. */
  private step(
    w: ReturnType<Transformer["inference"]>,
    ids: Int32Array,
    pos: Int32Array,
    bias: Float32Array,
    B: number,
    T: number,
    Tk: number,
    cache: LayerCache[],
    setCache: (c: LayerCache[]) => void,
  ): Float32Array {
    const cacheOut: LayerCache[] = [];
    const logits = tf.tidy(() => {
      const h = this.model.hidden(tf.tensor2d(ids, [B, T], "int32"), {
        positions: tf.tensor2d(pos, [B, T], "int32"),
        bias: tf.tensor(bias, [B, 1, 1, T, Tk]),
        cache: cache.length ? cache : undefined,
        cacheOut,
        ctx: w,
      }); // [B*T, D]
      const last = T === 1 ? h : (tf.reshape(tf.slice(tf.reshape(h, [B, T, -1]), [0, T - 1, 0], [B, 1, -1]), [B, -1]) as tf.Tensor2D); // [B, D]
      return this.model.head(last, w); // [B, V]
    });
    setCache(cacheOut);
    const data = logits.dataSync() as Float32Array;
    logits.dispose();
    return data;
  }
}
