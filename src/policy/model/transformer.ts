/**
 * The decoder-only model (LlamaForCausalLM / Qwen2ForCausalLM / Qwen3ForCausalLM) on tfjs,
 * float32, weights held as tf.Variables under their Hugging Face names and layouts. One class
 * owns the weights, the optional LoRA adapters and the forward pass; the layers are functions in
 * their own files. Sequences are right-padded, so causal attention alone keeps real tokens from
 * seeing padding (pad positions produce finite values the caller masks out).
 */
import * as tf from "@tensorflow/tfjs-core";
import type { ModelConfig } from "../config.js";
import { initRandomWeights, loadCheckpoint, mulberry32, validateWeights, type NamedWeights } from "../weights.js";
import type { LayerCache } from "./attention.js";
import { block } from "./block.js";
import { checkpoint } from "./checkpoint.js";
import { allowPackedCache } from "../kernels/wasm-matmul.js";
import { logSumExpRows, rmsNorm, ropeTables } from "./layers.js";
import type { LinearContext, LoraPair, LoraWeights } from "./linear.js";

export const LORA_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"] as const;
export type LoraTarget = (typeof LORA_TARGETS)[number];

export interface LoraConfig {
  /** rank r (default 8) */
  r: number;
  /** scale is alpha / r (default 16) */
  alpha: number;
  /** dropout on the adapter input while training (default 0) */
  dropout: number;
  targetModules: LoraTarget[];
  /** seeds A's init and the dropout masks */
  seed: number;
}

export interface ForwardOptions {
  /** positions [B, T] (default 0..T-1 on every row) */
  positions?: tf.Tensor2D;
  /** additive attention mask broadcastable to [B, KV, G, T, Tk] (default causal) */
  bias?: tf.Tensor;
  /** KV cache in (one per layer) and out */
  cache?: LayerCache[];
  cacheOut?: LayerCache[];
  /** weights to use instead of the model's own (an InferenceWeights from `inference()`) */
  ctx?: LinearContext;
}

export interface LogprobsResult {
  /** log p(ids[b][t+1] | ids[b][<=t]) [B, T-1]; positions past a row's length are padding */
  logp: tf.Tensor2D;
  /** entropy of the next-token distribution at each position [B, T-1], when asked for */
  entropy?: tf.Tensor2D;
}

const NEG = -1e9;

/** Right-pads rows with `pad` to the longest; returns ids [B, T] int32. */
export function padIds(ids: number[][], pad = 0): { tensor: tf.Tensor2D; T: number } {
  if (ids.length === 0) throw new Error("padIds: no sequences");
  const T = Math.max(...ids.map((r) => r.length));
  const flat = new Int32Array(ids.length * T).fill(pad);
  ids.forEach((r, b) => flat.set(r, b * T));
  return { tensor: tf.tensor2d(flat, [ids.length, T], "int32"), T };
}

export class Transformer implements LinearContext {
  readonly params = new Map<string, tf.Variable>();
  private loraPairs: Map<string, LoraPair> | null = null;
  loraConfig: LoraConfig | null = null;
  /** false inside withAdaptersDisabled: the base model's outputs */
  adaptersEnabled = true;
  /** dropout is active only while training */
  training = false;
  /** while training, recompute each layer's activations in the backward pass instead of
   *  keeping them (gradient_checkpointing): less memory for one more forward pass */
  gradientCheckpointing = false;
  private readonly cos: tf.Tensor2D;
  private readonly sin: tf.Tensor2D;
  private readonly rotate: tf.Tensor2D;
  private dropRand: () => number = mulberry32(0);

  constructor(
    readonly config: ModelConfig,
    weights: NamedWeights,
    /** full fine-tuning: base weights trainable (default true; LoRA turns them off) */
    trainable = true,
  ) {
    const w = validateWeights(config, weights, "Transformer");
    // the rotary tables first: they throw on an unsupported rope_scaling before any variable exists
    ({ cos: this.cos, sin: this.sin, rotate: this.rotate } = ropeTables(config.headDim, config.ropeTheta, config.maxPositions, config.ropeScaling));
    for (const [name, t] of w) this.params.set(name, tf.variable(tf.tensor(t.data, t.shape, "float32"), trainable));
  }

