/**
 * The policy on onnxruntime: one session over the generated graph (policy-graph.ts), a forward
 * step with a KV cache, and a weight refresh. Two ways to carry the weights, chosen by measurement
 * (see bench/sampling.ts):
 *  - "initializer" (the default below 1.5 GiB of weights): weights baked into the model bytes; a refresh re-encodes the model in
 *    memory and opens a new session (tens of ms on the reference shape, once per training step).
 *    Constant weights let onnxruntime pre-pack the MatMul operands, which makes every decode step
 *    faster, and decode steps outnumber refreshes by hundreds to one.
 *  - "input": weights are graph inputs fed from Float32Arrays on every run (no copy, refresh is
 *    free); also avoids the 2 GiB protobuf limit for big checkpoints.
 */
import type { ModelConfig } from "../config.js";
import type { NamedWeights } from "../weights.js";
import { attentionBias, buildPolicyGraph, prepareGraphWeights, type GraphWeight, type PolicyGraphOptions } from "./policy-graph.js";
import { encodeModel } from "./proto.js";
import { createSession, ort, type OrtSessionOptions } from "./session.js";

export interface OrtPolicyOptions extends Omit<PolicyGraphOptions, "weightsAs"> {
  /** "auto" (default): initializers below 1.5 GiB of weights, inputs above */
  weightsAs?: "auto" | "initializer" | "input";
  session?: OrtSessionOptions;
}

export interface StepInput {
  /** [B, T] token ids, rectangular */
  ids: number[][];
  /** [B, T] rotary positions */
  positions: number[][];
  /** [B, 1, T, C+T] additive mask (policy-graph.ts `attentionBias`), C = the cache capacity */
  bias: Float32Array;
  /** the cache to attend to; null for none (a prefill) */
  past: KvCache | null;
}

/** The step input that prefills `prompts` in one run: each left-padded (with `padId`) to the
 *  longest, T, its positions counting real tokens only, the pads masked. */
export function prefillInput(prompts: number[][], padId = 0): { input: StepInput; T: number; pads: number[] } {
  const T = Math.max(...prompts.map((p) => p.length));
  const pads = prompts.map((p) => T - p.length);
  const input: StepInput = {
    ids: prompts.map((p, b) => [...new Array<number>(pads[b]).fill(padId), ...p]),
    positions: prompts.map((_, b) => Array.from({ length: T }, (_, t) => Math.max(0, t - pads[b]))),
    bias: attentionBias(pads, 0, 0, T),
    past: null,
  };
  return { input, T, pads };
}

export interface StepOutput {
  /** [B, T, V] (logits "all") or [B, V] (logits "last") */
  logits: Float32Array;
  /** per layer, the new tokens' keys and values [B, KVH, T, HD], to `KvCache.append` */
  newKeys: Float32Array[];
  newValues: Float32Array[];
}

/** One version of the weights: a session and, for weights as inputs, the feeds (then versions
 *  share one session). */
interface Loaded {
  session: ort.InferenceSession;
  weightFeeds: Record<string, ort.Tensor>;
}

// protobuf messages stop at 2 GiB: above this, "auto" feeds the weights as inputs
const INITIALIZER_LIMIT = 1.5 * 2 ** 30;

export class OrtPolicy {
  /** generations in flight per session: a replaced session is released when its count is 0 */
  private readonly users = new Map<ort.InferenceSession, number>();
  private readonly released = new WeakSet<ort.InferenceSession>();
  private closed = false;

  private constructor(
    readonly config: ModelConfig,
    private current: Loaded,
    private readonly weightsAs: "initializer" | "input",
    private readonly opts: OrtPolicyOptions,
  ) {}

  /** `weightsAs` "auto" (the default): initializers, or inputs when the weights pass 1.5 GiB. */
  static async create(config: ModelConfig, weights: NamedWeights, opts: OrtPolicyOptions = {}): Promise<OrtPolicy> {
    const prepared = prepareGraphWeights(config, weights);
    const bytes = prepared.reduce((sum, w) => sum + w.data.byteLength, 0);
    const mode = opts.weightsAs === "input" || (opts.weightsAs !== "initializer" && bytes > INITIALIZER_LIMIT) ? "input" : "initializer";
    const session = await createSession(encodeModel(buildPolicyGraph(config, mode === "input" ? null : prepared, { ...opts, weightsAs: mode })), opts.session);
    const loaded: Loaded = { session, weightFeeds: mode === "input" ? OrtPolicy.feedsOf(prepared) : {} };
    return new OrtPolicy(config, loaded, mode, opts);
  }

  private static feedsOf(prepared: GraphWeight[]): Record<string, ort.Tensor> {
    const feeds: Record<string, ort.Tensor> = {};
    for (const w of prepared) feeds[w.name] = new ort.Tensor("float32", w.data, w.dims);
    return feeds;
  }

