/**
 * The GRPO family of policy losses, exactly as Hugging Face TRL's `GRPOTrainer._compute_loss`
 * computes them (/work/shared/GRPO.md states the math): token or sequence (GSPO) importance
 * ratio, PPO clip with ε_low / ε_high (DAPO clip-higher), optional `delta` upper clamp, truncated
 * importance sampling against another engine's log-probs, k3 KL to the reference, and the four
 * `loss_type` aggregations. test/golden-rl/make_goldens.py re-implements the same block in
 * PyTorch; test/rl/grpo-golden.test.ts checks loss and d loss / d logp against it.
 *
 * The loss knows no model: it takes per-token log-probs as a [B, T] tensor (differentiable, from
 * the policy's `tokenLogprobs`) and plain tensors or arrays for the rest.
 *
 * Why a custom gradient: @tensorflow/tfjs-core 4.22 registers no op gradients in Node (they ship
 * as extensionless ESM that Node cannot load; only the @tensorflow/tfjs bundle registers them).
 * So the loss is one `tf.customGrad` op: the forward below reads as TRL's code; `lossGrad` is its
 * closed-form derivative w.r.t. logp (torch's tie rule included), checked against autograd of
 * the PyTorch reference. Upstream (the model) the tape continues as usual.
 */
import * as tf from "@tensorflow/tfjs-core";
import type { LossType } from "./config.js";

export interface GrpoLossConfig {
  lossType: LossType;
  /** ε_low; TRL default 0.2 */
  epsilon: number;
  /** ε_high; default = epsilon (DAPO recommends 0.28) */
  epsilonHigh?: number;
  /** two-sided clip: the unclipped ratio is clamped at this (TRL `delta`); default off */
  delta?: number;
  /** KL coefficient; 0 (default in TRL) skips the KL term and needs no refLogp */
  beta: number;
  /** "token" (GRPO, default) or "sequence" (GSPO) */
  importanceSamplingLevel?: "token" | "sequence";
  /** dr_grpo's divisor per sequence (TRL max_completion_length); required for dr_grpo */
  maxCompletionLength?: number;
  /** dapo: completion tokens of the whole optimizer step over all micro-batches (TRL
   *  num_items_in_batch, counted before truncation masking: see countCompletionTokens) */
  totalStepTokens?: number;
  /** grpo / bnpo / dr_grpo divide by this (gradient accumulation); default 1 */
  numMicroBatches?: number;
  /** grpo / dr_grpo: sequences of the whole step over all micro-batches (see stepDivisors); with
   *  it every sequence weighs the same however unevenly the micro-batches split the step, where
   *  B × numMicroBatches assumes TRL's equal micro-batches */
  totalStepSequences?: number;
  /** truncated IS cap C, used when samplerLogp is given; TRL vllm_importance_sampling_cap 2.0 */
  tisCap?: number;
  /** rows flagged in `truncated` get mask 0 (TRL mask_truncated_completions); default false */
  maskTruncatedCompletions?: boolean;
  /** read metrics back as numbers (one sync); default true */
  computeMetrics?: boolean;
}

export interface GrpoLossInputs {
  /** log-probs under the current weights θ, differentiable */
  logp: tf.Tensor2D; // [B, T]
  /** log-probs under the weights that sampled (trainer's engine); default logp itself, detached
   *  (TRL with num_iterations 1: the ratio is 1 but its gradient is not 0) */
  oldLogp?: tf.Tensor2D; // [B, T]
  /** reference log-probs (adapters off); required when beta > 0 */
  refLogp?: tf.Tensor2D; // [B, T]
  /** 1 for tokens the policy generated, 0 for prompt, tool output and padding */
  mask: tf.Tensor2D; // [B, T]
  /** one advantage per sequence */
  advantages: tf.Tensor1D | readonly number[]; // [B]
  /** the sampler's own log-probs when it is another engine (truncated IS); needs cfg.tisCap */
  samplerLogp?: tf.Tensor2D; // [B, T]
  /** completions that hit the token limit; used with cfg.maskTruncatedCompletions */
  truncated?: readonly boolean[]; // [B]
  /** per-token policy entropy, for the entropy metric only */
  entropy?: tf.Tensor2D; // [B, T]
}

