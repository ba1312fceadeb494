/** The SwiGLU feed-forward (LlamaMLP): down(silu(gate(x)) * up(x)). */
import * as tf from "@tensorflow/tfjs-core";
import { silu } from "./layers.js";
import { linear, type LinearContext } from "./linear.js";

export function mlp(ctx: LinearContext, p: string, h: tf.Tensor2D): tf.Tensor2D {
  return tf.tidy(() => {
    const g = silu(linear(ctx, p + ".gate_proj", h)) as tf.Tensor2D; // [N, I]
    const u = linear(ctx, p + ".up_proj", h); // [N, I]
    return linear(ctx, p + ".down_proj", tf.mul(g, u) as tf.Tensor2D); // [N, D]
  });
}
