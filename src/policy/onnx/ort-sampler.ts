/**
 * Batched generation on onnxruntime, behind the engine-agnostic `Sampler` interface (sampler.ts):
 * prompts of different lengths are left-padded into one batch, prefilled in one run, then decoded
 * one token per run with the KV cache. Token choice, log-probs and stop strings are the shared
 * helpers of sampling.ts (`pickToken`, `StopMatcher`), so the same logits give the same tokens as
 * the tfjs engine. Each row draws from its own random stream `Rng(seed, row)`, so a row's tokens
 * do not depend on when the other rows finish. Finished rows leave the batch (their cache rows
 * are dropped), so a group where most sequences stop early does not pay for the longest one.
 *
 * Conventions (the same as the tfjs sampler, tfjs-sampler.ts): an EOS token is part of `ids` and
 * `logprobs` (it is the model's own action, the trainer scores it); `text` is `decode(ids)` (the
 * decode function decides whether special tokens show); at most min(maxTokens, maxPositions -
 * longest prompt) tokens per row, so no position leaves the rotary range of the config.
 */
import type { ModelConfig } from "../config.js";
import type { SampleOptions, SampleResult, Sampler } from "../sampler.js";
import { pickToken, resolveSampleOptions, Rng, StopMatcher } from "../sampling.js";
import type { NamedWeights } from "../weights.js";
import { KvCache, OrtPolicy, prefillInput, type OrtPolicyOptions, type StepInput, type StepOutput } from "./ort-policy.js";
import { attentionBias } from "./policy-graph.js";
import type { OrtSessionOptions } from "./session.js";

export interface OrtSamplerInit {
  config: ModelConfig;
  weights: NamedWeights;
  /** defaults to config.eosTokenIds */
  eosTokenIds?: number[];
  /** token ids → text, for `text` and stop strings; without it text is "" and stop strings never match */
  decode?: (ids: number[]) => string;
  session?: OrtSessionOptions;
  /** how weights reach the graph; default "auto": initializers (faster decode, see ort-policy.ts)
   *  unless the weights pass 1.5 GiB */
  weightsAs?: OrtPolicyOptions["weightsAs"];
  /** token used to left-pad shorter prompts (never attended); default 0 */
  padTokenId?: number;
}

interface Row {
  pad: number; // left padding in the prefill batch
  next: number; // the token to feed at the next step
  position: number; // its rotary position
  result: SampleResult;
  stop: StopMatcher;
  rng: Rng;
}

export class OrtSampler implements Sampler {
  private readonly eos: Set<number>;
  private readonly decode: (ids: number[]) => string;

  private constructor(
    private readonly policy: OrtPolicy,
    private readonly init: OrtSamplerInit,
  ) {
    this.eos = new Set(init.eosTokenIds ?? init.config.eosTokenIds);
    this.decode = init.decode ?? (() => "");
  }

  static async create(init: OrtSamplerInit): Promise<OrtSampler> {
    const policy = await OrtPolicy.create(init.config, init.weights, { logits: "last", weightsAs: init.weightsAs, session: init.session });
    return new OrtSampler(policy, init);
  }

  /** Later generations use these weights (e.g. after a training step, LoRA merged). */
  async updateWeights(weights: NamedWeights): Promise<void> {
    await this.policy.updateWeights(weights);
  }

  async generate(prompts: number[][], options: Partial<SampleOptions> = {}): Promise<SampleResult[]> {
    const o = resolveSampleOptions(options);
    const V = this.init.config.vocabSize;
    prompts.forEach((p, i) => {
      if (p.length === 0) throw new RangeError(`OrtSampler.generate: prompt ${i} is empty`);
      const bad = p.find((id) => !Number.isInteger(id) || id < 0 || id >= V);
      if (bad !== undefined) throw new RangeError(`OrtSampler.generate: prompt ${i} has token id ${bad} outside [0, ${V})`);
    });
    const results: SampleResult[] = prompts.map(() => ({ ids: [], text: "", logprobs: [], finish: "length" }));
    if (prompts.length === 0) return results;
    const T = Math.max(...prompts.map((p) => p.length));
    const maxNew = Math.max(0, Math.min(o.maxTokens, this.init.config.maxPositions - T));
    if (maxNew === 0) return results;

    // one weight version for the whole generation, even if updateWeights runs meanwhile
    return this.policy.pinned((step) => this.run(step, prompts, results, o, T, maxNew));
  }

  private async run(
    step: (input: StepInput) => Promise<StepOutput>,
    prompts: number[][],
    results: SampleResult[],
    o: SampleOptions,
    T: number,
    maxNew: number,
  ): Promise<SampleResult[]> {
    const V = this.init.config.vocabSize;
    // prefill: left-pad to the longest prompt, positions count real tokens only
    const padId = this.init.padTokenId !== undefined && this.init.padTokenId >= 0 && this.init.padTokenId < V ? this.init.padTokenId : 0;
    const { input, pads } = prefillInput(prompts, padId);
    const first = await step(input);
    // The graph attends over the cache's whole capacity (unfilled slots masked), so the buffer
    // grows with the sequence, by a quarter (at least 32 slots) at a time: at most ~12% wasted
    // attention on average, and amortized O(1) copying per token.
    const limit = T + maxNew;
    const grow = (filled: number) => Math.min(limit, filled + Math.max(32, Math.ceil(filled / 4)));
    const cache = KvCache.for(this.init.config, prompts.length, grow(T));
    cache.append(first.newKeys, first.newValues, T);
    let logits = first.logits; // [B, V]
    let rows: Row[] = prompts.map((p, b) => ({
      pad: pads[b],
      next: -1,
      position: p.length,
      result: results[b],
      stop: new StopMatcher(o.stop, this.decode),
      rng: new Rng(o.seed, b),
    }));

    for (;;) {
      // choose one token per live row; decide who is finished
      const keep: number[] = [];
      rows.forEach((r, i) => {
        const { token, logprob } = pickToken(logits.subarray(i * V, (i + 1) * V), o, r.rng);
        r.result.ids.push(token);
        r.result.logprobs.push(logprob);
        r.next = token;
        if (this.eos.has(token)) r.result.finish = "eos";
        else if (o.stop.length > 0 && r.stop.push(token) !== null) r.result.finish = "stop";
        else if (r.result.ids.length >= maxNew) r.result.finish = "length";
        else {
          keep.push(i);
          return;
        }
        r.result.text = r.result.ids.length > 0 ? this.decode(r.result.ids) : "";
      });
      if (keep.length === 0) break;
      if (keep.length < rows.length) {
        cache.selectRows(keep);
        rows = keep.map((i) => rows[i]);
      }
      // decode one token per row: [B, 1] at each row's own position; pads stay masked
      if (cache.filled >= cache.capacity) cache.reserve(grow(cache.filled));
      const out = await step({
        ids: rows.map((r) => [r.next]),
        positions: rows.map((r) => [r.position]),
        bias: attentionBias(rows.map((r) => r.pad), cache.filled, cache.capacity, 1),
        past: cache,
      });
      for (const r of rows) r.position++;
      cache.append(out.newKeys, out.newValues, 1);
      logits = out.logits;
    }
    return results;
  }

  async close(): Promise<void> {
    await this.policy.release();
  }
}