export interface GrpoLossMetrics {
  /** the loss value */
  loss: number;
  /** the clipped-surrogate part of the loss (TIS-weighted), aggregated as the loss is */
  policyLoss: number;
  /** the β·KL part of the loss, when beta > 0 */
  klLoss?: number;
  /** masked mean of the k3 KL, when beta > 0 */
  kl?: number;
  /** fraction where ratio < 1 − ε_low and A < 0 (the clip binds from below) */
  clipLow: number;
  /** fraction where ratio > 1 + ε_high and A > 0 */
  clipHigh: number;
  clipRegion: number;
  /** masked mean of the importance ratio (per sequence at sequence level) */
  ratioMean: number;
  /** masked mean of the truncated-IS weight, when used */
  tisMean?: number;
  entropy?: number;
  /** tokens with mask 1 in this micro-batch */
  tokens: number;
}

export interface GrpoLossOutput {
  loss: tf.Scalar;
  metrics: GrpoLossMetrics;
}

/** What the forward needs, all [B, T] or [B]; saved for the backward pass. */
interface Terms {
  logp: tf.Tensor2D; // [B, T]
  old: tf.Tensor2D; // [B, T]
  ref?: tf.Tensor2D; // [B, T]
  mask: tf.Tensor2D; // [B, T]
  adv: tf.Tensor2D; // [B, 1]
  tis?: tf.Tensor2D; // [B, T] truncated-IS weight, constant
}

export function grpoLoss(inputs: GrpoLossInputs, cfg: GrpoLossConfig): GrpoLossOutput {
  const { B } = checkInputs(inputs, cfg);
  const metricsOut: { m?: GrpoLossMetrics } = {};
  const fn = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [logp, save] = args as [tf.Tensor, tf.GradSaveFunc];
    const t = prepare(logp as tf.Tensor2D, inputs, cfg, B);
    // the backward pass recomputes from these (kept by the engine); placeholders where absent
    save([t.logp, t.old, t.mask, t.adv, t.ref ?? t.logp, t.tis ?? t.mask]);
    const value = tf.tidy(() => {
      const f = forward(t, cfg, B);
      if (cfg.computeMetrics ?? true) metricsOut.m = readMetrics(f, t, inputs.entropy, cfg, B);
      return f.loss;
    });
    const hasRef = t.ref !== undefined;
    const hasTis = t.tis !== undefined;
    disposeTerms(t, logp);
    return {
      value,
      gradFunc: (dy: tf.Scalar, saved: tf.Tensor[]) =>
        tf.tidy(() => {
          const [lp, old, mask, adv, ref, tis] = saved as tf.Tensor2D[];
          const s: Terms = { logp: lp, old, mask, adv, ref: hasRef ? ref : undefined, tis: hasTis ? tis : undefined };
          return tf.mul(dy, lossGrad(s, cfg, B));
        }),
    };
  });
  const loss = fn(inputs.logp) as tf.Scalar;
  const metrics = metricsOut.m ?? { loss: NaN, policyLoss: NaN, clipLow: NaN, clipHigh: NaN, clipRegion: NaN, ratioMean: NaN, tokens: NaN };
  if (cfg.computeMetrics ?? true) metrics.loss = loss.dataSync()[0];
  return { loss, metrics };
}

// ------------------------------------------------------------------ the loss, as TRL writes it
interface Forward {
  policy: tf.Tensor2D; // [B, T] or [B, 1]
  ratio: tf.Tensor2D; // [B, T] token level, [B, 1] sequence level (after the delta clamp)
  kl?: tf.Tensor2D; // [B, T]
  loss: tf.Scalar;
}

function forward(t: Terms, cfg: GrpoLossConfig, B: number): Forward {
  const epsLow = cfg.epsilon;
  const epsHigh = cfg.epsilonHigh ?? cfg.epsilon;
  const logRatio = tf.sub(t.logp, t.old) as tf.Tensor2D; // [B, T]
  const logW = logImportanceWeights(logRatio, t.mask, cfg); // [B, T] or [B, 1]
  const rawRatio = tf.exp(logW); // [B, T] or [B, 1]
  const clipped = tf.clipByValue(rawRatio, 1 - epsLow, 1 + epsHigh); // [B, T] or [B, 1]
  const ratio = cfg.delta !== undefined ? tf.minimum(rawRatio, cfg.delta) : rawRatio; // [B, T] or [B, 1]
  const surrogate = tf.neg(tf.minimum(tf.mul(ratio, t.adv), tf.mul(clipped, t.adv))); // [B, T] or [B, 1]
  const policy = t.tis ? tf.mul(surrogate, t.tis) : surrogate; // [B, T] or [B, 1]
  const kl = cfg.beta !== 0 && t.ref ? k3(t.ref, t.logp) : undefined; // [B, T]
  const perToken = kl ? tf.add(policy, tf.mul(cfg.beta, kl)) : policy; // [B, T] or [B, 1]
  const loss = aggregate(perToken, t.mask, cfg, B); // []
  return { policy: policy as tf.Tensor2D, ratio: ratio as tf.Tensor2D, kl, loss };
}

