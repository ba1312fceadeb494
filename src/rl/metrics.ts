/**
 * Namespaced metric keys for one optimizer step (CleanRL's habit: `loss/policy`, `charts/...`),
 * so the report reads keys and never guesses, and a small accumulator that averages per-micro-
 * batch values into one step record (TRL averages its per-micro-batch metric lists the same way).
 */
import type { GrpoLossMetrics } from "./grpo-loss.js";

export const MetricKey = {
  loss: "loss/total",
  lossPolicy: "loss/policy",
  lossKl: "loss/kl",
  lossSft: "loss/sft",
  kl: "kl/mean",
  clipLow: "clip/low",
  clipHigh: "clip/high",
  clipRegion: "clip/region",
  ratioMean: "ratio/mean",
  tisMean: "ratio/tis_mean",
  entropy: "policy/entropy",
  gradNorm: "grad_norm",
  learningRate: "lr",
  tokens: "tokens/completion",
  groupsZeroVariance: "groups/zero_variance",
  groupsKept: "groups/kept",
  groupsRefilled: "groups/refilled",
  /** rollouts longer than the model's context, trained on the part that fits */
  clippedToContext: "rollout/clipped_to_context",
  /** groups whose best successful rollout got the rft_coef bonus */
  rftImitated: "groups/rft_imitated",
  advantageAbsMean: "advantage/abs_mean",
  timeRollout: "time/rollout",
  timeJudge: "time/judge",
  timeUpdate: "time/update",
} as const;
export type MetricKeyName = (typeof MetricKey)[keyof typeof MetricKey];

export type MetricRecord = Record<string, number>;

/** The loss metrics of one micro-batch under their namespaced keys (undefined ones left out). */
export function lossMetricRecord(m: GrpoLossMetrics): MetricRecord {
  const r: MetricRecord = {
    [MetricKey.loss]: m.loss,
    [MetricKey.lossPolicy]: m.policyLoss,
    [MetricKey.clipLow]: m.clipLow,
    [MetricKey.clipHigh]: m.clipHigh,
    [MetricKey.clipRegion]: m.clipRegion,
    [MetricKey.ratioMean]: m.ratioMean,
    [MetricKey.tokens]: m.tokens,
  };
  if (m.kl !== undefined) r[MetricKey.kl] = m.kl;
  if (m.klLoss !== undefined) r[MetricKey.lossKl] = m.klLoss;
  if (m.tisMean !== undefined) r[MetricKey.tisMean] = m.tisMean;
  if (m.entropy !== undefined) r[MetricKey.entropy] = m.entropy;
  return r;
}

/**
 * Collects metric records over the micro-batches of a step. Keys listed in `sumKeys` add up
 * (token counts, times); every other key is the mean of the values it received — keys missing
 * from some records average over the records that have them.
 */
export class StepMetrics {
  private readonly sums = new Map<string, number>();
  private readonly counts = new Map<string, number>();
  constructor(private readonly sumKeys: ReadonlySet<string> = new Set([MetricKey.tokens, MetricKey.timeRollout, MetricKey.timeJudge, MetricKey.timeUpdate])) {}

  add(record: MetricRecord): this {
    for (const [k, v] of Object.entries(record)) {
      if (!Number.isFinite(v)) continue;
      this.sums.set(k, (this.sums.get(k) ?? 0) + v);
      this.counts.set(k, (this.counts.get(k) ?? 0) + 1);
    }
    return this;
  }

  set(key: string, value: number): this {
    this.sums.set(key, value);
    this.counts.set(key, 1);
    return this;
  }

  /** one record: sums for sum keys, means for the rest, keys sorted */
  summary(): MetricRecord {
    const out: MetricRecord = {};
    for (const k of [...this.sums.keys()].sort()) {
      const s = this.sums.get(k)!;
      out[k] = this.sumKeys.has(k) ? s : s / this.counts.get(k)!;
    }
    return out;
  }
}
