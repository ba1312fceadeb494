/**
 * The policy's forward pass as an ONNX graph, generated from the model config. It follows
 * transformers' `modeling_qwen2.py` / `modeling_llama.py` / `modeling_qwen3.py`: RMSNorm, rotary
 * embeddings in the rotate_half convention at the given `position_ids` (so left-padded batches
 * work) with the config's rope_scaling (linear, llama3), grouped-query attention, SwiGLU MLP,
 * tied or untied head, Qwen2 q/k/v biases, Llama `attention_bias` / `mlp_bias`, Qwen3 per-head
 * q/k norms. One graph serves prefill and decode.
 *
 * The KV cache is a caller-owned buffer, `past_key_i` / `past_value_i` [B, KVH, C, HD], of some
 * capacity C (0 for a prefill); the graph attends to it and to the T new tokens, and returns only
 * the new keys and values (`new_key_i` / `new_value_i`, [B, KVH, T, HD]), which the caller writes
 * into the buffer (ort-policy.ts, `KvCache`). So neither the graph (no Concat of the cache) nor the
 * binding (no copy-out of a growing present tensor) moves the cache on each step: onnxruntime-node
 * reads input typed arrays in place. Which cache slots are filled is told by the mask.
 *
 * Masking is an input, `attn_bias` [B, 1, T, C+T]: 0 where a query may attend, -1e9 elsewhere
 * (unfilled cache slots, padding, the causal future; `attentionBias`). A finite value keeps fully
 * masked pad rows finite, so no NaN can leak from pad positions into real ones.
 *
 * Weights are prepared once into graph layout (`prepareGraphWeights`): Linear weights transposed to
 * [in, out], q/k/v fused into one matrix and gate/up into another (fewer, larger MatMuls: decode is
 * dominated by per-op overhead). They become initializers, or graph inputs (`weightsAs: "input"`).
 */
import type { ModelConfig } from "../config.js";
import { ropeInvFreq } from "../model/layers.js";
import { weightShapes, type NamedWeights } from "../weights.js";
import { GraphBuilder, int, ints } from "./graph-builder.js";
import { DataType, type ModelDef } from "./proto.js";

export interface GraphWeight {
  name: string;
  dims: number[];
  data: Float32Array;
}

export interface PolicyGraphOptions {
  /** "initializer" (default): weights baked into the model; "input": fed at every run */
  weightsAs?: "initializer" | "input";
  /** "all" (default): logits [B, T, V] for every position; "last": [B, V] for the last one only */
  logits?: "all" | "last";
}

export interface PrepareOptions {
  /** tied models: "copy" (default) keeps a transposed copy of the embedding as the head (one
   *  MatMul, no per-run Transpose when weights are fed as inputs); "shared" stores the embedding
   *  once and the graph transposes it (onnxruntime folds that at load): half the file for export */
  tiedHead?: "copy" | "shared";
}

// -1e9, not -inf: a fully masked (pad) row then softmaxes to a finite uniform row
export const MASKED = -1e9;

function transpose(src: Float32Array, rows: number, cols: number, dst: Float32Array, dstCols: number, colOffset: number): void {
  // src [rows, cols] (HF [out, in]) → dst[c, colOffset + r] in a [cols, dstCols] matrix
  if (dst.length === 0) return; // shapes only
  // 32x32 tiles keep both the strided reads and the strided writes in cache
  const tile = 32;
  for (let r0 = 0; r0 < rows; r0 += tile) {
    const r1 = Math.min(rows, r0 + tile);
    for (let c0 = 0; c0 < cols; c0 += tile) {
      const c1 = Math.min(cols, c0 + tile);
      for (let c = c0; c < c1; c++) {
        const d = c * dstCols + colOffset;
        for (let r = r0; r < r1; r++) dst[d + r] = src[r * cols + c];
      }
    }
  }
}

const NONE = new Float32Array(0);

function get(w: NamedWeights | null, name: string): Float32Array {
  if (!w) return NONE;
  const t = w.get(name);
  if (!t) throw new Error(`onnx policy graph: weight "${name}" is missing`);
  return t.data;
}