  static random(config: ModelConfig, seed: number): Transformer {
    return new Transformer(config, initRandomWeights(config, seed));
  }

  static async load(dir: string): Promise<Transformer> {
    const { config, weights } = await loadCheckpoint(dir);
    return new Transformer(config, weights);
  }

  // LinearContext
  get(name: string): tf.Tensor {
    const t = this.params.get(name);
    if (!t) throw new Error(`no weight "${name}"`);
    return t;
  }
  has(name: string): boolean {
    return this.params.has(name);
  }
  lora(prefix: string): LoraPair | undefined {
    return this.adaptersEnabled ? this.loraPairs?.get(prefix) : undefined;
  }
  loraDropout(x: tf.Tensor2D): tf.Tensor2D {
    const mask = this.dropoutMask(x.shape);
    return mask ? tf.tidy(() => tf.mul(x, mask) as tf.Tensor2D) : x; // [N, in]
  }

  /** Restarts the LoRA dropout masks' random stream (enableLora seeds it from the adapters' seed). */
  seedDropout(seed: number): void {
    this.dropRand = mulberry32(seed ^ 0x9e3779b9);
  }

  /** The next inverted-dropout mask for a LoRA input of this shape; null when no dropout applies. */
  private dropoutMask(shape: number[]): tf.Tensor | null {
    const p = this.loraConfig?.dropout ?? 0;
    if (!this.training || p <= 0) return null;
    const n = shape.reduce((a, d) => a * d, 1), keep = new Float32Array(n);
    for (let i = 0; i < n; i++) keep[i] = this.dropRand() < p ? 0 : 1 / (1 - p);
    return tf.tensor(keep, shape);
  }

  /** Adds LoRA adapters (A ~ U(±1/sqrt(in)) as PEFT's kaiming_uniform(a=√5), B = 0) and freezes the base. */
  enableLora(cfg: LoraConfig, init?: Map<string, { a: Float32Array; b: Float32Array }>): void {
    if (this.loraPairs) throw new Error("LoRA adapters are already enabled");
    if (!(cfg.r > 0 && Number.isInteger(cfg.r))) throw new Error(`LoRA rank must be a positive integer, got ${cfg.r}`);
    if (!(cfg.dropout >= 0 && cfg.dropout < 1)) throw new Error(`LoRA dropout must be in [0, 1), got ${cfg.dropout}`);
    const bad = cfg.targetModules.filter((m) => !(LORA_TARGETS as readonly string[]).includes(m));
    if (bad.length || cfg.targetModules.length === 0) throw new Error(`LoRA target modules must be among ${LORA_TARGETS.join(", ")}; got ${JSON.stringify(cfg.targetModules)}`);
    const rand = mulberry32(cfg.seed);
    this.dropRand = mulberry32(cfg.seed ^ 0x9e3779b9);
    const pairs = new Map<string, LoraPair>();
    for (let l = 0; l < this.config.numLayers; l++)
      for (const m of cfg.targetModules) {
        const prefix = `model.layers.${l}.${["gate_proj", "up_proj", "down_proj"].includes(m) ? "mlp" : "self_attn"}.${m}`;
        const [out, inn] = this.get(prefix + ".weight").shape;
        const given = init?.get(prefix);
        const bound = 1 / Math.sqrt(inn);
        const a = given?.a ?? Float32Array.from({ length: cfg.r * inn }, () => (2 * rand() - 1) * bound);
        const b = given?.b ?? new Float32Array(out * cfg.r);
        pairs.set(prefix, {
          a: tf.variable(tf.tensor2d(a, [cfg.r, inn]), true), // [r, in]
          b: tf.variable(tf.tensor2d(b, [out, cfg.r]), true), // [out, r]
          scale: cfg.alpha / cfg.r,
        });
      }
    for (const v of this.params.values()) v.trainable = false;
    this.loraPairs = pairs;
    this.loraConfig = cfg;
  }

  /** The adapters by module prefix (read-only view), or null. */
  adapters(): ReadonlyMap<string, LoraPair> | null {
    return this.loraPairs;
  }

  /** Runs fn with the adapters off: the base model's (reference) outputs, no second weight copy. */
  withAdaptersDisabled<R>(fn: () => R): R {
    const was = this.adaptersEnabled;
    this.adaptersEnabled = false;
    try {
      return fn();
    } finally {
      this.adaptersEnabled = was;
    }
  }

