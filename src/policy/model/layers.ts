/**
 * The small pure pieces of the decoder: RMSNorm, rotary embeddings (the Hugging Face
 * `rotate_half` convention: the two halves of each head are the (re, im) pairs), SiLU. Each
 * follows transformers' `modeling_llama.py` line for line; all compute is float32.
 */
import * as tf from "@tensorflow/tfjs-core";

/** RMSNorm over the last axis: x * rsqrt(mean(x^2) + eps) * w (LlamaRMSNorm). */
export function rmsNorm(x: tf.Tensor, w: tf.Tensor1D, eps: number): tf.Tensor {
  return tf.tidy(() => {
    const ms = tf.mean(tf.square(x), -1, true); // [..., 1]
    return tf.mul(tf.mul(x, tf.rsqrt(tf.add(ms, eps))), w); // [..., D]
  });
}

/** HF `rope_scaling` (transformers' modeling_rope_utils.py); only the kinds below are implemented. */
export interface RopeScaling {
  rope_type?: string;
  type?: string;
  factor?: number;
  low_freq_factor?: number;
  high_freq_factor?: number;
  original_max_position_embeddings?: number;
}

export const SUPPORTED_ROPE_SCALING = ["default", "linear", "llama3"] as const;

/** inv_freq per pair i, with "linear" or "llama3" scaling (_compute_llama3_parameters). */
export function ropeInvFreq(headDim: number, theta: number, scaling?: RopeScaling | null): Float64Array {
  const half = headDim / 2;
  const inv = new Float64Array(half);
  for (let i = 0; i < half; i++) inv[i] = Math.fround(1 / Math.pow(theta, (2 * i) / headDim)); // float32, as HF
  const kind = scaling ? (scaling.rope_type ?? scaling.type ?? "default") : "default";
  if (kind === "default") return inv;
  const factor = scaling!.factor ?? 1;
  if (kind === "linear") return inv.map((f) => f / factor);
  if (kind === "llama3") {
    const lo = scaling!.low_freq_factor ?? 1, hi = scaling!.high_freq_factor ?? 4;
    const old = scaling!.original_max_position_embeddings ?? 8192;
    const loWave = old / lo, hiWave = old / hi;
    return inv.map((f) => {
      const wave = (2 * Math.PI) / f;
      if (wave < hiWave) return f;
      if (wave > loWave) return f / factor;
      const smooth = (old / wave - lo) / (hi - lo);
      return (1 - smooth) * (f / factor) + smooth * f;
    });
  }
  throw new Error(`rope_scaling type "${kind}" is not supported (supported: ${SUPPORTED_ROPE_SCALING.join(", ")})`);
}

/**
 * cos/sin tables [P, hd] for positions 0..P-1 (angle = pos * inv_freq[i], halves repeated), and
 * `rotate` [hd, hd], the matrix of rotate_half: x·rotate = concat(-x2, x1).
 */
export function ropeTables(headDim: number, theta: number, maxPos: number, scaling?: RopeScaling | null): { cos: tf.Tensor2D; sin: tf.Tensor2D; rotate: tf.Tensor2D } {
  const half = headDim / 2;
  const invFreq = ropeInvFreq(headDim, theta, scaling);
  const cos = new Float32Array(maxPos * headDim), sin = new Float32Array(maxPos * headDim);
  for (let p = 0; p < maxPos; p++)
    for (let i = 0; i < half; i++) {
      const a = p * invFreq[i]; // the angle in float64 (HF: float32; differences ~1e-7 relative)
      cos[p * headDim + i] = cos[p * headDim + i + half] = Math.cos(a);
      sin[p * headDim + i] = sin[p * headDim + i + half] = Math.sin(a);
    }
  const rotate = new Float32Array(headDim * headDim); // rotate[i][j]: input i's weight in output j
  for (let j = 0; j < half; j++) {
    rotate[(j + half) * headDim + j] = -1; // out[j] = -x[j + half]
    rotate[j * headDim + j + half] = 1; // out[j + half] = x[j]
  }
  return { cos: tf.tensor2d(cos, [maxPos, headDim]), sin: tf.tensor2d(sin, [maxPos, headDim]), rotate: tf.tensor2d(rotate, [headDim, headDim]) };
}

/**
 * Applies RoPE to x [B, T, nH, hd] with cos/sin [B, T, 1, hd] (already gathered for positions).
 * rotate_half is a product with the constant `rotate` [hd, hd] (from ropeTables): one small
 * matmul forward and one backward, where slicing the halves, negating and concatenating cost
 * five copies of x over the two passes on the wasm backend.
 */
export function applyRope(x: tf.Tensor4D, cos: tf.Tensor4D, sin: tf.Tensor4D, rotate: tf.Tensor2D): tf.Tensor4D {
  return tf.tidy(() => {
    const [B, T, nH, hd] = x.shape;
    const rot = tf.reshape(tf.matMul(tf.reshape(x, [B * T * nH, hd]), rotate), [B, T, nH, hd]); // [B, T, nH, hd]  rotate_half
    return tf.add(tf.mul(x, cos), tf.mul(rot, sin)) as tf.Tensor4D; // [B, T, nH, hd]
  });
}

export function silu(x: tf.Tensor): tf.Tensor {
  return tf.tidy(() => tf.mul(x, tf.sigmoid(x)));
}

/**
 * log(sum(exp(x))) over the last axis of x [N, V], with the gradient written out (softmax · dy).
 * The exponentials come from the Softmax kernel (XNNPACK's vectorized one on wasm, ~8x faster
 * than its elementwise Exp): the row's largest probability is exp(max - lse), at least 1/V, so
 * lse = max - log(max p) loses nothing to underflow, and p itself is the gradient, kept for the
 * backward pass. (tf.logSumExp's own gradient goes through max's, an Equal over [N, V] that is
 * very slow on wasm.)
 */
export const logSumExpRows = tf.customGrad(((x: tf.Tensor, save: tf.GradSaveFunc) => {
  const p = tf.softmax(x); // [N, V]
  const lse = tf.sub(tf.max(x, 1), tf.log(tf.max(p, 1))); // [N]
  save([p]);
  return {
    value: lse, // [N]
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => tf.mul(saved[0], tf.reshape(dy, [saved[0].shape[0], 1])), // [N, V]
  };
}) as unknown as Parameters<typeof tf.customGrad>[0]) as (x: tf.Tensor2D) => tf.Tensor1D;
