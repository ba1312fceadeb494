/**
 * The Linear layer every projection goes through: y = x W^T + b with W in the Hugging Face
 * [out, in] layout, plus an optional LoRA delta (x A^T B^T * alpha/r, PEFT's `lora.Linear`).
 * Inputs are kept 2-D ([N, in]) because tfjs's matMul gradient fails on broadcast batch dims.
 */
import * as tf from "@tensorflow/tfjs-core";

/** A LoRA adapter's weights on one Linear: A [r, in], B [out, r]. */
export interface LoraWeights {
  a: tf.Tensor;
  b: tf.Tensor;
  scale: number; // alpha / r
}

/** A LoRA adapter as the model holds it: trainable A and B. */
export interface LoraPair extends LoraWeights {
  a: tf.Variable;
  b: tf.Variable;
}

export interface LinearContext {
  /** the weight or bias tensor by HF name */
  get(name: string): tf.Tensor;
  has(name: string): boolean;
  /** LoRA adapter for a module prefix ("model.layers.0.self_attn.q_proj"), when active */
  lora(prefix: string): LoraWeights | undefined;
  /** applied to the LoRA input during training (seeded dropout); identity otherwise */
  loraDropout(x: tf.Tensor2D): tf.Tensor2D;
  /** inference only: the (LoRA-merged) weight pre-transposed to [in, out], so XNNPACK can reuse
   *  its packed copy across decode steps instead of transposing W every call */
  transposed?(prefix: string): tf.Tensor2D | undefined;
}

export function linear(ctx: LinearContext, prefix: string, x: tf.Tensor2D): tf.Tensor2D {
  return tf.tidy((): tf.Tensor2D => {
    const wt = ctx.transposed?.(prefix);
    let y: tf.Tensor2D = wt ? tf.matMul(x, wt) : tf.matMul(x, ctx.get(prefix + ".weight") as tf.Tensor2D, false, true); // [N, out]
    if (ctx.has(prefix + ".bias")) y = tf.add(y, ctx.get(prefix + ".bias")) as tf.Tensor2D; // [N, out]
    const l = ctx.lora(prefix);
    if (l) {
      const xa = tf.matMul(ctx.loraDropout(x), l.a as tf.Tensor2D, false, true); // [N, r]
      y = tf.add(y, tf.mul(tf.matMul(xa, l.b as tf.Tensor2D, false, true), l.scale)) as tf.Tensor2D; // [N, out]
    }
    return y;
  });
}
