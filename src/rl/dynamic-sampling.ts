/**
 * Dynamic sampling, after DAPO (Yu et al. 2025, §3.2): a group whose rewards are all equal has
 * zero advantage everywhere and contributes no policy gradient, only noise in the token count.
 * Drop such groups, count them, and sample more scenarios until the batch holds the groups it
 * asked for (or a round limit is reached). Generic over the group type so the loop can pass
 * TrajectoryGroups, reward arrays, or anything with rewards.
 */
import { isZeroVariance } from "./advantages.js";

export interface FilterResult<T> {
  kept: T[];
  dropped: T[];
  /** groups dropped because all their rewards were equal */
  droppedCount: number;
}

export function dropZeroVarianceGroups<T>(groups: readonly T[], rewardsOf: (g: T) => readonly number[]): FilterResult<T> {
  const kept: T[] = [];
  const dropped: T[] = [];
  for (const g of groups) (isZeroVariance(rewardsOf(g)) ? dropped : kept).push(g);
  return { kept, dropped, droppedCount: dropped.length };
}

export interface RefillOptions {
  /** groups the batch should hold */
  targetGroups: number;
  /** groups with signal held so far */
  keptGroups: number;
  /** groups sampled so far this step (kept + dropped); used to estimate the keep rate */
  sampledGroups: number;
  /** refill rounds already done this step */
  round: number;
  /** at most this many rounds; default 3 */
  maxRounds?: number;
  /** never ask for more than this many groups in one round; default 4 × targetGroups */
  maxPerRound?: number;
}

/**
 * How many more groups to sample now: 0 when the batch is full or the rounds are spent,
 * otherwise the shortfall divided by the keep rate seen so far (so a step where half the
 * groups are flat asks for twice the shortfall), at least the shortfall itself.
 */
export function groupsToRefill(o: RefillOptions): number {
  const need = o.targetGroups - o.keptGroups;
  if (need <= 0 || o.round >= (o.maxRounds ?? 3)) return 0;
  const cap = o.maxPerRound ?? 4 * o.targetGroups;
  // Laplace-smoothed keep rate, so a first round where every group was flat still asks for a bounded number
  const keepRate = (o.keptGroups + 1) / (o.sampledGroups + 1);
  return Math.min(cap, Math.max(need, Math.ceil(need / keepRate)));
}

/**
 * The refill loop: starting from a step's first groups, sample `groupsToRefill` more each round
 * until `targetGroups` of them carry signal or the rounds are spent. Returns every group sampled
 * (to log), the ones to train on — all but the groups with signal beyond the first
 * `targetGroups` (DAPO fills the batch to its size; the update drops the flat ones) — and how
 * many were added.
 */
export async function sampleUntilFull<T>(
  first: readonly T[],
  rewardsOf: (g: T) => readonly number[],
  sampleMore: (n: number) => Promise<readonly T[]>,
  o: { targetGroups: number; maxRounds: number },
): Promise<{ groups: T[]; train: T[]; refilled: number }> {
  const groups = [...first];
  for (let round = 0; ; round++) {
    const kept = dropZeroVarianceGroups(groups, rewardsOf).kept.length;
    const n = groupsToRefill({ targetGroups: o.targetGroups, keptGroups: kept, sampledGroups: groups.length, round, maxRounds: o.maxRounds });
    if (n === 0) break;
    groups.push(...(await sampleMore(n)));
  }
  const surplus = new Set(dropZeroVarianceGroups(groups, rewardsOf).kept.slice(o.targetGroups));
  return { groups, train: groups.filter((g) => !surplus.has(g)), refilled: groups.length - first.length };
}
