/**
 * The tfjs engine: a `Transformer` (src/policy/model) with frozen inference weights (projections
 * pre-transposed), a prefill over the prompt, then one forward per token with the per-layer KV
 * cache, as the tfjs sampler does but for one sequence (batch size 1) and with the logits handed
 * back to the serve loop. Used when onnxruntime cannot load.
 */
import * as tf from "@tensorflow/tfjs-core";
import { initBackend } from "../policy/backend.js";
import { assertWeightsFitWasm } from "../policy/wasm-memory.js";
import type { ModelConfig } from "../policy/config.js";
import type { LayerCache } from "../policy/model/attention.js";
import { causalBias, Transformer, type InferenceWeights } from "../policy/model/transformer.js";
import type { NamedWeights } from "../policy/weights.js";
import type { BatchSession, StepEngine } from "./engine.js";

export class TfjsEngine implements StepEngine {
  readonly kind = "tfjs" as const;
  closed = false;
  readonly maxBatch = 1;
  readonly prefixCaching = false;
  readonly prefixCacheTokens = 0;
  private constructor(
    readonly config: ModelConfig,
    private readonly model: Transformer,
    private readonly w: InferenceWeights,
  ) {}

  static async create(config: ModelConfig, weights: NamedWeights): Promise<TfjsEngine> {
    if ((await initBackend()) === "wasm") assertWeightsFitWasm(config, "--engine tfjs");
    const model = new Transformer(config, weights, false);
    return new TfjsEngine(config, model, model.inference());
  }

  /** One forward over T tokens at positions p0..p0+T-1; returns the last position's logits. */
  private forward(ids: number[], p0: number, bias: tf.Tensor, cache: LayerCache[], cacheOut: LayerCache[]): Float32Array {
    const T = ids.length;
    const logits = tf.tidy(() => {
      const h = this.model.hidden(tf.tensor2d(Int32Array.from(ids), [1, T], "int32"), {
        positions: tf.tensor2d(Int32Array.from(ids, (_, t) => p0 + t), [1, T], "int32"),
        bias,
        cache: cache.length ? cache : undefined,
        cacheOut,
        ctx: this.w,
      }); // [T, D]
      return this.model.head(tf.slice(h, [T - 1, 0], [1, -1]) as tf.Tensor2D, this.w); // [1, V]
    });
    const data = logits.dataSync() as Float32Array;
    logits.dispose();
    return data;
  }

  async start(prompts: number[][]): Promise<BatchSession> {
    if (prompts.length !== 1) throw new Error(`TfjsEngine.start: one prompt at a time, got ${prompts.length}`);
    const prompt = prompts[0];
    let cache: LayerCache[] = [];
    const prefillBias = causalBias(prompt.length); // [1, 1, 1, T, T]
    const out: LayerCache[] = [];
    let logits: Float32Array;
    try {
      logits = this.forward(prompt, 0, prefillBias, [], out);
    } finally {
      prefillBias.dispose();
    }
    cache = out;
    let position = prompt.length;
    const self = this;
    return {
      get logits() {
        return logits;
      },
      async step(keep: number[], tokens: number[]): Promise<void> {
        if (keep.length !== 1) throw new Error("TfjsEngine: the single row must be kept to step");
        const token = tokens[0];
        const next: LayerCache[] = [];
        const bias = tf.zeros([1, 1, 1, 1, position + 1]); // the new token sees every cached one
        try {
          logits = self.forward([token], position, bias, cache, next);
        } finally {
          bias.dispose();
        }
        for (const kv of cache) tf.dispose([kv.k, kv.v]);
        cache = next;
        position++;
        await new Promise((r) => setImmediate(r)); // wasm runs on this thread: let I/O through
      },
      dispose(): void {
        for (const kv of cache) tf.dispose([kv.k, kv.v]);
        cache = [];
      },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.w.dispose();
    this.model.dispose();
  }
}