/** Σ_{i,t} m·L·(loss-type weight): grpo / bnpo / dr_grpo / dapo */
function aggregate(perToken: tf.Tensor, mask: tf.Tensor2D, cfg: GrpoLossConfig, B: number): tf.Scalar {
  return tf.sum(tf.mul(tf.mul(perToken, mask), aggregationWeights(mask, cfg, B))) as tf.Scalar; // []
}

/** log of the importance weight: per token, or the masked mean per sequence (GSPO) */
function logImportanceWeights(logRatio: tf.Tensor2D, mask: tf.Tensor2D, cfg: GrpoLossConfig): tf.Tensor2D {
  if ((cfg.importanceSamplingLevel ?? "token") === "token") return logRatio; // [B, T]
  return tf.div(tf.sum(tf.mul(logRatio, mask), -1, true), rowCounts(mask)); // [B, 1]
}

/** k3 estimator of KL(π_θ ‖ π_ref): exp(ref − logp) − (ref − logp) − 1, ≥ 0 */
function k3(ref: tf.Tensor2D, logp: tf.Tensor2D): tf.Tensor2D {
  const d = tf.sub(ref, logp); // [B, T]
  return tf.sub(tf.sub(tf.exp(d), d), 1); // [B, T]
}

/** ∂loss/∂(masked per-token loss): the one switch between loss types, as in TRL */
function aggregationWeights(mask: tf.Tensor2D, cfg: GrpoLossConfig, B: number): tf.Tensor {
  const gas = cfg.numMicroBatches ?? 1;
  switch (cfg.lossType) {
    case "grpo": // mean over sequences of each sequence's token mean
      return tf.div(1 / (cfg.totalStepSequences ?? B * gas), rowCounts(mask)); // [B, 1]
    case "bnpo": // token mean over the micro-batch
      return tf.div(1 / gas, tf.maximum(tf.sum(mask), 1)); // []
    case "dr_grpo": // constant divisor: sequences × max completion length
      return tf.scalar(1 / ((cfg.totalStepSequences ?? B * gas) * (cfg.maxCompletionLength as number))); // []
    case "dapo": // tokens of the whole step; no further division by micro-batches
      return tf.scalar(1 / (cfg.totalStepTokens as number)); // []
  }
}

/** Σ_t m per row, at least 1 (TRL's clamp(min=1)) */
function rowCounts(mask: tf.Tensor2D): tf.Tensor2D {
  return tf.maximum(tf.sum(mask, -1, true), 1) as tf.Tensor2D; // [B, 1]
}

// ------------------------------------------------------------------ d loss / d logp
/**
 * Closed form of what autograd computes for `forward`. With x1 = ratio·A and x2 = clip(raw)·A,
 * −min(x1, x2) sends −A·∂ratio to the smaller term (torch splits a tie in half): the unclipped
 * term's derivative is raw·[raw ≤ delta], the clipped one's raw·[1−ε_low ≤ raw ≤ 1+ε_high].
 */
function lossGrad(t: Terms, cfg: GrpoLossConfig, B: number): tf.Tensor2D {
  const epsLow = cfg.epsilon;
  const epsHigh = cfg.epsilonHigh ?? cfg.epsilon;
  const sequence = (cfg.importanceSamplingLevel ?? "token") === "sequence";
  const w = tf.mul(t.mask, aggregationWeights(t.mask, cfg, B)); // [B, T] ∂loss/∂perToken
  const raw = tf.exp(logImportanceWeights(tf.sub(t.logp, t.old) as tf.Tensor2D, t.mask, cfg)); // [B, T] or [B, 1]
  const ratio = cfg.delta !== undefined ? tf.minimum(raw, cfg.delta) : raw; // [B, T] or [B, 1]
  const x1 = tf.mul(ratio, t.adv); // [B, T] or [B, 1]
  const x2 = tf.mul(tf.clipByValue(raw, 1 - epsLow, 1 + epsHigh), t.adv); // [B, T] or [B, 1]
  const pick1 = tf.add(tf.cast(tf.less(x1, x2), "float32"), tf.mul(0.5, tf.cast(tf.equal(x1, x2), "float32"))); // share to x1
  const pick2 = tf.sub(1, pick1); // share to x2
  const d1 = cfg.delta !== undefined ? tf.mul(raw, tf.cast(tf.lessEqual(raw, cfg.delta), "float32")) : raw; // ∂ratio/∂logW
  const inRange = tf.logicalAnd(tf.greaterEqual(raw, 1 - epsLow), tf.lessEqual(raw, 1 + epsHigh));
  const d2 = tf.mul(raw, tf.cast(inRange, "float32")); // ∂clip(raw)/∂logW
  const dSurrogate = tf.mul(tf.neg(t.adv), tf.add(tf.mul(pick1, d1), tf.mul(pick2, d2))); // [B, T] or [B, 1]
  const wPolicy = t.tis ? tf.mul(w, t.tis) : w; // [B, T]
  let grad: tf.Tensor2D; // [B, T]
  if (sequence) {
    // logW_i = Σ_t m·(logp − old) / n_i, shared by every token of row i
    const dLogW = tf.mul(tf.sum(wPolicy, -1, true), dSurrogate); // [B, 1]
    grad = tf.mul(dLogW, tf.div(t.mask, rowCounts(t.mask))) as tf.Tensor2D; // [B, T]
  } else {
    grad = tf.mul(wPolicy, dSurrogate) as tf.Tensor2D; // [B, T]
  }
  if (cfg.beta !== 0 && t.ref) {
    const dKl = tf.sub(1, tf.exp(tf.sub(t.ref, t.logp))); // [B, T] ∂k3/∂logp
    grad = tf.add(grad, tf.mul(tf.mul(w, cfg.beta), dKl)) as tf.Tensor2D; // [B, T]
  }
  return grad;
}

