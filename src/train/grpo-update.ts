/**
 * One GRPO update from scored groups (TRL's GRPOTrainer step, CleanRL-readable): advantages per
 * group, optional DAPO filtering of zero-variance groups, micro-batches of sequences, the loss
 * from src/rl (token/sequence ratio, clip, KL, aggregation), `num_iterations` (μ) AdamW steps on
 * the same rollouts. Returns the step's metrics under namespaced keys.
 */
import * as tf from "@tensorflow/tfjs-core";
import type { Trainable } from "../policy/trainable.js";
import { computeAdvantages } from "../rl/advantages.js";
import { bestOfGroupBonus } from "../rl/rejection-sampling.js";
import { clipToContext, lossBatch, padRows } from "../rl/batch.js";
import type { GrpoConfig } from "../rl/config.js";
import { lossConfigOf } from "../rl/config.js";
import { countCompletionTokens, grpoLoss, stepDivisors } from "../rl/grpo-loss.js";
import { lossMetricRecord, MetricKey, StepMetrics, type MetricRecord } from "../rl/metrics.js";
import type { Trajectory } from "../rollout/trajectory.js";
import { chunkByBudget } from "./micro-batches.js";

export interface UpdateInput {
  /** the step's groups, each the G trajectories of one scenario (already scored) */
  groups: Trajectory[][];
  cfg: GrpoConfig;
  microBatchSize: number;
  microBatchTokens: number;
  /** the sampler is another engine than the trainer (onnxruntime): truncated IS applies */
  samplerIsOtherEngine: boolean;
  /** micro-batches done of all iterations' (a progress bar: an update can take minutes) */
  onProgress?: (done: number, total: number) => void;
}

export function grpoUpdate(trainable: Trainable, input: UpdateInput): MetricRecord {
  const { cfg } = input;
  const metrics = new StepMetrics();
  // rollouts that carry no tokens (failed before the policy spoke) cannot be trained on
  const context = trainable.model.config.maxPositions;
  const clipped = input.groups.flat().filter((t) => t.tokenIds.length > context).length;
  const groups = input.groups.map((g) => g.map((t) => clipToContext(t, context)).filter((t) => t.tokenIds.length > 1 && t.assistantMask.some((m) => m === 1)));
  if (clipped > 0) metrics.set(MetricKey.clippedToContext, clipped);
  const adv = computeAdvantages(
    groups.map((g) => g.map((t) => t.reward)),
    { scaleRewards: cfg.scale_rewards, stdKind: cfg.std_kind, eps: cfg.advantage_epsilon },
  );
  metrics.set(MetricKey.groupsZeroVariance, adv.zeroVarianceCount);
  const bonus = bestOfGroupBonus(groups, { coef: cfg.rft_coef, success: (t) => t.success === true, reward: (t) => t.reward });

  // DAPO dynamic sampling: a group whose rewards are all equal has no signal (unless its best
  // rollout is imitated); drop it
  const rows: Array<{ t: Trajectory; a: number }> = [];
  groups.forEach((g, gi) => {
    if (cfg.dynamic_sampling && adv.zeroVariance[gi] && !bonus[gi].some((b) => b > 0)) return;
    g.forEach((t, i) => rows.push({ t, a: adv.byGroup[gi][i] + bonus[gi][i] }));
  });
  if (cfg.rft_coef > 0) metrics.set(MetricKey.rftImitated, bonus.filter((b) => b.some((x) => x > 0)).length);
  metrics.set(MetricKey.groupsKept, new Set(rows.map((r) => r.t.groupId)).size);
  if (rows.length === 0) return { ...metrics.summary(), "update/skipped": 1 };
  metrics.set(MetricKey.advantageAbsMean, rows.reduce((s, r) => s + Math.abs(r.a), 0) / rows.length);

  // a group's rollouts together (their shared prompt runs once per micro-batch), and within a
  // group similar lengths together (less padding)
  rows.sort((x, y) => (x.t.groupId < y.t.groupId ? -1 : x.t.groupId > y.t.groupId ? 1 : x.t.tokenIds.length - y.t.tokenIds.length));
  const lossCfg = lossConfigOf(cfg);
  const useTis = input.samplerIsOtherEngine && lossCfg.tisCap !== undefined;
  const t0 = performance.now();
  // Log-probs fixed before the first update, [B, T-1] per micro-batch: with μ > 1 the weights that
  // sampled (TRL's old_per_token_logps; with μ = 1 old is logp itself, detached, and the ratio is
  // 1), with β > 0 the reference (the base model: adapters off).
  const micro: Array<ReturnType<typeof lossBatch> & { adv: number[]; old?: number[][]; ref?: number[][] }> = [];
  for (const chunk of chunkByBudget(rows, (r) => r.t.tokenIds.length, input.microBatchSize, input.microBatchTokens)) {
    const mb = lossBatch(chunk.map((r) => r.t));
    const width = mb.mask[0].length;
    micro.push({
      ...mb,
      adv: chunk.map((r) => r.a),
      old: cfg.num_iterations > 1 ? padRows(trainable.logprobs(mb.ids, mb.mask), width) : undefined,
      ref: lossCfg.beta !== 0 ? padRows(trainable.referenceLogprobs(mb.ids, mb.mask), width) : undefined,
    });
  }
  const stepTokens = countCompletionTokens(micro.flatMap((m) => m.mask));
  const divisors = stepDivisors(micro.length, stepTokens, "mean", rows.length);

  let gradNormSum = 0;
  for (let iteration = 0; iteration < cfg.num_iterations; iteration++) {
    const result = trainable.step(
      micro,
      (logp, mb, entropy) => {
        const shape = logp.shape; // [B, T-1]
        const { loss, metrics: m } = grpoLoss(
          {
            logp,
            oldLogp: mb.old ? tf.tensor2d(mb.old, shape) : undefined,
            refLogp: mb.ref ? tf.tensor2d(mb.ref, shape) : undefined,
            mask: tf.tensor2d(mb.mask, shape),
            advantages: mb.adv,
            // the sampler's log-probs, when they come from another engine, only weight the loss
            // (truncated IS against the trainer's old log-probs)
            samplerLogp: useTis ? tf.tensor2d(mb.samplerLogp, shape) : undefined,
            truncated: mb.truncated,
            entropy,
          },
          { ...lossCfg, ...divisors, tisCap: useTis ? lossCfg.tisCap : undefined },
        );
        metrics.add(lossMetricRecord(m));
        return loss;
      },
      { entropy: true, onMicroBatch: (d, t) => input.onProgress?.(iteration * t + d, cfg.num_iterations * t) },
    );
    gradNormSum += result.gradNorm;
  }
  metrics.set(MetricKey.gradNorm, gradNormSum / cfg.num_iterations);
  metrics.set(MetricKey.tokens, stepTokens);
  metrics.set(MetricKey.timeUpdate, (performance.now() - t0) / 1000);
  metrics.set(MetricKey.learningRate, trainable.optimizer.lr);
  return metrics.summary();
}

