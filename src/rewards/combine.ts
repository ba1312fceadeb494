/**
 * Scoring a group: run every reward component, keep each raw score under its name, and combine
 * them into one weighted total per trajectory (after verifiers' `Rubric.score_rollouts`, with
 * ART's rule that scoring returns new trajectories and keeps the earlier reward).
 *
 * Failure rules, so that training never stops for a reward:
 * - a component that throws (or returns a non-finite number, or the wrong number of scores)
 *   scores 0 for the trajectories it was asked about; the error is logged and counted in
 *   `stats.failures[name]` (one per call: per trajectory for trajectory components, per group
 *   for group components);
 * - a component that returns `{ missing }` has no score: it is left out of `rewards` and out of
 *   the total, counted in `stats.missing[name]` (per trajectory), and for judges the group is
 *   counted once in `stats.judgeFallbacks`.
 *
 * The total: `reward = Σ w·r / Σ |w|` over the components that have a score (normalize, the
 * default), or `Σ w·r` (normalize: false); a penalty's weight (safety) is left out of Σ |w|.
 * Normalizing keeps totals on the components' own [0, 1] scale (penalties pull below it, and a
 * clean trajectory scores what it did without them) and, when a judge is missing, hands its weight to the
 * other components in proportion to theirs; without normalizing a missing component just adds
 * nothing. Either way the ordering inside a group, which is all GRPO uses, is decided by the
 * components that did score. Weight-0 components are computed and logged but add nothing.
 */
import { TrainMcpError } from "../errors.js";
import type { Scenario } from "../scenarios/schema.js";
import type { Trajectory, TrajectoryGroup } from "../rollout/trajectory.js";
import {
  isMissing,
  type GroupScore,
  type RewardComponent,
  type RewardContext,
  type RewardLogger,
  type TrajectoryScore,
} from "./types.js";

export interface ScoreGroupOptions {
  stateTarget?: RewardContext["stateTarget"];
  secrets?: RewardContext["secrets"];
  signal?: AbortSignal;
  log?: RewardLogger;
  /** divide the weighted sum by the total |weight| of the components that scored; default true */
  normalize?: boolean;
}

/** Everything behind one trajectory's total, for metrics and the report. */
export interface RewardBreakdown {
  /** raw score per component that scored (also written to `trajectory.rewards`) */
  raw: Record<string, number>;
  /** component name → why it has no score */
  missing: Record<string, string>;
  /** component name → the error it threw (its raw score is 0) */
  failed: Record<string, string>;
  /** component name → one-line detail (verifier checks, safety matches, …) */
  details: Record<string, string>;
  total: number;
  /** Σ |w| over the components that scored, penalties left out (the normalizer) */
  totalWeight: number;
  /** what the trajectory carried before this scoring (ART keeps it as `independent_reward`) */
  previous: { reward: number; rewards: Record<string, number>; success: boolean };
}

export interface RewardStats {
  failures: Record<string, number>;
  missing: Record<string, number>;
  /** groups in which a judge component had no score and the others carried the reward */
  judgeFallbacks: number;
  /** a judge component was among those scoring the group (else judgeFallbacks means nothing) */
  judged: boolean;
  /** counters reported by components, e.g. `ruler/retries` */
  counters: Record<string, number>;
  /** wall time per component over the whole group, in ms */
  ms: Record<string, number>;
  errors: Array<{ component: string; index?: number; message: string }>;
}

export interface ScoredGroup {
  /** a new group of new trajectories; the input is not mutated (unchanged arrays are shared) */
  group: TrajectoryGroup;
  breakdown: RewardBreakdown[];
  stats: RewardStats;
}

type Slot =
  | { kind: "score"; value: number; detail?: string; success?: boolean; explanation?: string }
  | { kind: "missing"; reason: string }
  | { kind: "failed"; message: string };

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** names the metrics use for themselves (`reward/total`, `reward/success_rate`, …) */
const RESERVED = new Set(["total", "success_rate", "judge_fallbacks", "failures", "missing"]);

function checkNames(components: readonly RewardComponent[]): void {
  const seen = new Set<string>();
  for (const c of components) {
    if (!c.name) throw new TrainMcpError("ConfigInvalid", "reward component with an empty name");
    if (RESERVED.has(c.name)) throw new TrainMcpError("ConfigInvalid", `reward component name "${c.name}" is reserved for the metrics`);
    if (seen.has(c.name)) throw new TrainMcpError("ConfigInvalid", `reward component "${c.name}" appears twice`);
    if (!Number.isFinite(c.weight)) throw new TrainMcpError("ConfigInvalid", `reward component "${c.name}": weight must be a finite number, got ${c.weight}`);
    seen.add(c.name);
  }
}

