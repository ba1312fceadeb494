/**
 * Chooses which trajectories a report embeds. trajectories.jsonl holds every rollout of a run
 * (often far more than a page should carry), so the report keeps:
 *   1. every trajectory of the evaluations before and after RL (the evidence), always: labels
 *      "before", "after" and "base" (the warm-start probe, which is the before-RL measurement
 *      itself when no warm start followed: src/train/loop.ts then copies its line as "before"
 *      in eval.jsonl, but its rollouts keep the label "base");
 *   2. then, up to a count and a byte budget, trajectories sampled evenly over steps: round-robin
 *      over steps, visiting steps and the rollouts within a step in van der Corput order, so a
 *      small budget still spans the whole run and every group of a step before repeating one.
 * Two streaming passes: the first validates each line and records its step, kind and slimmed
 * size; the second parses only the chosen lines. Token arrays are dropped and very long strings
 * cut; credential-looking strings are scrubbed.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { readJsonl } from "./jsonl.js";
import { problemNotes, type RunNote } from "./read-run.js";
import { isEvalTrajectory, RUN_FILES, TrajectoryViewSchema, type TrajectoryView } from "./run-files.js";
import { scrubSecretValues } from "./scrub.js";

export interface SampleOptions {
  /** most trajectories embedded, pinned eval ones included unless they alone exceed it (default 2000) */
  maxTrajectories?: number;
  /** budget in characters of embedded trajectory JSON for the sampled (non-pinned) ones (default 6,000,000) */
  maxChars?: number;
  /** longer strings (a tool result, a message) are cut to this many characters (default 20,000) */
  maxStringChars?: number;
}

export interface SampleStats {
  /** valid trajectory lines in the file */
  total: number;
  embedded: number;
  /** before/after eval trajectories (all embedded) */
  pinned: number;
  /** the pinned ones per evaluation label, e.g. {base: 32, after: 8} */
  pinnedByLabel: Record<string, number>;
  /** distinct steps among the training trajectories in the file / embedded */
  steps: number;
  stepsEmbedded: number;
  capped: boolean;
}

export interface SampledTrajectories {
  trajectories: TrajectoryView[];
  stats: SampleStats;
  notes: RunNote[];
}

export const DEFAULT_MAX_TRAJECTORIES = 2000;
export const DEFAULT_MAX_CHARS = 6_000_000;
export const DEFAULT_MAX_STRING_CHARS = 20_000;

/** the evaluation labels src/train/loop.ts writes for the measurements before and after RL */
export const PINNED_LABELS = new Set(["base", "before", "after"]);

interface Entry {
  line: number;
  step: number;
  chars: number;
  /** the evaluation label when the line is pinned */
  pinned: string | undefined;
  train: boolean;
}

export async function sampleTrajectories(runDir: string, options: SampleOptions = {}): Promise<SampledTrajectories> {
  const maxCount = options.maxTrajectories ?? DEFAULT_MAX_TRAJECTORIES;
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS;
  const maxString = options.maxStringChars ?? DEFAULT_MAX_STRING_CHARS;
  const path = join(runDir, RUN_FILES.trajectories);
  const file = RUN_FILES.trajectories;
  const empty: SampleStats = { total: 0, embedded: 0, pinned: 0, pinnedByLabel: {}, steps: 0, stepsEmbedded: 0, capped: false };
  if (!existsSync(path)) return { trajectories: [], stats: empty, notes: [{ level: "warn", file, message: `${file} is missing` }] };

  // Pass 1: an index of every valid line.
  const entries: Entry[] = [];
  const first = await readJsonl(path, file, TrajectoryViewSchema, ({ value, line }) => {
    const slim = slimTrajectory(value, maxString);
    entries.push({
      line,
      step: value.step,
      chars: JSON.stringify(slim).length,
      pinned: value.label !== undefined && PINNED_LABELS.has(value.label) ? value.label : undefined,
      train: !isEvalTrajectory(value),
    });
  });
  const notes = problemNotes(first.problems);

  const chosen = choose(entries, maxCount, maxChars);
  // Pass 2: parse only the chosen lines.
  const trajectories: TrajectoryView[] = [];
  await readJsonl(path, file, TrajectoryViewSchema, ({ value }) => trajectories.push(slimTrajectory(value, maxString)), (line) => chosen.has(line));

  const trainSteps = new Set(entries.filter((e) => e.train).map((e) => e.step));
  const embeddedSteps = new Set(trajectories.filter((t) => !isEvalTrajectory(t)).map((t) => t.step));
  const pinnedByLabel: Record<string, number> = {};
  for (const e of entries) if (e.pinned) pinnedByLabel[e.pinned] = (pinnedByLabel[e.pinned] ?? 0) + 1;
  const stats: SampleStats = {
    total: entries.length,
    embedded: trajectories.length,
    pinned: entries.filter((e) => e.pinned).length,
    pinnedByLabel,
    steps: trainSteps.size,
    stepsEmbedded: embeddedSteps.size,
    capped: trajectories.length < entries.length,
  };
  if (stats.capped) {
    notes.push({
      level: "info",
      file,
      message:
        stats.embedded === 0
          ? `no trajectories embedded (at most 0 asked for) of the ${stats.total} in ${file}`
          : `showing ${stats.embedded} of ${stats.total} trajectories: ${pinnedText(pinnedByLabel)}` +
            `the rest sampled evenly over ${stats.steps} training steps (${stats.stepsEmbedded} represented)`,
    });
  }
  return { trajectories, stats, notes };
}