// ------------------------------------------------------------------ inputs, metrics
function prepare(logp: tf.Tensor2D, inputs: GrpoLossInputs, cfg: GrpoLossConfig, B: number): Terms {
  return tf.tidy(() => {
    const old = inputs.oldLogp ? inputs.oldLogp.clone() : logp.clone(); // [B, T]; no gradient flows here
    let mask = inputs.mask.clone(); // [B, T]
    if (cfg.maskTruncatedCompletions && inputs.truncated) {
      const keep = tf.tensor2d(inputs.truncated.map((x) => (x ? 0 : 1)), [B, 1]); // [B, 1]
      mask = tf.mul(mask, keep) as tf.Tensor2D; // [B, T]
    }
    const adv = Array.isArray(inputs.advantages)
      ? tf.tensor2d(inputs.advantages as number[], [B, 1]) // [B, 1]
      : tf.reshape(inputs.advantages as tf.Tensor1D, [B, 1]); // [B, 1]
    const ref = cfg.beta !== 0 && inputs.refLogp ? inputs.refLogp.clone() : undefined; // [B, T]
    const tis =
      inputs.samplerLogp && cfg.tisCap !== undefined
        ? (tf.minimum(tf.exp(tf.sub(old, inputs.samplerLogp)), cfg.tisCap) as tf.Tensor2D) // [B, T]
        : undefined;
    return { logp, old, mask, adv: adv as tf.Tensor2D, ref, tis };
  });
}

function disposeTerms(t: Terms, keep: tf.Tensor): void {
  for (const x of [t.old, t.mask, t.adv, t.ref, t.tis]) if (x && x !== keep) x.dispose();
}

function readMetrics(f: Forward, t: Terms, entropy: tf.Tensor2D | undefined, cfg: GrpoLossConfig, B: number): GrpoLossMetrics {
  const epsLow = cfg.epsilon;
  const epsHigh = cfg.epsilonHigh ?? cfg.epsilon;
  const tokens = tf.sum(t.mask); // []
  // TRL's masked_batch_mean: a plain mean over sequences at sequence level, else a masked token mean
  const mbm = (x: tf.Tensor): tf.Tensor =>
    x.shape[1] === 1 ? tf.mean(x) : tf.div(tf.sum(tf.mul(x, t.mask)), tf.maximum(tokens, 1)); // []
  const low = tf.logicalAnd(tf.less(f.ratio, 1 - epsLow), tf.less(t.adv, 0)); // [B, T] or [B, 1]
  const high = tf.logicalAnd(tf.greater(f.ratio, 1 + epsHigh), tf.greater(t.adv, 0)); // [B, T] or [B, 1]
  const parts: tf.Tensor[] = [
    tokens,
    mbm(tf.cast(low, "float32")),
    mbm(tf.cast(high, "float32")),
    mbm(tf.cast(tf.logicalOr(low, high), "float32")),
    mbm(f.ratio),
    f.kl ? mbm(f.kl) : tf.scalar(NaN),
    t.tis ? mbm(t.tis) : tf.scalar(NaN),
    entropy ? mbm(entropy) : tf.scalar(NaN),
    aggregate(f.policy, t.mask, cfg, B),
    f.kl ? aggregate(tf.mul(cfg.beta, f.kl), t.mask, cfg, B) : tf.scalar(NaN),
  ];
  const v = tf.stack(parts).dataSync();
  const opt = (x: number) => (Number.isNaN(x) ? undefined : x);
  return {
    loss: NaN,
    tokens: v[0],
    clipLow: v[1],
    clipHigh: v[2],
    clipRegion: v[3],
    ratioMean: v[4],
    kl: opt(v[5]),
    tisMean: opt(v[6]),
    entropy: opt(v[7]),
    policyLoss: v[8],
    klLoss: opt(v[9]),
  };
}

