/**
 * A plain-JS float64 forward pass of the decoder (transformers' `modeling_qwen2.py` /
 * `modeling_llama.py` / `modeling_qwen3.py`, read line by line), used as the independent reference
 * for the ONNX graph: no batching, no cache, no tricks, one sequence at a time, HF tensor names and
 * [out, in] layouts. Slow and obvious on purpose.
 */
import type { ModelConfig } from "../../src/policy/config.js";
import type { NamedWeights } from "../../src/policy/weights.js";

function w(ws: NamedWeights, name: string): Float32Array {
  const t = ws.get(name);
  if (!t) throw new Error(`reference: missing ${name}`);
  return t.data;
}

/** y = x W^T (+ b) with W [out, in] */
function linear(x: Float64Array, W: Float32Array, out: number, bias?: Float32Array): Float64Array {
  const inn = x.length, y = new Float64Array(out);
  for (let o = 0; o < out; o++) {
    let s = bias ? bias[o] : 0;
    for (let i = 0; i < inn; i++) s += x[i] * W[o * inn + i];
    y[o] = s;
  }
  return y;
}

function rmsNorm(x: Float64Array, weight: Float32Array, eps: number): Float64Array {
  let ms = 0;
  for (const v of x) ms += v * v;
  const r = 1 / Math.sqrt(ms / x.length + eps);
  return x.map((v, i) => v * r * weight[i]);
}

/** rotate_half RoPE; `factor` is the rope_scaling factor of HF's "linear" type (1: none) */
function rope(x: Float64Array, pos: number, theta: number, factor: number): Float64Array {
  const d = x.length, h = d / 2, out = new Float64Array(d);
  for (let i = 0; i < h; i++) {
    const a = pos / Math.pow(theta, (2 * i) / d) / factor;
    const c = Math.cos(a), s = Math.sin(a);
    out[i] = x[i] * c - x[i + h] * s;
    out[i + h] = x[i + h] * c + x[i] * s;
  }
  return out;
}

/** Logits [T][V] for one sequence whose tokens sit at positions start, start+1, ... */
export function referenceLogits(c: ModelConfig, ws: NamedWeights, ids: number[], start = 0): Float64Array[] {
  const D = c.hiddenSize, H = c.numHeads, KVH = c.numKvHeads, HD = c.headDim, G = H / KVH, I = c.intermediateSize, V = c.vocabSize;
  const T = ids.length;
  const emb = w(ws, "model.embed_tokens.weight");
  const opt = (name: string) => ws.get(name)?.data; // optional biases (Llama attention_bias / mlp_bias)
  const scaling = (c.raw as { rope_scaling?: { rope_type?: string; factor?: number } }).rope_scaling;
  if (scaling && scaling.rope_type !== "linear") throw new Error("reference: only linear rope_scaling");
  const ropeFactor = scaling?.factor ?? 1;
  let xs: Float64Array[] = ids.map((id) => Float64Array.from(emb.subarray(id * D, (id + 1) * D)));
  for (let l = 0; l < c.numLayers; l++) {
    const p = `model.layers.${l}.`;
    const b = (n: string) => (c.qkvBias ? w(ws, p + n) : undefined);
    const qs: Float64Array[][] = [], ks: Float64Array[][] = [], vs: Float64Array[][] = [];
    for (let t = 0; t < T; t++) {
      const h = rmsNorm(xs[t], w(ws, p + "input_layernorm.weight"), c.rmsNormEps);
      const q = linear(h, w(ws, p + "self_attn.q_proj.weight"), H * HD, b("self_attn.q_proj.bias"));
      const k = linear(h, w(ws, p + "self_attn.k_proj.weight"), KVH * HD, b("self_attn.k_proj.bias"));
      const v = linear(h, w(ws, p + "self_attn.v_proj.weight"), KVH * HD, b("self_attn.v_proj.bias"));
      const head = (a: Float64Array, n: number, norm?: string) =>
        Array.from({ length: n }, (_, i) => {
          let x: Float64Array = a.slice(i * HD, (i + 1) * HD);
          if (norm) x = rmsNorm(x, w(ws, p + norm), c.rmsNormEps);
          return rope(x, start + t, c.ropeTheta, ropeFactor);
        });
      qs.push(head(q, H, c.qkNorm ? "self_attn.q_norm.weight" : undefined));
      ks.push(head(k, KVH, c.qkNorm ? "self_attn.k_norm.weight" : undefined));
      vs.push(Array.from({ length: KVH }, (_, i) => v.slice(i * HD, (i + 1) * HD)));
    }
    const next: Float64Array[] = [];
    for (let t = 0; t < T; t++) {
      const attn = new Float64Array(H * HD);
      for (let hh = 0; hh < H; hh++) {
        const kv = Math.floor(hh / G); // repeat_kv: KV head i serves query heads i*G .. i*G+G-1
        const sc = new Float64Array(t + 1);
        let max = -Infinity;
        for (let j = 0; j <= t; j++) {
          let s = 0;
          for (let d = 0; d < HD; d++) s += qs[t][hh][d] * ks[j][kv][d];
          sc[j] = s / Math.sqrt(HD);
          max = Math.max(max, sc[j]);
        }
        let z = 0;
        for (let j = 0; j <= t; j++) z += (sc[j] = Math.exp(sc[j] - max));
        for (let j = 0; j <= t; j++) for (let d = 0; d < HD; d++) attn[hh * HD + d] += (sc[j] / z) * vs[j][kv][d];
      }
      const x1 = xs[t].map((v, i) => v + linear(attn, w(ws, p + "self_attn.o_proj.weight"), D, opt(p + "self_attn.o_proj.bias"))[i]);
      const h2 = rmsNorm(x1, w(ws, p + "post_attention_layernorm.weight"), c.rmsNormEps);
      const gate = linear(h2, w(ws, p + "mlp.gate_proj.weight"), I, opt(p + "mlp.gate_proj.bias"));
      const up = linear(h2, w(ws, p + "mlp.up_proj.weight"), I, opt(p + "mlp.up_proj.bias"));
      const act = gate.map((g, i) => (g / (1 + Math.exp(-g))) * up[i]);
      const down = linear(act, w(ws, p + "mlp.down_proj.weight"), D, opt(p + "mlp.down_proj.bias"));
      next.push(x1.map((v, i) => v + down[i]));
    }
    xs = next;
  }
  const head = c.tieWordEmbeddings ? emb : w(ws, "lm_head.weight");
  return xs.map((x) => linear(rmsNorm(x, w(ws, "model.norm.weight"), c.rmsNormEps), head, V));
}

/** log softmax of one row at one id, in float64 */
export function logSoftmax64(row: ArrayLike<number>, id: number): number {
  let max = -Infinity;
  for (let i = 0; i < row.length; i++) max = Math.max(max, row[i]);
  let z = 0;
  for (let i = 0; i < row.length; i++) z += Math.exp(row[i] - max);
  return row[id] - max - Math.log(z);
}