  /** What the optimizer updates: LoRA A/B when adapters are on, else every base weight. Keys are HF/PEFT names. */
  trainableVariables(): Map<string, tf.Variable> {
    const out = new Map<string, tf.Variable>();
    if (this.loraPairs) {
      for (const [p, l] of this.loraPairs) {
        out.set(`${p}.lora_A.weight`, l.a);
        out.set(`${p}.lora_B.weight`, l.b);
      }
    } else for (const [n, v] of this.params) if (v.trainable) out.set(n, v);
    return out;
  }

  /** Final hidden states [B*T, D] (after the last norm) for ids [B, T]. */
  hidden(ids: tf.Tensor2D, opts: ForwardOptions = {}): tf.Tensor2D {
    const c = this.config;
    const ctx = opts.ctx ?? this;
    const [B, T] = ids.shape;
    return tf.tidy(() => {
      const pos = opts.positions ?? (tf.tile(tf.reshape(tf.range(0, T, 1, "int32"), [1, T]), [B, 1]) as tf.Tensor2D); // [B, T]
      const maxPos = opts.positions ? (pos.dataSync() as Int32Array).reduce((m, x) => Math.max(m, x), 0) : T - 1;
      if (maxPos >= c.maxPositions) throw new Error(`position ${maxPos} exceeds max_position_embeddings ${c.maxPositions}`);
      const cos = tf.reshape(tf.gather(this.cos, pos), [B, T, 1, c.headDim]) as tf.Tensor4D; // [B, T, 1, hd]
      const sin = tf.reshape(tf.gather(this.sin, pos), [B, T, 1, c.headDim]) as tf.Tensor4D; // [B, T, 1, hd]
      const bias = opts.bias ?? causalBias(T);
      let x = tf.reshape(tf.gather(ctx.get("model.embed_tokens.weight"), tf.reshape(ids, [B * T])), [B * T, c.hiddenSize]) as tf.Tensor2D; // [B*T, D]
      const recompute = this.gradientCheckpointing && this.training && ctx === this;
      for (let l = 0; l < c.numLayers; l++) {
        const set = opts.cacheOut ? (kv: LayerCache) => void (opts.cacheOut![l] = kv) : undefined;
        x = recompute
          ? this.checkpointedBlock(l, x, B, T, { cos, sin, bias, cache: opts.cache?.[l] }, set)
          : block(c, ctx, l, x, B, T, { cos, sin, rotate: this.rotate, bias, cache: opts.cache?.[l] }, set);
      }
      return rmsNorm(x, ctx.get("model.norm.weight") as tf.Tensor1D, c.rmsNormEps) as tf.Tensor2D; // [B*T, D]
    });
  }