function checkInputs(inputs: GrpoLossInputs, cfg: GrpoLossConfig): { B: number; T: number } {
  const [B, T] = inputs.logp.shape;
  const same = (name: string, x: tf.Tensor | undefined) => {
    if (x && (x.shape.length !== 2 || x.shape[0] !== B || x.shape[1] !== T))
      throw new RangeError(`grpoLoss: ${name} has shape [${x.shape}], expected [${B}, ${T}] like logp`);
  };
  same("oldLogp", inputs.oldLogp);
  same("refLogp", inputs.refLogp);
  same("mask", inputs.mask);
  same("samplerLogp", inputs.samplerLogp);
  same("entropy", inputs.entropy);
  const nAdv = Array.isArray(inputs.advantages) ? inputs.advantages.length : (inputs.advantages as tf.Tensor1D).size;
  if (nAdv !== B) throw new RangeError(`grpoLoss: ${nAdv} advantages for ${B} sequences`);
  if (inputs.truncated && inputs.truncated.length !== B)
    throw new RangeError(`grpoLoss: truncated has ${inputs.truncated.length} flags for ${B} sequences`);
  if (cfg.beta !== 0 && !inputs.refLogp) throw new RangeError(`grpoLoss: beta = ${cfg.beta} needs refLogp`);
  if (cfg.epsilon < 0 || (cfg.epsilonHigh ?? 0) < 0) throw new RangeError("grpoLoss: epsilon and epsilonHigh must be ≥ 0");
  if (cfg.lossType === "dr_grpo" && !(cfg.maxCompletionLength && cfg.maxCompletionLength > 0))
    throw new RangeError("grpoLoss: dr_grpo needs maxCompletionLength > 0");
  if (cfg.lossType === "dapo" && !(cfg.totalStepTokens && cfg.totalStepTokens > 0))
    throw new RangeError("grpoLoss: dapo needs totalStepTokens > 0 (completion tokens of the whole step)");
  if ((cfg.numMicroBatches ?? 1) < 1) throw new RangeError("grpoLoss: numMicroBatches must be ≥ 1");
  if (cfg.totalStepSequences !== undefined && !(cfg.totalStepSequences > 0)) throw new RangeError("grpoLoss: totalStepSequences must be > 0");
  return { B, T };
}

/**
 * Completion tokens of a step, TRL's `num_items_in_batch` for the dapo divisor: the sum of the
 * assistant masks of every micro-batch of the step, counted before truncation masking (TRL
 * counts them before `mask_truncated_completions` zeroes rows).
 */
export function countCompletionTokens(masks: readonly (readonly number[])[]): number {
  let n = 0;
  for (const row of masks) for (const m of row) n += m;
  return n;
}

/**
 * The divisors `grpoLoss` needs for one micro-batch of a k-micro-batch step, so that the update
 * equals TRL's whichever way the trainer accumulates: TRL's optimizer sums the micro-batch
 * gradients ("sum": dapo divides by the step's tokens, grpo / dr_grpo by the step's sequences);
 * src/policy's `Trainable.step` averages them ("mean"), which already divides by k, so the
 * divisors are the step's counts / k. Counting the step's sequences, not B × k, keeps "each
 * sequence weighs the same" true when a token budget splits the step unevenly (7 rows + 1).
 * bnpo stays TRL's token mean of each micro-batch, divided by k.
 */
export function stepDivisors(
  microBatches: number,
  stepTokens: number,
  accumulation: "sum" | "mean",
  stepSequences?: number,
): { numMicroBatches: number; totalStepTokens: number; totalStepSequences?: number } {
  if (!(microBatches >= 1)) throw new RangeError(`stepDivisors: microBatches must be ≥ 1, got ${microBatches}`);
  const k = accumulation === "sum" ? 1 : microBatches;
  const out = { numMicroBatches: accumulation === "sum" ? microBatches : 1, totalStepTokens: stepTokens / k };
  return stepSequences === undefined ? out : { ...out, totalStepSequences: stepSequences / k };
}

