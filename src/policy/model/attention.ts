/**
 * Grouped-query causal self-attention (LlamaAttention / Qwen2Attention / Qwen3Attention): q/k/v
 * projections (Qwen2 biases), Qwen3's per-head q/k RMSNorm before RoPE, RoPE, scaled dot
 * product with an additive mask, o projection. Query heads are grouped by the KV head they share
 * (head h uses KV head floor(h / G), as HF's `repeat_kv`), so the scores are one batched matmul
 * [B*KV, G*T, hd] x [B*KV, hd, Tk] without copying K/V G times (as the peer script does).
 */
import * as tf from "@tensorflow/tfjs-core";
import type { ModelConfig } from "../config.js";
import { applyRope, rmsNorm } from "./layers.js";
import { linear, type LinearContext } from "./linear.js";

/** Keys and values of the positions seen so far, per layer: [B, KV, Tpast, hd]. */
export interface LayerCache {
  k: tf.Tensor4D;
  v: tf.Tensor4D;
}

export interface AttentionInputs {
  cos: tf.Tensor4D; // [B, T, 1, hd]
  sin: tf.Tensor4D; // [B, T, 1, hd]
  rotate: tf.Tensor2D; // [hd, hd], rotate_half as a matrix
  /** additive mask [B or 1, 1, 1, T, Tk]: 0 where allowed, -1e9 where not */
  bias: tf.Tensor;
  /** previous keys/values; when given, the new ones are appended and returned in `cacheOut` */
  cache?: LayerCache;
}

export function attention(
  c: ModelConfig,
  ctx: LinearContext,
  p: string, // "model.layers.N.self_attn"
  h: tf.Tensor2D, // [B*T, D]
  B: number,
  T: number,
  inp: AttentionInputs,
  cacheOut?: (c: LayerCache) => void,
): tf.Tensor2D {
  const H = c.numHeads, KV = c.numKvHeads, G = H / KV, hd = c.headDim;
  return tf.tidy(() => {
    let q = tf.reshape(linear(ctx, p + ".q_proj", h), [B, T, H, hd]) as tf.Tensor4D; // [B, T, H, hd]
    let k = tf.reshape(linear(ctx, p + ".k_proj", h), [B, T, KV, hd]) as tf.Tensor4D; // [B, T, KV, hd]
    const v = tf.reshape(linear(ctx, p + ".v_proj", h), [B, T, KV, hd]) as tf.Tensor4D; // [B, T, KV, hd]
    if (c.qkNorm) {
      q = rmsNorm(q, ctx.get(p + ".q_norm.weight") as tf.Tensor1D, c.rmsNormEps) as tf.Tensor4D; // [B, T, H, hd]
      k = rmsNorm(k, ctx.get(p + ".k_norm.weight") as tf.Tensor1D, c.rmsNormEps) as tf.Tensor4D; // [B, T, KV, hd]
    }
    q = applyRope(q, inp.cos, inp.sin, inp.rotate); // [B, T, H, hd]
    k = applyRope(k, inp.cos, inp.sin, inp.rotate); // [B, T, KV, hd]
    let kt = tf.transpose(k, [0, 2, 1, 3]) as tf.Tensor4D; // [B, KV, T, hd]
    let vt = tf.transpose(v, [0, 2, 1, 3]) as tf.Tensor4D; // [B, KV, T, hd]
    if (inp.cache) {
      kt = tf.concat([inp.cache.k, kt], 2); // [B, KV, Tk, hd]
      vt = tf.concat([inp.cache.v, vt], 2); // [B, KV, Tk, hd]
    }
    if (cacheOut) cacheOut({ k: tf.keep(kt), v: tf.keep(vt) });
    const Tk = kt.shape[2];
    const qg = tf.reshape(tf.transpose(tf.reshape(q, [B, T, KV, G, hd]), [0, 2, 3, 1, 4]), [B * KV, G * T, hd]); // [B*KV, G*T, hd]
    const k3 = tf.reshape(kt, [B * KV, Tk, hd]); // [B*KV, Tk, hd]
    const v3 = tf.reshape(vt, [B * KV, Tk, hd]); // [B*KV, Tk, hd]
    const s = tf.mul(tf.matMul(qg, k3, false, true), 1 / Math.sqrt(hd)); // [B*KV, G*T, Tk]
    const masked = tf.add(tf.reshape(s, [B, KV, G, T, Tk]), inp.bias); // [B, KV, G, T, Tk]
    const pr = tf.reshape(tf.softmax(masked), [B * KV, G * T, Tk]); // [B*KV, G*T, Tk]
    const o = tf.reshape(tf.matMul(pr, v3), [B, KV, G, T, hd]); // [B, KV, G, T, hd]
    const o2 = tf.reshape(tf.transpose(o, [0, 3, 1, 2, 4]), [B * T, H * hd]) as tf.Tensor2D; // [B*T, H*hd]
    return linear(ctx, p + ".o_proj", o2); // [B*T, D]
  });
}