  /**
   * One decoder layer whose activations are recomputed in the backward pass. What gradients flow
   * to enters as an input: x, the prefix keys/values, this layer's trainable weights or adapters;
   * the recomputation reads those exact tensors, and replays the forward's dropout masks. A pass
   * that hands out its keys/values (the shared prefix, whose cache the rows' pass reads) returns
   * them packed with the output in one flat tensor, a custom gradient's single output, so that
   * gradients reach the prefix through them too.
   */
  private checkpointedBlock(
    l: number,
    x: tf.Tensor2D,
    B: number,
    T: number,
    inp: { cos: tf.Tensor4D; sin: tf.Tensor4D; bias: tf.Tensor; cache?: LayerCache },
    cacheOut?: (c: LayerCache) => void,
  ): tf.Tensor2D {
    const p = `model.layers.${l}.`;
    const weights = [...this.params].filter(([n, v]) => n.startsWith(p) && v.trainable);
    const adapters = this.adaptersEnabled && this.loraPairs ? [...this.loraPairs].filter(([m]) => m.startsWith(p)) : [];
    const inputs: tf.Tensor[] = [x, ...(inp.cache ? [inp.cache.k, inp.cache.v] : []), ...weights.map(([, v]) => v), ...adapters.flatMap(([, a]) => [a.a, a.b])];
    let kvShape: [number, number, number, number] = [0, 0, 0, 0]; // [B, KV, Tk, hd], set by the forward pass
    const out = checkpoint(
      (xs, [cos, sin, bias], io) => {
        let i = 0;
        const xIn = xs[i++] as tf.Tensor2D; // [B*T, D]
        const cache = inp.cache ? { k: xs[i++] as tf.Tensor4D, v: xs[i++] as tf.Tensor4D } : undefined; // [B, KV, P, hd]
        const given = new Map(weights.map(([n]) => [n, xs[i++]]));
        const lora = new Map<string, LoraWeights>(adapters.map(([m, a]) => [m, { a: xs[i++], b: xs[i++], scale: a.scale }]));
        let replay = 0;
        const ctx: LinearContext = {
          get: (n) => given.get(n) ?? this.get(n),
          has: (n) => this.has(n),
          lora: (m) => lora.get(m),
          loraDropout: (t) => {
            const mask = io.replayed ? io.replayed[replay++] : this.dropoutMask(t.shape);
            if (!mask) return t;
            if (!io.replayed) io.record?.(mask);
            return tf.mul(t, mask) as tf.Tensor2D;
          },
        };
        let kv: LayerCache | undefined;
        const y = block(this.config, ctx, l, xIn, B, T, { cos: cos as tf.Tensor4D, sin: sin as tf.Tensor4D, rotate: this.rotate, bias, cache }, cacheOut && ((c) => void (kv = c)));
        if (!kv) return y;
        kvShape = kv.k.shape;
        const packed = tf.concat([tf.reshape(y, [-1]), tf.reshape(kv.k, [-1]), tf.reshape(kv.v, [-1])]); // [B*T*D + 2 * B*KV*Tk*hd]
        tf.dispose([kv.k, kv.v]); // attention kept them for the caller; the packed copy is what goes out
        return packed;
      },
      inputs,
      [inp.cos, inp.sin, inp.bias],
    );
    if (!cacheOut) return out as tf.Tensor2D;
    const n = x.shape[0] * x.shape[1], nkv = kvShape.reduce((a, d) => a * d, 1);
    cacheOut({ k: tf.keep(tf.reshape(tf.slice(out, n, nkv), kvShape)) as tf.Tensor4D, v: tf.keep(tf.reshape(tf.slice(out, n + nkv, nkv), kvShape)) as tf.Tensor4D });
    return tf.reshape(tf.slice(out, 0, n), x.shape) as tf.Tensor2D; // [B*T, D]
  }

  /** The output projection: tied to the embedding or lm_head. h [N, D] → logits [N, V]. */
  head(h: tf.Tensor2D, ctx: LinearContext = this): tf.Tensor2D {
    const wt = ctx.transposed?.("lm_head");
    if (wt) return tf.matMul(h, wt); // [N, V]
    const w = ctx.get(this.config.tieWordEmbeddings ? "model.embed_tokens.weight" : "lm_head.weight") as tf.Tensor2D;
    return tf.matMul(h, w, false, true); // [N, V]
  }

  /** Logits [B, T, V] for right-padded ids (tests and debugging). */
  logits(ids: number[][]): tf.Tensor3D {
    return tf.tidy(() => {
      const { tensor, T } = padIds(ids);
      return tf.reshape(this.head(this.hidden(tensor)), [ids.length, T, this.config.vocabSize]) as tf.Tensor3D; // [B, T, V]
    });
  }

