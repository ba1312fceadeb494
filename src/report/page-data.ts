/**
 * The JSON the report page embeds: everything the browser code draws, already scrubbed.
 * Built from the run's small files (read-run.ts) and the trajectory sample (sample.ts); the
 * page reads it by key (client/main.js), so adding a field here breaks nothing there.
 */
import { basename, resolve } from "node:path";
import { z } from "zod";
import { DEFAULT_WEIGHTS } from "../rewards/defaults.js";
import type { RunData, RunNote } from "./read-run.js";
import type { EvalLine, MetricsLine, RunConfig, RunSummary, TrajectoryView } from "./run-files.js";
import type { SampledTrajectories, SampleStats } from "./sample.js";
import { scrubSecrets, scrubSecretValues } from "./scrub.js";

export interface ReportData {
  version: 1;
  generatedAt: string;
  /** the run directory's name, shown as the title */
  runName: string;
  runDir: string;
  config: RunConfig | null;
  summary: RunSummary | null;
  metrics: MetricsLine[];
  evals: EvalLine[];
  trajectories: TrajectoryView[];
  trajectoryStats: SampleStats;
  /** weight per reward component as the run used it, so the viewer can tell weight-0 ("logged only") components; null when config.json does not say */
  rewardWeights: Record<string, number> | null;
  notes: RunNote[];
}

/** The part of config.json's `rewards` the page needs (the loop writes it resolved; see src/rewards/defaults.ts). */
const RewardsSectionSchema = z.looseObject({
  weights: z.record(z.string(), z.number()).default({}).describe("overrides of DEFAULT_WEIGHTS"),
});

/** DEFAULT_WEIGHTS with the run's overrides on top; null for a config without a rewards section. */
export function rewardWeights(config: RunConfig | null): Record<string, number> | null {
  const parsed = RewardsSectionSchema.safeParse(config?.rewards);
  return parsed.success ? { ...DEFAULT_WEIGHTS, ...parsed.data.weights } : null;
}

export function buildPageData(run: RunData, sample: SampledTrajectories, now: Date): ReportData {
  const runDir = resolve(run.runDir);
  return {
    version: 1,
    generatedAt: now.toISOString(),
    runName: basename(runDir),
    runDir: scrubSecretValues(runDir),
    config: run.config ? scrubSecrets(run.config) : null,
    summary: run.summary ? scrubSecrets(run.summary) : null,
    metrics: scrubSecretValues(run.metrics),
    evals: scrubSecrets(run.evals),
    trajectories: sample.trajectories,
    trajectoryStats: sample.stats,
    rewardWeights: rewardWeights(run.config),
    notes: scrubSecretValues([...run.notes, ...sample.notes]),
  };
}