/** HF weights → graph layout (see the file comment). Names here are the graph's own. With
 *  `w` null, only names and dims (empty data): the inputs of a weights-as-inputs graph. */
export function prepareGraphWeights(c: ModelConfig, w: NamedWeights | null, opts: PrepareOptions = {}): GraphWeight[] {
  const alloc = (n: number) => (w ? new Float32Array(n) : NONE);
  const scale = 1 / Math.sqrt(c.headDim);
  // which optional tensors this architecture has (o_proj / MLP biases of Llama-style configs)
  const shapes = weightShapes(c);
  const has = (name: string) => shapes.has(name);
  const D = c.hiddenSize, HD = c.headDim, Q = c.numHeads * HD, KV = c.numKvHeads * HD, I = c.intermediateSize, V = c.vocabSize;
  const out: GraphWeight[] = [{ name: "embed", dims: [V, D], data: get(w, "model.embed_tokens.weight") }];
  for (let l = 0; l < c.numLayers; l++) {
    const p = `model.layers.${l}.`;
    out.push({ name: `l${l}.ln1`, dims: [D], data: get(w, p + "input_layernorm.weight") });
    const qkv = alloc(D * (Q + 2 * KV)); // [D, Q+2KV]
    transpose(get(w, p + "self_attn.q_proj.weight"), Q, D, qkv, Q + 2 * KV, 0);
    transpose(get(w, p + "self_attn.k_proj.weight"), KV, D, qkv, Q + 2 * KV, Q);
    transpose(get(w, p + "self_attn.v_proj.weight"), KV, D, qkv, Q + 2 * KV, Q + KV);
    // the attention scale 1/sqrt(HD) folds into q (RoPE is linear): into q's weight and bias, or,
    // with q/k norms, into the q norm's scale (applied after the projection)
    if (!c.qkNorm) for (let r = 0; w && r < D; r++) for (let j = 0; j < Q; j++) qkv[r * (Q + 2 * KV) + j] *= scale;
    out.push({ name: `l${l}.qkv`, dims: [D, Q + 2 * KV], data: qkv });
    if (c.qkvBias) {
      const b = alloc(Q + 2 * KV);
      if (w) {
        b.set(get(w, p + "self_attn.q_proj.bias"), 0);
        b.set(get(w, p + "self_attn.k_proj.bias"), Q);
        b.set(get(w, p + "self_attn.v_proj.bias"), Q + KV);
        if (!c.qkNorm) for (let j = 0; j < Q; j++) b[j] *= scale;
      }
      out.push({ name: `l${l}.qkv_bias`, dims: [Q + 2 * KV], data: b });
    }
    if (c.qkNorm) {
      out.push({ name: `l${l}.q_norm`, dims: [HD], data: get(w, p + "self_attn.q_norm.weight").map((x) => x * scale) });
      out.push({ name: `l${l}.k_norm`, dims: [HD], data: get(w, p + "self_attn.k_norm.weight") });
    }
    const o = alloc(Q * D); // [Q, D]
    transpose(get(w, p + "self_attn.o_proj.weight"), D, Q, o, D, 0);
    out.push({ name: `l${l}.o`, dims: [Q, D], data: o });
    if (has(p + "self_attn.o_proj.bias")) out.push({ name: `l${l}.o_bias`, dims: [D], data: get(w, p + "self_attn.o_proj.bias") });
    out.push({ name: `l${l}.ln2`, dims: [D], data: get(w, p + "post_attention_layernorm.weight") });
    const gu = alloc(D * 2 * I); // [D, 2I]
    transpose(get(w, p + "mlp.gate_proj.weight"), I, D, gu, 2 * I, 0);
    transpose(get(w, p + "mlp.up_proj.weight"), I, D, gu, 2 * I, I);
    out.push({ name: `l${l}.gate_up`, dims: [D, 2 * I], data: gu });
    if (has(p + "mlp.gate_proj.bias")) {
      const b = alloc(2 * I);
      if (w) {
        b.set(get(w, p + "mlp.gate_proj.bias"), 0);
        b.set(get(w, p + "mlp.up_proj.bias"), I);
      }
      out.push({ name: `l${l}.gate_up_bias`, dims: [2 * I], data: b });
    }
    const down = alloc(I * D); // [I, D]
    transpose(get(w, p + "mlp.down_proj.weight"), D, I, down, D, 0);
    out.push({ name: `l${l}.down`, dims: [I, D], data: down });
    if (has(p + "mlp.down_proj.bias")) out.push({ name: `l${l}.down_bias`, dims: [D], data: get(w, p + "mlp.down_proj.bias") });
  }
  out.push({ name: "norm", dims: [D], data: get(w, "model.norm.weight") });
  if (c.tieWordEmbeddings && opts.tiedHead === "shared") return out; // the graph makes "head" from "embed"
  const head = alloc(D * V); // [D, V]
  transpose(c.tieWordEmbeddings ? get(w, "model.embed_tokens.weight") : get(w, "lm_head.weight"), V, D, head, V, 0);
  out.push({ name: "head", dims: [D, V], data: head });
  return out;
}

