/**
 * The JSON the report page embeds: everything the browser code draws, already scrubbed.
 * Built from the run's small files (read-run.ts) and the trajectory sample (sample.ts); the
 * page reads it by key (client/main.js), so adding a field here breaks nothing there.
 */
import { basename, resolve } from "node:path";
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
  notes: RunNote[];
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
    notes: scrubSecretValues([...run.notes, ...sample.notes]),
  };
}
