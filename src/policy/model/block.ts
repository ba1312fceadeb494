/** One pre-norm decoder layer (LlamaDecoderLayer): x + attn(norm(x)), then x + mlp(norm(x)). */
import * as tf from "@tensorflow/tfjs-core";
import type { ModelConfig } from "../config.js";
import { attention, type AttentionInputs, type LayerCache } from "./attention.js";
import { rmsNorm } from "./layers.js";
import type { LinearContext } from "./linear.js";
import { mlp } from "./mlp.js";

export function block(
  c: ModelConfig,
  ctx: LinearContext,
  layer: number,
  x: tf.Tensor2D, // [B*T, D]
  B: number,
  T: number,
  inp: AttentionInputs,
  cacheOut?: (c: LayerCache) => void,
): tf.Tensor2D {
  const p = `model.layers.${layer}`;
  return tf.tidy(() => {
    const h = rmsNorm(x, ctx.get(p + ".input_layernorm.weight") as tf.Tensor1D, c.rmsNormEps) as tf.Tensor2D; // [B*T, D]
    const x1 = tf.add(x, attention(c, ctx, p + ".self_attn", h, B, T, inp, cacheOut)) as tf.Tensor2D; // [B*T, D]
    const h2 = rmsNorm(x1, ctx.get(p + ".post_attention_layernorm.weight") as tf.Tensor1D, c.rmsNormEps) as tf.Tensor2D; // [B*T, D]
    return tf.add(x1, mlp(ctx, p + ".mlp", h2)) as tf.Tensor2D; // [B*T, D]
  });
}