async function runTrajectoryComponent(
  c: Extract<RewardComponent, { kind: "trajectory" }>,
  ctx: RewardContext,
): Promise<Slot[]> {
  return Promise.all(
    ctx.group.trajectories.map(async (t, index): Promise<Slot> => {
      try {
        const r = await c.score(t, { ...ctx, index });
        if (isMissing(r)) return { kind: "missing", reason: r.missing };
        const s: TrajectoryScore = typeof r === "number" ? { score: r } : r;
        if (!Number.isFinite(s.score)) return { kind: "failed", message: `returned a non-finite score (${s.score})` };
        return { kind: "score", value: s.score, detail: s.detail, success: s.success };
      } catch (e) {
        return { kind: "failed", message: errorMessage(e) };
      }
    }),
  );
}

async function runGroupComponent(
  c: Extract<RewardComponent, { kind: "group" }>,
  ctx: RewardContext,
  counters: Record<string, number>,
): Promise<Slot[]> {
  const n = ctx.group.trajectories.length;
  const all = (slot: Slot) => Array.from({ length: n }, () => slot);
  try {
    const r = await c.score(ctx);
    const add = (more: Record<string, number> | undefined) => {
      for (const [k, v] of Object.entries(more ?? {})) counters[k] = (counters[k] ?? 0) + v;
    };
    if (isMissing(r)) {
      add(r.counters);
      return all({ kind: "missing", reason: r.missing });
    }
    const g: GroupScore = Array.isArray(r) ? { scores: r } : r;
    add(g.counters);
    if (g.scores.length !== n) return all({ kind: "failed", message: `returned ${g.scores.length} scores for ${n} trajectories` });
    const bad = g.scores.find((s) => !Number.isFinite(s));
    if (bad !== undefined) return all({ kind: "failed", message: `returned a non-finite score (${bad})` });
    return g.scores.map((value, i) => ({
      kind: "score",
      value,
      detail: g.details?.[i],
      success: g.success?.[i],
      explanation: g.explanations?.[i],
    }));
  } catch (e) {
    return all({ kind: "failed", message: errorMessage(e) });
  }
}

/**
 * Scores one group with the given components. Never throws for a component's failure (only for
 * an invalid component list: duplicate or empty names, non-finite weights).
 */
export async function scoreGroup(
  group: TrajectoryGroup,
  scenario: Scenario,
  components: readonly RewardComponent[],
  options: ScoreGroupOptions = {},
): Promise<ScoredGroup> {
  checkNames(components);
  const normalize = options.normalize ?? true;
  const ctx: RewardContext = { scenario, group, stateTarget: options.stateTarget, secrets: options.secrets, signal: options.signal, log: options.log };
  const stats: RewardStats = { failures: {}, missing: {}, judgeFallbacks: 0, judged: components.some((c) => c.judge === true), counters: {}, ms: {}, errors: [] };

  // All components run concurrently: a slow judge overlaps the state checks.
  const slots = await Promise.all(
    components.map(async (c) => {
      const t0 = performance.now();
      const s = c.kind === "trajectory" ? await runTrajectoryComponent(c, ctx) : await runGroupComponent(c, ctx, stats.counters);
      stats.ms[c.name] = performance.now() - t0;
      return s;
    }),
  );

  components.forEach((c, ci) => {
    const column = slots[ci];
    let judgeMissing = false;
    if (c.kind === "group" && column.length > 0 && column[0].kind === "failed") {
      // A group component fails once for the whole group: count and log it once.
      stats.failures[c.name] = (stats.failures[c.name] ?? 0) + 1;
      stats.errors.push({ component: c.name, message: column[0].message });
      options.log?.({ level: "error", component: c.name, message: `failed, scored 0: ${column[0].message}` });
    }
    column.forEach((slot, index) => {
      if (slot.kind === "failed" && c.kind === "trajectory") {
        stats.failures[c.name] = (stats.failures[c.name] ?? 0) + 1;
        stats.errors.push({ component: c.name, index, message: slot.message });
        options.log?.({ level: "error", component: c.name, index, message: `failed, scored 0: ${slot.message}` });
      } else if (slot.kind === "missing") {
        stats.missing[c.name] = (stats.missing[c.name] ?? 0) + 1;
        if (c.judge) judgeMissing = true;
      }
    });
    if (judgeMissing) {
      stats.judgeFallbacks += 1;
      const reason = column.find((s) => s.kind === "missing");
      options.log?.({
        level: "warn",
        component: c.name,
        message: `judge unavailable, group ${group.groupId} scored by the other rewards: ${reason?.kind === "missing" ? reason.reason : ""}`,
      });
    }
  });

  const breakdown: RewardBreakdown[] = [];
  const trajectories: Trajectory[] = group.trajectories.map((t, index) => {
    const b: RewardBreakdown = {
      raw: {},
      missing: {},
      failed: {},
      details: {},
      total: 0,
      totalWeight: 0,
      previous: { reward: t.reward, rewards: { ...t.rewards }, success: t.success },
    };
    let sum = 0;
    let penaltyWeight = 0;
    let successes: boolean[] = [];
    let explanation: string | undefined;
    components.forEach((c, ci) => {
      const slot = slots[ci][index];
      if (slot.kind === "missing") {
        b.missing[c.name] = slot.reason;
        return;
      }
      const value = slot.kind === "score" ? slot.value : 0;
      if (slot.kind === "failed") b.failed[c.name] = slot.message;
      if (slot.kind === "score") {
        if (slot.detail !== undefined) b.details[c.name] = slot.detail;
        if (slot.success !== undefined) successes = [...successes, slot.success];
        if (slot.explanation !== undefined) explanation = slot.explanation;
      }
      b.raw[c.name] = value;
      sum += c.weight * value;
      if (c.penalty) penaltyWeight += Math.abs(c.weight);
      else b.totalWeight += Math.abs(c.weight);
    });
    // penalties only (every other component missing): on their own [-1, 0] scale
    const divisor = b.totalWeight > 0 ? b.totalWeight : penaltyWeight;
    b.total = normalize ? (divisor > 0 ? sum / divisor : 0) : sum;
    breakdown.push(b);
    return {
      ...t,
      rewards: { ...b.raw },
      reward: b.total,
      success: successes.length > 0 ? successes.every(Boolean) : t.success,
      ...(explanation !== undefined ? { judgeExplanation: explanation } : {}),
      ...withDetails(b),
    };
  });

  return { group: { ...group, trajectories }, breakdown, stats };
}

