/**
 * Group-relative advantages: one number per trajectory, A_i = r_i − μ_g, optionally divided by
 * a std plus epsilon. Follows TRL's `_generate_and_score_completions` (group mean always; std of
 * the group or of the whole batch; `torch.std` = sample std; eps 1e-4), with ART's population
 * std (eps 1e-6) as an option. Plain numbers: no tensors needed for a few dozen rewards.
 *
 * Groups may differ in size (a failed rollout can be left out), unlike TRL's fixed `view(-1, G)`.
 * A group whose rewards are all equal carries no signal: its advantages are exactly 0 (TRL gets
 * 0 up to rounding) and it is flagged `zeroVariance`, the same test TRL logs as
 * `frac_reward_zero_std` (torch.isclose(std, 0): |std| ≤ 1e-8).
 */
import type { ScaleRewards } from "./config.js";

export interface AdvantageOptions {
  /** "group" (default), "batch", or "none" (Dr.GRPO) */
  scaleRewards?: ScaleRewards;
  /** "sample" (N−1, TRL; default) or "population" (N, ART) */
  stdKind?: "sample" | "population";
  /** added to the std before dividing; default 1e-4 (TRL); ART uses 1e-6 */
  eps?: number;
}

export interface AdvantageResult {
  /** per group, per trajectory, same shape as the input */
  byGroup: number[][];
  /** all groups concatenated, the order `grpoLoss` expects */
  flat: number[];
  groupMean: number[];
  groupStd: number[];
  /** true where the group's rewards are all equal (std ≈ 0) */
  zeroVariance: boolean[];
  zeroVarianceCount: number;
}

/** std ≤ this counts as zero: torch.isclose(std, 0) with its default atol */
export const ZERO_STD_TOL = 1e-8;

export function mean(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return xs.length ? s / xs.length : 0;
}

/** sample std divides by N−1 (0 for a single value), population std by N */
export function std(xs: readonly number[], kind: "sample" | "population" = "sample"): number {
  const n = xs.length;
  const denom = kind === "sample" ? n - 1 : n;
  if (denom <= 0) return 0;
  const m = mean(xs);
  let s = 0;
  for (const x of xs) s += (x - m) * (x - m);
  return Math.sqrt(s / denom);
}

export function isZeroVariance(rewards: readonly number[]): boolean {
  return std(rewards, "population") <= ZERO_STD_TOL;
}

export function computeAdvantages(groups: readonly (readonly number[])[], opts: AdvantageOptions = {}): AdvantageResult {
  const scale = opts.scaleRewards ?? "group";
  const kind = opts.stdKind ?? "sample";
  const eps = opts.eps ?? 1e-4;
  for (const [g, rewards] of groups.entries()) {
    for (const [i, r] of rewards.entries()) {
      if (!Number.isFinite(r)) throw new RangeError(`reward of group ${g}, trajectory ${i} is ${r}, expected a finite number`);
    }
  }
  const groupMean = groups.map((g) => mean(g));
  const groupStd = groups.map((g) => std(g, kind));
  const zeroVariance = groups.map((g) => isZeroVariance(g));
  const batchStd = std(groups.flat(), kind);

  const byGroup = groups.map((rewards, g) => {
    if (zeroVariance[g]) return rewards.map(() => 0);
    const centred = rewards.map((r) => r - groupMean[g]);
    if (scale === "none") return centred;
    const sigma = scale === "group" ? groupStd[g] : batchStd;
    return centred.map((a) => a / (sigma + eps));
  });
  return {
    byGroup,
    flat: byGroup.flat(),
    groupMean,
    groupStd,
    zeroVariance,
    zeroVarianceCount: zeroVariance.filter(Boolean).length,
  };
}