  /** How the weights reach the graph (after resolving "auto"). */
  get weightMode(): "initializer" | "input" {
    return this.weightsAs;
  }

  /**
   * Makes later runs use these weights; the outputs are exactly those of a fresh build. Runs
   * already pinned (a generation in progress) finish on the weights they started with.
   */
  async updateWeights(weights: NamedWeights): Promise<void> {
    const prepared = prepareGraphWeights(this.config, weights);
    const old = this.current;
    if (this.weightsAs === "input") {
      this.current = { session: old.session, weightFeeds: OrtPolicy.feedsOf(prepared) };
    } else {
      const model = buildPolicyGraph(this.config, prepared, { ...this.opts, weightsAs: "initializer" });
      this.current = { session: await createSession(encodeModel(model), this.opts.session), weightFeeds: {} };
    }
    await this.releaseIfUnused(old.session);
  }

  private async releaseIfUnused(session: ort.InferenceSession): Promise<void> {
    if ((this.users.get(session) ?? 0) > 0 || (session === this.current.session && !this.closed)) return;
    if (this.released.has(session)) return;
    this.released.add(session);
    this.users.delete(session);
    await session.release();
  }

  /** Runs `fn` with one weight version for its whole duration (a whole generation). */
  async pinned<R>(fn: (step: (input: StepInput) => Promise<StepOutput>) => Promise<R>): Promise<R> {
    if (this.closed) throw new Error("OrtPolicy: used after release()");
    const v = this.current;
    this.users.set(v.session, (this.users.get(v.session) ?? 0) + 1);
    try {
      return await fn((input) => this.run(v, input));
    } finally {
      this.users.set(v.session, this.users.get(v.session)! - 1);
      await this.releaseIfUnused(v.session);
    }
  }

  /** One forward step on the current weights. */
  async step(input: StepInput): Promise<StepOutput> {
    return this.pinned((step) => step(input));
  }

  private async run(v: Loaded, input: StepInput): Promise<StepOutput> {
    const B = input.ids.length, T = input.ids[0]?.length ?? 0;
    const C = input.past?.capacity ?? 0;
    if (input.bias.length !== B * T * (C + T)) throw new Error(`OrtPolicy.step: attn_bias has ${input.bias.length} values, expected B*T*(C+T) = ${B}*${T}*${C + T}`);
    if (input.past && input.past.batch !== B) throw new Error(`OrtPolicy.step: cache holds ${input.past.batch} rows, batch has ${B}`);
    const flat = (rows: number[][]) => {
      const out = new BigInt64Array(B * T);
      for (let b = 0; b < B; b++) {
        if (rows[b].length !== T) throw new Error(`OrtPolicy.step: row ${b} has ${rows[b].length} tokens, expected ${T} (rows must be rectangular)`);
        for (let t = 0; t < T; t++) out[b * T + t] = BigInt(rows[b][t]);
      }
      return out;
    };
    const feeds: Record<string, ort.Tensor> = {
      ...v.weightFeeds,
      input_ids: new ort.Tensor("int64", flat(input.ids), [B, T]),
      position_ids: new ort.Tensor("int64", flat(input.positions), [B, T]),
      attn_bias: new ort.Tensor("float32", input.bias, [B, 1, T, C + T]),
    };
    const c = this.config, dims = [B, c.numKvHeads, C, c.headDim];
    const empty = new Float32Array(0);
    for (let l = 0; l < c.numLayers; l++) {
      // the buffers are read in place: onnxruntime-node wraps the typed arrays, no copy
      feeds[`past_key_${l}`] = new ort.Tensor("float32", input.past?.keys[l] ?? empty, dims);
      feeds[`past_value_${l}`] = new ort.Tensor("float32", input.past?.values[l] ?? empty, dims);
    }
    const out = await v.session.run(feeds);
    const newKeys: Float32Array[] = [], newValues: Float32Array[] = [];
    for (let l = 0; l < c.numLayers; l++) {
      newKeys.push(out[`new_key_${l}`].data as Float32Array);
      newValues.push(out[`new_value_${l}`].data as Float32Array);
    }
    return { logits: out.logits.data as Float32Array, newKeys, newValues };
  }

  /** Logits for right-padded sequences with no cache (rows padded with 0; causal attention keeps
   *  real positions from seeing the padding): [B, T, V] for a logits-"all" policy. */
  async forward(ids: number[][]): Promise<{ logits: Float32Array; T: number }> {
    const T = Math.max(...ids.map((r) => r.length));
    const out = await this.step({
      ids: ids.map((r) => [...r, ...new Array<number>(T - r.length).fill(0)]),
      positions: ids.map(() => Array.from({ length: T }, (_, t) => t)),
      bias: attentionBias(new Array<number>(ids.length).fill(0), 0, 0, T),
      past: null,
    });
    return { logits: out.logits, T };
  }

