/**
 * STaR-style rejection sampling (Zelikman et al. 2022; RAFT, Dong et al. 2023): from each group
 * keep the best trajectories that clear a reward bar, to imitate. Ties go to the earlier
 * trajectory so a seeded run picks the same ones every time.
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

/**
 * RAFT / STaR inside the GRPO step: `coef` added to the advantage of each group's best fully
 * successful trajectory, when no rollout of its group scored higher (`pickBest` with perGroup 1;
 * ties to the earlier one). At ratio 1 the
 * clipped surrogate's gradient is −A ∇log π, so the bonus adds `coef` × the imitation (NLL) term
 * of that trajectory, normalised like the GRPO terms it joins. A group whose rollouts all succeed
 * — no GRPO signal — still teaches through its best one. Returns [G] per group, zeros elsewhere.
 */
export function bestOfGroupBonus<T>(
  groups: readonly (readonly T[])[],
  o: { coef: number; success: (t: T) => boolean; reward: (t: T) => number },
): number[][] {
  return groups.map((g) => {
    const bonus = g.map(() => 0);
    if (o.coef === 0) return bonus;
    // a success qualifies when nothing in its group scored higher (a success penalised, e.g. for
    // a dangerous call, below a failure is not one to imitate); failures score NaN, which pickBest drops
    const top = Math.max(...g.map((t) => o.reward(t)));
    const [best] = pickBest([g], (t) => (o.success(t) ? o.reward(t) : NaN), { perGroup: 1, minReward: top });
    if (best !== undefined) bonus[g.indexOf(best)] = o.coef;
    return bonus;
  });
}