  /**
   * Differentiable per-token log-probs of the given sequences (right-padded to the longest).
   * With `only` ([B, T-1], 1 where a loss is taken), the LM head and log-softmax run at those
   * positions alone (the policy's own tokens are a small share of a rollout), the other entries
   * are 0, and a prefix all rows share before their first such position (the system prompt, the
   * tools block, for a group the task too) runs once and its keys/values are tiled to every row:
   * the same values where `only` is 1, for a fraction of the work (`sharePrefix: false` turns
   * the sharing off).
   */
  tokenLogprobs(ids: number[][], opts: { entropy?: boolean; only?: readonly (readonly number[])[]; sharePrefix?: boolean } = {}): LogprobsResult {
    const V = this.config.vocabSize;
    const B = ids.length;
    if (B === 0) throw new Error("tokenLogprobs: no sequences");
    const T = Math.max(...ids.map((r) => r.length));
    if (T < 2) throw new Error("tokenLogprobs: sequences need at least 2 tokens");
    const only = opts.only;
    // P: positions 0..P-1 run once for all rows (0: no sharing)
    const P = only && B > 1 && opts.sharePrefix !== false ? sharedPrefix(ids, only) : 0;
    // width of the part each row runs on its own; the last position predicts nothing, so it is not run
    const S = T - 1 - P;
    // rows of the [B*S, D] hidden states whose log-prob is computed (all of them without `only`)
    const rows: number[] = [];
    const targets: number[] = [];
    const scatter = only ? new Int32Array(B * (T - 1)) : undefined; // position -> 1 + index into rows (0: not computed)
    for (let b = 0; b < B; b++)
      for (let t = P; t < T - 1; t++) {
        if (only && !(only[b]?.[t] > 0)) continue;
        const tok = ids[b][t + 1] ?? 0;
        if (!(tok >= 0 && tok < V)) throw new Error(`tokenLogprobs: token id ${tok} at row ${b}, position ${t + 1} is outside the vocabulary (${V})`);
        if (scatter) scatter[b * (T - 1) + t] = rows.length + 1;
        rows.push(b * S + t - P);
        targets.push(tok);
      }
    if (only && rows.length === 0) return this.tokenLogprobs(ids, { entropy: opts.entropy });
    const M = rows.length;
    const idx = Int32Array.from(targets, (tok, i) => i * V + tok);
    const { tensor } = padIds(ids.map((r) => r.slice(P, T - 1))); // [B, S]
    let entropy: tf.Tensor2D | undefined;
    const kept: tf.Tensor[] = [];
    const logp = tf.tidy(() => {
      let h: tf.Tensor2D; // [B*S, D]
      if (P > 0) {
        const cacheOut: LayerCache[] = [];
        this.hidden(tf.tensor2d([ids[0].slice(0, P)], [1, P], "int32"), { cacheOut }); // [P, D], only its keys/values are used
        for (const c of cacheOut) kept.push(c.k, c.v);
        const cache = cacheOut.map((c) => ({ k: tf.tile(c.k, [B, 1, 1, 1]) as tf.Tensor4D, v: tf.tile(c.v, [B, 1, 1, 1]) as tf.Tensor4D })); // [B, KV, P, hd]
        const positions = tf.tensor2d(Int32Array.from({ length: B * S }, (_, i) => P + (i % S)), [B, S], "int32"); // [B, S]
        const bias = new Float32Array(S * (P + S)); // [S, P+S]: row i sees the prefix and suffix positions <= i
        for (let i = 0; i < S; i++) bias.fill(-1e9, i * (P + S) + P + i + 1, (i + 1) * (P + S));
        h = this.hidden(tensor, { positions, bias: tf.tensor(bias, [1, 1, 1, S, P + S]), cache });
      } else h = this.hidden(tensor); // [B*S, D]
      // the head's inputs: the rows computed, [M, D]
      const hs = only ? tf.gather(h, tf.tensor1d(Int32Array.from(rows), "int32")) : h; // [M, D]
      const logits = this.head(hs as tf.Tensor2D); // [M, V]
      const lse = logSumExpRows(logits); // [M]
      const picked = tf.gather(tf.reshape(logits, [M * V]), tf.tensor1d(idx, "int32")); // [M]
      // [M] values back to [B, T-1], 0 where not computed
      const spread = (x: tf.Tensor1D) =>
        (scatter ? tf.reshape(tf.gather(tf.concat([tf.zeros([1]), x]), tf.tensor1d(scatter, "int32")), [B, T - 1]) : tf.reshape(x, [B, T - 1])) as tf.Tensor2D;
      if (opts.entropy) {
        const p = tf.exp(tf.sub(logits, tf.reshape(lse, [M, 1]))); // [M, V]
        entropy = tf.keep(spread(tf.sub(lse, tf.sum(tf.mul(p, logits), 1)) as tf.Tensor1D)); // [B, T-1]
      }
      return spread(tf.sub(picked, lse) as tf.Tensor1D); // [B, T-1]
    });
    // the prefix keys/values were kept past hidden()'s tidy; the gradient tape holds its own copies
    tf.dispose(kept);
    tensor.dispose();
    return { logp, entropy };
  }