/**
 * Step metrics over scored groups, with namespaced keys (STYLE §9): `reward/total`,
 * `reward/total_std`, `reward/<name>` and `reward/<name>_std` (over trajectories that have the
 * component), `reward/success_rate`, `reward/judge_fallbacks` (only where a judge scored: a run
 * without one has no fallbacks to count), `reward/failures/<name>`,
 * `reward/missing/<name>`, `time/reward/<name>` (summed ms) and the components' counters as
 * `reward/<counter>` (e.g. `reward/ruler/retries`).
 */
export function rewardMetrics(scored: readonly ScoredGroup[]): Record<string, number> {
  const out: Record<string, number> = {};
  const values: Record<string, number[]> = { total: [] };
  let successes = 0;
  let count = 0;
  for (const s of scored) {
    for (const t of s.group.trajectories) {
      count++;
      if (t.success) successes++;
      values.total.push(t.reward);
      for (const [k, v] of Object.entries(t.rewards)) (values[k] ??= []).push(v);
    }
    if (s.stats.judged) out["reward/judge_fallbacks"] = (out["reward/judge_fallbacks"] ?? 0) + s.stats.judgeFallbacks;
    for (const [k, v] of Object.entries(s.stats.failures)) out[`reward/failures/${k}`] = (out[`reward/failures/${k}`] ?? 0) + v;
    for (const [k, v] of Object.entries(s.stats.missing)) out[`reward/missing/${k}`] = (out[`reward/missing/${k}`] ?? 0) + v;
    // seconds, as every time/ metric
    for (const [k, v] of Object.entries(s.stats.ms)) out[`time/reward/${k}`] = (out[`time/reward/${k}`] ?? 0) + v / 1000;
    for (const [k, v] of Object.entries(s.stats.counters)) out[`reward/${k}`] = (out[`reward/${k}`] ?? 0) + v;
  }
  for (const [k, vs] of Object.entries(values)) {
    if (vs.length === 0) continue;
    const mean = vs.reduce((a, b) => a + b, 0) / vs.length;
    const variance = vs.reduce((a, b) => a + (b - mean) ** 2, 0) / vs.length;
    out[`reward/${k}`] = mean;
    out[`reward/${k}_std`] = Math.sqrt(variance);
  }
  out["reward/success_rate"] = count > 0 ? successes / count : 0;
  return out;
}

/** The breakdown's one-line details and failures, kept on the trajectory (nothing when none). */
function withDetails(b: RewardBreakdown): { rewardDetails?: Record<string, string> } {
  const details: Record<string, string> = { ...b.details };
  for (const [name, message] of Object.entries(b.failed)) details[name] = `failed: ${message}`;
  // a judge that gave no score says why in the rollout itself, not only in the console
  for (const [name, reason] of Object.entries(b.missing)) details[name] = `missing: ${reason}`;
  return Object.keys(details).length > 0 ? { rewardDetails: details } : {};
}