/** Builds the graph; weights go in as initializers or as inputs (then `weights` may be omitted). */
export function buildPolicyGraph(c: ModelConfig, weights: GraphWeight[] | null, opts: PolicyGraphOptions = {}): ModelDef {
  const g = new GraphBuilder();
  const D = c.hiddenSize, H = c.numHeads, KVH = c.numKvHeads, HD = c.headDim, G = H / KVH;
  const Q = H * HD, KV = KVH * HD, I = c.intermediateSize, V = c.vocabSize;
  const asInput = opts.weightsAs === "input";
  if (!asInput && !weights) throw new Error("buildPolicyGraph: weights are required when weightsAs is \"initializer\"");

  const ids = g.input("input_ids", DataType.INT64, ["batch", "seq"]);
  const pos = g.input("position_ids", DataType.INT64, ["batch", "seq"]);
  const bias = g.input("attn_bias", DataType.FLOAT, ["batch", 1, "seq", "cache_len_plus_seq"]);
  const past: { k: string; v: string }[] = [];
  for (let l = 0; l < c.numLayers; l++) {
    past.push({
      k: g.input(`past_key_${l}`, DataType.FLOAT, ["batch", KVH, "cache_len", HD]),
      v: g.input(`past_value_${l}`, DataType.FLOAT, ["batch", KVH, "cache_len", HD]),
    });
  }
  const W = new Map<string, string>();
  for (const w of weights ?? prepareGraphWeights(c, null)) {
    W.set(w.name, asInput ? g.input(w.name, DataType.FLOAT, w.dims) : g.f32(w.name, w.dims, w.data));
  }
  const wt = (name: string) => W.get(name) ?? (() => { throw new Error(`graph weight ${name} missing`); })();
  const plusBias = (x: string, name: string) => (W.has(name) ? g.op("Add", [x, wt(name)]) : x);

  // RMSNorm as Pow/ReduceMean/Add/Sqrt/Div/Mul: the pattern onnxruntime fuses into its
  // SimplifiedLayerNormalization kernel (opset 17: ReduceMean takes axes as an attribute)
  const rms = (x: string, weight: string) => {
    const ms = g.op("ReduceMean", [g.op("Pow", [x, g.scalarF32(2)])], { axes: ints([-1]), keepdims: int(1) });
    const denom = g.op("Sqrt", [g.op("Add", [ms, g.scalarF32(c.rmsNormEps)])]);
    return g.op("Mul", [g.op("Div", [x, denom]), weight]);
  };

  // rotary tables from the positions, in float32 like HF: angle = pos * inv_freq, with inv_freq
  // repeated for both halves (HF's emb = cat(freqs, freqs)); rotate_half(x) = [-x2, x1] is a
  // signed permutation, applied as one MatMul (exact: entries are 0 and ±1)
  const invFreq = new Float32Array(HD);
  // rope_scaling (linear, llama3) from the HF config, computed as the tfjs model does
  const inv = ropeInvFreq(HD, c.ropeTheta, c.ropeScaling);
  for (let i = 0; i < HD / 2; i++) invFreq[i] = invFreq[i + HD / 2] = inv[i];
  const rot = new Float32Array(HD * HD); // [HD, HD]: (x @ rot)[j] = -x[j + HD/2] for j < HD/2, x[j - HD/2] after
  for (let j = 0; j < HD / 2; j++) {
    rot[(j + HD / 2) * HD + j] = -1;
    rot[j * HD + j + HD / 2] = 1;
  }
  const angle = g.op("Mul", [g.op("Unsqueeze", [g.op("Cast", [pos], { to: int(DataType.FLOAT) }), g.i64([-1])]), g.f32("rope_inv_freq", [HD], invFreq)]); // [B, T, HD]
  const cos = g.op("Unsqueeze", [g.op("Cos", [angle]), g.i64([2])]); // [B, T, 1, HD]
  const sin = g.op("Unsqueeze", [g.op("Sin", [angle]), g.i64([2])]);
  const rotW = g.f32("rope_rotate_half", [HD, HD], rot);
  const rope = (x: string) => g.op("Add", [g.op("Mul", [x, cos]), g.op("Mul", [g.op("MatMul", [x, rotW]), sin])]); // x cos + rotate_half(x) sin

  // the mask repeated for the G query heads of each KV head: rows ordered (g, t)
  const biasG = G === 1 ? bias : g.op("Tile", [bias, g.i64([1, 1, G, 1])]); // [B, 1, G*T, S]
  const cacheLen = g.op("Shape", [past[0].k], { start: int(2), end: int(3) }); // [1]: C
  const zero = g.i64([0]), minusOne = g.i64([-1]), big = g.i64([2 ** 31 - 1]);

  let x = g.op("Gather", [wt("embed"), ids], { axis: int(0) }); // [B, T, D]
  for (let l = 0; l < c.numLayers; l++) {
    // attention
    const h = rms(x, wt(`l${l}.ln1`));
    const qkv = plusBias(g.op("MatMul", [h, wt(`l${l}.qkv`)]), `l${l}.qkv_bias`); // [B, T, Q+2KV]
    // q and k share one rotary pass: [B, T, H+KVH, HD]
    let qk: string, v0: string;
    if (c.qkNorm) {
      const [q0, k0, v1] = g.opN("Split", [qkv, g.i64([Q, KV, KV])], 3, { axis: int(-1) });
      const q = rms(g.op("Reshape", [q0, g.i64([0, 0, H, HD])]), wt(`l${l}.q_norm`)); // [B, T, H, HD]
      const k = rms(g.op("Reshape", [k0, g.i64([0, 0, KVH, HD])]), wt(`l${l}.k_norm`)); // [B, T, KVH, HD]
      qk = g.op("Concat", [q, k], { axis: int(2) });
      v0 = v1;
    } else {
      const [qk0, v1] = g.opN("Split", [qkv, g.i64([Q + KV, KV])], 2, { axis: int(-1) });
      qk = g.op("Reshape", [qk0, g.i64([0, 0, H + KVH, HD])]);
      v0 = v1;
    }
    const [qr, kr] = g.opN("Split", [rope(qk), g.i64([H, KVH])], 2, { axis: int(2) });
    const q = g.op("Transpose", [qr], { perm: ints([0, 2, 1, 3]) }); // [B, H, T, HD], already scaled by 1/sqrt(HD)
    const k = g.op("Transpose", [kr], { perm: ints([0, 2, 1, 3]) }); // [B, KVH, T, HD]
    const vt = g.op("Transpose", [g.op("Reshape", [v0, g.i64([0, 0, KVH, HD])])], { perm: ints([0, 2, 1, 3]) }); // [B, KVH, T, HD]
    // attention over [cache | new]: scores against the cache buffer and against the new keys,
    // joined along the key axis; the cache itself is never copied (see the file comment)
    const qg = g.op("Reshape", [q, g.i64([0, KVH, -1, HD])]); // [B, KVH, G*T, HD]
    const sPast = g.op("MatMul", [qg, g.op("Transpose", [past[l].k], { perm: ints([0, 1, 3, 2]) })]); // [B, KVH, G*T, C]
    const sNew = g.op("MatMul", [qg, g.op("Transpose", [k], { perm: ints([0, 1, 3, 2]) })]); // [B, KVH, G*T, T]
    const scores = g.op("Add", [g.op("Concat", [sPast, sNew], { axis: int(-1) }), biasG]); // [B, KVH, G*T, C+T]
    const probs = g.op("Softmax", [scores], { axis: int(-1) });
    const pPast = g.op("Slice", [probs, zero, cacheLen, minusOne]); // [B, KVH, G*T, C]
    const pNew = g.op("Slice", [probs, cacheLen, big, minusOne]); // [B, KVH, G*T, T]
    const o = g.op("Add", [g.op("MatMul", [pPast, past[l].v]), g.op("MatMul", [pNew, vt])]); // [B, KVH, G*T, HD]
    g.op("Identity", [k], undefined, { name: `new_key_${l}` });
    g.op("Identity", [vt], undefined, { name: `new_value_${l}` });
    const oh = g.op("Transpose", [g.op("Reshape", [o, g.i64([0, H, -1, HD])])], { perm: ints([0, 2, 1, 3]) }); // [B, T, H, HD]
    x = g.op("Add", [x, plusBias(g.op("MatMul", [g.op("Reshape", [oh, g.i64([0, 0, Q])]), wt(`l${l}.o`)]), `l${l}.o_bias`)]);
    // SwiGLU MLP
    const h2 = rms(x, wt(`l${l}.ln2`));
    const [gate, up] = g.opN("Split", [plusBias(g.op("MatMul", [h2, wt(`l${l}.gate_up`)]), `l${l}.gate_up_bias`), g.i64([I, I])], 2, { axis: int(-1) }); // [B, T, I] each
    const act = g.op("Mul", [g.op("Mul", [gate, g.op("Sigmoid", [gate])]), up]);
    x = g.op("Add", [x, plusBias(g.op("MatMul", [act, wt(`l${l}.down`)]), `l${l}.down_bias`)]);
  }
  const last = opts.logits === "last";
  const xf = last ? g.op("Gather", [x, g.i64([-1], [])], { axis: int(1) }) : x; // [B, D] or [B, T, D]
  // a tied head stored once (PrepareOptions.tiedHead "shared") is the embedding transposed
  const head = W.has("head") || !c.tieWordEmbeddings ? wt("head") : g.op("Transpose", [wt("embed")], { perm: ints([1, 0]) }); // [D, V]
  const logits = g.op("MatMul", [rms(xf, wt("norm")), head]);
  g.output(logits, "logits", DataType.FLOAT, last ? ["batch", V] : ["batch", "seq", V]);
  for (let l = 0; l < c.numLayers; l++) {
    g.outputs.push({ name: `new_key_${l}`, dataType: DataType.FLOAT, dims: ["batch", KVH, "seq", HD] });
    g.outputs.push({ name: `new_value_${l}`, dataType: DataType.FLOAT, dims: ["batch", KVH, "seq", HD] });
  }
  return g.model("train_mcp_policy", [{ domain: "", version: 17 }]);
}

/**
 * The additive attention bias for a left-padded batch: `padLeft[b]` pad tokens precede row b's
 * real tokens; the cache buffer has `capacity` slots of which the first `filled` hold earlier
 * positions; the T new tokens take positions filled .. filled+T-1. Query t of row b may attend a
 * filled, non-pad cache slot, and new token u <= t unless it is a pad. Pad queries attend to
 * themselves only (kept finite). Result [B, 1, T, capacity + T].
 */
export function attentionBias(padLeft: number[], filled: number, capacity: number, T: number): Float32Array {
  if (filled > capacity) throw new Error(`attentionBias: filled ${filled} > capacity ${capacity}`);
  const B = padLeft.length, S = capacity + T;
  const out = new Float32Array(B * T * S).fill(MASKED); // [B, 1, T, C+T]
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      const q = filled + t, row = (b * T + t) * S;
      if (q < padLeft[b]) {
        out[row + capacity + t] = 0;
        continue;
      }
      for (let j = padLeft[b]; j < filled; j++) out[row + j] = 0;
      for (let u = Math.max(0, padLeft[b] - filled); u <= t; u++) out[row + capacity + u] = 0;
    }
  }
  return out;
}
