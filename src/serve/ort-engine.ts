/**
 * The onnxruntime engine: one `OrtPolicy` session over the generated policy graph (logits for
 * the last position only). A batch is left-padded to its longest prompt and prefilled in one run;
 * then one run per step feeds a token per live row with the KV cache (`KvCache`, which doubles
 * its buffer as it fills). Pads are masked by `attentionBias` and each row's positions count its
 * real tokens only, so a row's logits do not depend on its batch (up to float rounding).
 * Finished rows leave the cache before the next run, as in ort-sampler.ts. New requests join a
 * running batch (continuous batching): prefilled on their own, their cache rows right-aligned
 * with the running ones, the difference padded; slots no live row needs are dropped as rows leave.
 */
import type { ModelConfig } from "../policy/config.js";
import { KvCache, OrtPolicy } from "../policy/onnx/ort-policy.js";
import { attentionBias } from "../policy/onnx/policy-graph.js";
import type { NamedWeights } from "../policy/weights.js";
import type { BatchSession, StepEngine } from "./engine.js";

export class OrtEngine implements StepEngine {
  readonly kind = "ort" as const;
  closed = false;
  readonly maxBatch = 64;
  private constructor(
    readonly config: ModelConfig,
    private readonly policy: OrtPolicy,
  ) {}

  static async create(config: ModelConfig, weights: NamedWeights): Promise<OrtEngine> {
    return new OrtEngine(config, await OrtPolicy.create(config, weights, { logits: "last" }));
  }

  /** Prefills prompts left-padded to the longest: logits [B, V], keys/values [B, KVH, T, HD]. */
  private prefill(prompts: number[][]) {
    const T = Math.max(...prompts.map((p) => p.length));
    const pads = prompts.map((p) => T - p.length);
    const out = this.policy.step({
      ids: prompts.map((p, b) => [...new Array<number>(pads[b]).fill(0), ...p]),
      positions: prompts.map((_, b) => Array.from({ length: T }, (_, t) => Math.max(0, t - pads[b]))),
      bias: attentionBias(pads, 0, 0, T),
      past: null,
    });
    return { T, pads, out };
  }

  async start(prompts: number[][]): Promise<BatchSession> {
    const { T, pads: firstPads, out: firstOut } = this.prefill(prompts);
    const first = await firstOut;
    let pads = firstPads;
    let positions = prompts.map((p) => p.length);
    const cache = KvCache.for(this.config, prompts.length, T + 64);
    cache.append(first.newKeys, first.newValues, T);
    const policy = this.policy;
    const self = this;
    const session = {
      logits: first.logits.slice(), // [B, V]
      async step(keep: number[], tokens: number[]): Promise<void> {
        if (keep.length < pads.length) {
          pads = keep.map((i) => pads[i]);
          // slots every kept row pads (rows that joined late and left early) are dropped
          const drop = pads.length > 0 ? Math.min(...pads) : 0;
          cache.selectRows(keep, drop);
          pads = pads.map((p) => p - drop);
          positions = keep.map((i) => positions[i]);
        }
        const out = await policy.step({
          ids: tokens.map((t) => [t]),
          positions: positions.map((p) => [p]),
          bias: attentionBias(pads, cache.filled, cache.capacity, 1),
          past: cache,
        });
        positions = positions.map((p) => p + 1);
        cache.append(out.newKeys, out.newValues, 1);
        session.logits = out.logits.slice(); // [B, V]
      },
      async join(more: number[][]): Promise<void> {
        const { T: T2, pads: morePads, out } = self.prefill(more);
        const joined = await out;
        const shift = cache.admit(joined.newKeys, joined.newValues, more.length, T2);
        // a new row's slots end where the filled ones do: its pad is what its prompt leaves
        pads = [...pads.map((p) => p + shift), ...morePads.map((p) => p + cache.filled - T2)];
        positions = [...positions, ...more.map((p) => p.length)];
        const logits = new Float32Array(session.logits.length + joined.logits.length); // [B + B2, V]
        logits.set(session.logits);
        logits.set(joined.logits, session.logits.length);
        session.logits = logits;
      },
      dispose(): void {},
    };
    return session;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.policy.release();
  }
}