/** "all 40 evaluation rollouts labelled base (32) and after (8), " ("" when none is pinned) */
export function pinnedText(byLabel: Record<string, number>): string {
  const labels = [...PINNED_LABELS].filter((l) => byLabel[l] > 0);
  if (labels.length === 0) return "";
  const parts = labels.map((l) => `${l} (${byLabel[l]})`);
  const list = parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`;
  const n = labels.reduce((s, l) => s + byLabel[l], 0);
  return `all ${n} evaluation rollouts labelled ${list}, `;
}

/** The line numbers to embed: pinned first, then round-robin over steps within the budgets. */
export function choose(entries: Entry[], maxCount: number, maxChars: number): Set<number> {
  const chosen = new Set<number>();
  // 0 asks for no trajectories at all, the pinned evaluations' too
  if (maxCount === 0) return chosen;
  for (const e of entries) if (e.pinned) chosen.add(e.line);
  let count = Math.max(0, maxCount - chosen.size);
  let chars = maxChars;

  const byStep = new Map<number, Entry[]>();
  for (const e of entries) {
    if (e.pinned) continue;
    const bucket = byStep.get(e.step);
    if (bucket) bucket.push(e);
    else byStep.set(e.step, [e]);
  }
  const steps = [...byStep.keys()].sort((a, b) => a - b);
  const stepOrder = spreadOrder(steps.length).map((i) => steps[i]);
  const queues = new Map<number, Entry[]>();
  for (const s of steps) {
    const bucket = byStep.get(s) ?? [];
    queues.set(s, spreadOrder(bucket.length).map((i) => bucket[i]));
  }
  let progress = true;
  while (count > 0 && progress) {
    progress = false;
    for (const s of stepOrder) {
      if (count === 0) break;
      const queue = queues.get(s);
      if (!queue || queue.length === 0) continue;
      // Skip past rollouts too big for what is left of the budget; a smaller one may still fit.
      while (queue.length > 0) {
        const e = queue.shift() as Entry;
        if (e.chars <= chars) {
          chosen.add(e.line);
          chars -= e.chars;
          count--;
          progress = true;
          break;
        }
      }
    }
  }
  return chosen;
}

/** 0..n-1 in van der Corput (bit-reversal) order: 0, n/2, n/4, 3n/4, ... */
export function spreadOrder(n: number): number[] {
  if (n <= 1) return n === 1 ? [0] : [];
  const bits = Math.ceil(Math.log2(n));
  const order: number[] = [];
  for (let i = 0; i < 1 << bits; i++) {
    let r = 0;
    for (let b = 0; b < bits; b++) if (i & (1 << b)) r |= 1 << (bits - 1 - b);
    if (r < n) order.push(r);
  }
  return order;
}

/** Drops nothing else (token arrays are already gone via the schema); cuts long strings, scrubs. */
export function slimTrajectory(t: TrajectoryView, maxString: number): TrajectoryView {
  return scrubSecretValues(cutStrings(t, maxString));
}

function cutStrings<T>(value: T, max: number): T {
  if (typeof value === "string") {
    return (value.length > max ? `${value.slice(0, max)}\n… [cut: ${value.length - max} more characters]` : value) as T;
  }
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => cutStrings(v, max)) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = cutStrings(v, max);
  return out as T;
}