  /** The weights by HF name; with adapters on (and merge true, the default) W + scale·B·A. */
  exportWeights(merge = true): NamedWeights {
    const out: NamedWeights = new Map();
    for (const [name, v] of this.params) {
      const prefix = name.replace(/\.weight$/, "");
      const l = merge && name.endsWith(".weight") ? this.loraPairs?.get(prefix) : undefined;
      const t = l ? tf.tidy(() => tf.add(v, tf.mul(tf.matMul(l.b, l.a), l.scale))) : v; // [out, in]
      out.set(name, { shape: [...v.shape], data: t.dataSync() as Float32Array });
      if (l) t.dispose();
    }
    return out;
  }

  /** A frozen snapshot for generation: projections LoRA-merged and pre-transposed. Dispose it after use. */
  inference(): InferenceWeights {
    const t = new Map<string, tf.Tensor2D>();
    tf.tidy(() => {
      for (const [name, v] of this.params) {
        if (!name.endsWith("_proj.weight")) continue;
        const prefix = name.slice(0, -".weight".length);
        const l = this.lora(prefix);
        const w = l ? tf.add(v, tf.mul(tf.matMul(l.b, l.a), l.scale)) : v; // [out, in]
        t.set(prefix, tf.keep(tf.transpose(w) as tf.Tensor2D)); // [in, out]
      }
      const head = this.get(this.config.tieWordEmbeddings ? "model.embed_tokens.weight" : "lm_head.weight");
      t.set("lm_head", tf.keep(tf.transpose(head) as tf.Tensor2D)); // [D, V]
    });
    for (const w of t.values()) allowPackedCache(w); // read at every decode step: keep the packed copy
    return new InferenceWeights(this, t);
  }

  /** Folds the adapters into the base weights and removes them. */
  mergeAndUnloadLora(): void {
    if (!this.loraPairs) return;
    const merged = this.exportWeights(true);
    for (const [name, v] of this.params) v.assign(tf.tensor(merged.get(name)!.data, v.shape));
    this.disposeLora();
  }

  disposeLora(): void {
    for (const l of this.loraPairs?.values() ?? []) {
      l.a.dispose();
      l.b.dispose();
    }
    this.loraPairs = null;
    this.loraConfig = null;
  }

  dispose(): void {
    this.disposeLora();
    for (const v of this.params.values()) v.dispose();
    this.params.clear();
    this.cos.dispose();
    this.sin.dispose();
    this.rotate.dispose();
  }
}

/** [1, 1, 1, T, T]: 0 on and below the diagonal, -1e9 above. */
/** Shared prefixes shorter than this run per row (tiling the cache would cost more than it saves). */
const MIN_SHARED_PREFIX = 16;

/**
 * How many leading positions every row has in common and may run once: the common prefix of the
 * ids, cut before the first position whose log-prob is asked for (so every asked-for position
 * has its hidden state in the per-row part) and before each row's last token.
 */
export function sharedPrefix(ids: readonly (readonly number[])[], only: readonly (readonly number[])[]): number {
  let P = Math.min(...ids.map((r) => r.length)) - 1;
  for (let t = 0; t < P; t++)
    if (ids.some((r) => r[t] !== ids[0][t])) {
      P = t;
      break;
    }
  for (const row of only) {
    const first = row.findIndex((m) => m > 0);
    if (first >= 0) P = Math.min(P, first);
  }
  return P >= MIN_SHARED_PREFIX ? P : 0;
}

export function causalBias(T: number): tf.Tensor {
  const m = new Float32Array(T * T);
  for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) m[i * T + j] = NEG;
  return tf.tensor(m, [1, 1, 1, T, T]);
}

/** Generation-time weights: the model's own tensors plus merged, transposed projections. */
export class InferenceWeights implements LinearContext {
  constructor(
    private readonly model: Transformer,
    private readonly t: Map<string, tf.Tensor2D>,
  ) {}
  get(name: string): tf.Tensor {
    return this.model.get(name);
  }
  has(name: string): boolean {
    return this.model.has(name);
  }
  lora(): undefined {
    return undefined; // merged into the transposed weights
  }
  loraDropout(x: tf.Tensor2D): tf.Tensor2D {
    return x;
  }
  transposed(prefix: string): tf.Tensor2D | undefined {
    return this.t.get(prefix);
  }
  dispose(): void {
    for (const x of this.t.values()) x.dispose();
    this.t.clear();
  }
}
