/**
 * STaR-style rejection sampling for the SFT warm start (Zelikman et al. 2022): from each group
 * keep the best trajectories that clear a reward bar, to imitate with `sftLoss`. Ties go to the
 * earlier trajectory so a seeded run picks the same ones every time.
 */
export interface PickBestOptions {
  /** trajectories kept per group at most; default 1 */
  perGroup?: number;
  /** keep only rewards ≥ this; default 1 (fully successful) */
  minReward?: number;
}

export function pickBest<T>(groups: readonly (readonly T[])[], rewardOf: (t: T) => number, opts: PickBestOptions = {}): T[] {
  const k = opts.perGroup ?? 1;
  const bar = opts.minReward ?? 1;
  const out: T[] = [];
  for (const g of groups) {
    const ranked = g
      .map((t, i) => ({ t, i, r: rewardOf(t) }))
      .filter((x) => Number.isFinite(x.r) && x.r >= bar)
      .sort((a, b) => b.r - a.r || a.i - b.i);
    out.push(...ranked.slice(0, k).map((x) => x.t));
  }
  return out;
}