  /** Releases the session (after any pinned generation finishes). */
  async release(): Promise<void> {
    this.closed = true;
    await this.releaseIfUnused(this.current.session);
  }
}

/**
 * The KV cache of one batch: per layer, key and value buffers [B, KVH, capacity, HD] of which the
 * first `filled` slots hold positions. Appending writes the new tokens' rows in place; a full
 * buffer doubles (amortized O(1) per token), or grows by what the caller `reserve`s. The graph
 * attends over the whole capacity (unfilled slots masked), so a caller keeps it close to the
 * filled length.
 */
export class KvCache {
  keys: Float32Array[];
  values: Float32Array[];
  filled = 0;

  constructor(
    readonly layers: number,
    public batch: number,
    readonly kvHeads: number,
    readonly headDim: number,
    public capacity: number,
  ) {
    const n = batch * kvHeads * capacity * headDim;
    this.keys = Array.from({ length: layers }, () => new Float32Array(n));
    this.values = Array.from({ length: layers }, () => new Float32Array(n));
  }

  static for(c: ModelConfig, batch: number, capacity: number): KvCache {
    return new KvCache(c.numLayers, batch, c.numKvHeads, c.headDim, capacity);
  }

  /** Re-lays the buffers with a new capacity and/or a subset of rows (in order), every kept slot
   *  moved `shift` slots (a negative shift drops that many leading slots), `extraRows` zeroed rows
   *  after them. */
  private relayout(capacity: number, rows: number[], shift = 0, extraRows = 0): void {
    const HD = this.headDim, KVH = this.kvHeads, oldCap = this.capacity;
    const from = Math.max(0, -shift), len = (this.filled - from) * HD;
    const move = (src: Float32Array) => {
      const dst = new Float32Array((rows.length + extraRows) * KVH * capacity * HD);
      rows.forEach((r, i) => {
        for (let h = 0; h < KVH; h++) {
          const s = ((r * KVH + h) * oldCap + from) * HD, d = ((i * KVH + h) * capacity + from + shift) * HD;
          dst.set(src.subarray(s, s + len), d);
        }
      });
      return dst;
    };
    this.keys = this.keys.map(move);
    this.values = this.values.map(move);
    this.capacity = capacity;
    this.batch = rows.length + extraRows;
    this.filled += shift;
  }

  /** Makes room for at least `capacity` slots (no-op when there is). */
  reserve(capacity: number): void {
    if (capacity > this.capacity) this.relayout(capacity, Array.from({ length: this.batch }, (_, i) => i));
  }

  /** Writes T new positions per row (from `OrtPolicy.step`) after the filled ones. */
  append(newKeys: Float32Array[], newValues: Float32Array[], T: number): void {
    if (this.filled + T > this.capacity) this.reserve(Math.max(this.filled + T, 2 * this.capacity));
    const HD = this.headDim, KVH = this.kvHeads, C = this.capacity;
    for (let l = 0; l < this.layers; l++) {
      for (const [src, dst] of [[newKeys[l], this.keys[l]], [newValues[l], this.values[l]]] as const) {
        for (let bh = 0; bh < this.batch * KVH; bh++) {
          dst.set(src.subarray(bh * T * HD, (bh + 1) * T * HD), (bh * C + this.filled) * HD);
        }
      }
    }
    this.filled += T;
  }

  /** Keeps only the listed rows (finished sequences leave the batch). `dropLeading` slots that
   *  every kept row pads are dropped too, and the capacity shrinks to fit what is left. */
  selectRows(rows: number[], dropLeading = 0): void {
    const filled = this.filled - dropLeading;
    const capacity = dropLeading > 0 ? Math.min(this.capacity, Math.max(2 * filled, filled + 64)) : this.capacity;
    this.relayout(capacity, rows, -dropLeading);
  }

  /** Adds `rows` rows prefilled on their own (`OrtPolicy.step` with no past: [rows, KVH, T, HD]
   *  per layer), right-aligned with the filled slots. When T exceeds the filled slots, every
   *  existing row moves right by the difference, which is returned (their left pad grows by it). */
  admit(newKeys: Float32Array[], newValues: Float32Array[], rows: number, T: number): number {
    const shift = Math.max(0, T - this.filled), old = this.batch;
    this.relayout(Math.max(this.capacity, this.filled + shift + 64), Array.from({ length: old }, (_, i) => i), shift, rows);
    const HD = this.headDim, KVH = this.kvHeads, C = this.capacity, at = this.filled - T;
    for (let l = 0; l < this.layers; l++) {
      for (const [src, dst] of [[newKeys[l], this.keys[l]], [newValues[l], this.values[l]]] as const) {
        for (let bh = 0; bh < rows * KVH; bh++) {
          dst.set(src.subarray(bh * T * HD, (bh + 1) * T * HD), ((old * KVH + bh) * C + at) * HD);
        }
      }
    }
    return shift;
  }
}
