/**
 * Supervised warm start: masked negative log-likelihood of reference solutions or of the best
 * trajectories of earlier groups (STaR-style rejection sampling), for a model that cannot yet
 * produce the tool-call format. Same [B, T] log-probs and assistant mask as the GRPO loss.
 *
 * Reductions: "token" (default, TRL SFTTrainer / HF causal-LM loss: one mean over every masked
 * token) or "sequence" (mean over sequences of each sequence's token mean, so long and short
 * demonstrations weigh the same). With gradient accumulation pass `numMicroBatches` (token
 * mean per micro-batch, divided by the count) or `totalStepTokens` (exact token mean of the step).
 *
 * Like grpoLoss, one `tf.customGrad` op with its closed-form gradient, so it trains even where
 * tfjs op gradients are not registered (see src/rl/grpo-loss.ts).
 */
import * as tf from "@tensorflow/tfjs-core";

export interface SftLossConfig {
  /** "token" (default) or "sequence" */
  reduction?: "token" | "sequence";
  /** divide by this many micro-batches; default 1 (ignored when totalStepTokens is set) */
  numMicroBatches?: number;
  /** token reduction only: divide the masked sum by the step's token count instead */
  totalStepTokens?: number;
  /** sequence reduction only: divide the sum of sequence means by the step's sequence count instead */
  totalStepSequences?: number;
}

export interface SftLossInputs {
  logp: tf.Tensor2D; // [B, T] differentiable
  mask: tf.Tensor2D; // [B, T] 1 on the tokens to imitate
  /** optional per-sequence weights (e.g. reward-weighted imitation); default 1 */
  weights?: readonly number[]; // [B]
}

export interface SftLossOutput {
  loss: tf.Scalar;
  metrics: { loss: number; nll: number; tokens: number };
}

export function sftLoss(inputs: SftLossInputs, cfg: SftLossConfig = {}): SftLossOutput {
  const [B, T] = inputs.logp.shape;
  if (inputs.mask.shape[0] !== B || inputs.mask.shape[1] !== T)
    throw new RangeError(`sftLoss: mask has shape [${inputs.mask.shape}], expected [${B}, ${T}] like logp`);
  if (inputs.weights && inputs.weights.length !== B) throw new RangeError(`sftLoss: ${inputs.weights.length} weights for ${B} sequences`);
  // ∂loss/∂logp = −coef, a constant: the NLL is linear in logp
  const coef = tf.tidy(() => {
    const m = inputs.weights ? tf.mul(inputs.mask, tf.tensor2d(inputs.weights as number[], [B, 1])) : inputs.mask; // [B, T]
    if ((cfg.reduction ?? "token") === "sequence") {
      const rows = tf.maximum(tf.sum(inputs.mask, -1, true), 1); // [B, 1]
      return tf.div(tf.div(m, rows), cfg.totalStepSequences ?? B * (cfg.numMicroBatches ?? 1)); // [B, T]
    }
    const denom = cfg.totalStepTokens ?? tf.mul(tf.maximum(tf.sum(inputs.mask), 1), cfg.numMicroBatches ?? 1); // []
    return tf.div(m, denom); // [B, T]
  });
  const fn = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [logp, save] = args as [tf.Tensor, tf.GradSaveFunc];
    save([coef]);
    return {
      value: tf.neg(tf.sum(tf.mul(logp, coef))) as tf.Scalar, // []
      gradFunc: (dy: tf.Scalar, saved: tf.Tensor[]) => tf.mul(dy, tf.neg(saved[0])), // [B, T]
    };
  });
  const loss = fn(inputs.logp) as tf.Scalar;
  const [lossValue, nll, tokens] = tf.tidy(() => {
    const n = tf.sum(inputs.mask); // []
    const meanNll = tf.div(tf.neg(tf.sum(tf.mul(inputs.logp, inputs.mask))), tf.maximum(n, 1)); // []
    return Array.from(tf.stack([loss, meanNll, n]).dataSync());
  });
  coef.dispose();
  return { loss, metrics: { loss: lossValue, nll, tokens } };
}
