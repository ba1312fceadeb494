/**
 * Reads a run directory's small files (config.json, summary.json, metrics.jsonl, eval.jsonl)
 * into memory, tolerating whatever a live or killed run leaves behind: a missing file, a file
 * that is not JSON, a cut last line. Each such thing becomes a visible note in the report
 * instead of an exception. trajectories.jsonl is large and is read separately (sample.ts).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { z } from "zod";
import { TrainMcpError } from "../errors.js";
import { runOfCheckpoint } from "../train/run-dir.js";
import { readJsonl, formatZodIssue, type JsonlProblem } from "./jsonl.js";
import {
  EvalLineSchema,
  MetricsLineSchema,
  RUN_FILES,
  RunConfigSchema,
  RunSummarySchema,
  type EvalLine,
  type MetricsLine,
  type RunConfig,
  type RunSummary,
} from "./run-files.js";

export interface RunNote {
  level: "warn" | "info";
  /** the run file the note is about, when there is one */
  file?: string;
  message: string;
}

export interface RunData {
  runDir: string;
  config: RunConfig | null;
  summary: RunSummary | null;
  metrics: MetricsLine[];
  evals: EvalLine[];
  notes: RunNote[];
}

/** Up to this many bad lines are listed per file; the rest are counted. */
const MAX_LISTED_PROBLEMS = 10;

/** Throws a usage error unless `runDir` is a directory holding at least one run file. */
export function assertRunDir(runDir: string): void {
  if (!existsSync(runDir)) throw new TrainMcpError("IoFailed", `run directory not found: ${runDir}`);
  if (!statSync(runDir).isDirectory()) throw new TrainMcpError("IoFailed", `not a directory: ${runDir} (expected a run directory)`);
  // a checkpoint or model folder has a config.json too, a model's
  if (["model.safetensors", "model.safetensors.index.json", "adapter_config.json"].some((f) => existsSync(join(runDir, f)))) {
    const run = runOfCheckpoint(runDir);
    throw new TrainMcpError("IoFailed", run ? `${runDir} is a checkpoint, not a run directory: report its run, ${run}` : `${runDir} is a model folder, not a run directory`);
  }
  const runFiles = [RUN_FILES.config, RUN_FILES.metrics, RUN_FILES.eval, RUN_FILES.trajectories, RUN_FILES.summary];
  if (!runFiles.some((f) => existsSync(join(runDir, f)))) {
    throw new TrainMcpError("IoFailed", `${runDir} is not a run directory: none of ${runFiles.join(", ")} found in it`);
  }
}

export async function readRun(runDir: string): Promise<RunData> {
  assertRunDir(runDir);
  const notes: RunNote[] = [];
  const config = readJsonFile<RunConfig>(runDir, RUN_FILES.config, notes, (v) => {
    const r = RunConfigSchema.safeParse(v);
    return r.success ? { ok: r.data } : { problem: formatZodIssue(r.error) };
  });
  const summary = readJsonFile<RunSummary>(runDir, RUN_FILES.summary, notes, (v) => {
    const r = RunSummarySchema.safeParse(v);
    return r.success ? { ok: r.data } : { problem: formatZodIssue(r.error) };
  });
  // a run whose final evaluation failed has no "after": the page says why before anything else
  if (summary?.final_eval_error) notes.push({ level: "warn", file: RUN_FILES.summary, message: summary.final_eval_error });
  if (summary === null && !notes.some((n) => n.file === RUN_FILES.summary)) {
    notes.push({ level: "info", file: RUN_FILES.summary, message: "no summary.json yet: the run is still going or was stopped before its end" });
  }

  const lines: MetricsLine[] = [];
  await readJsonlFile(runDir, RUN_FILES.metrics, notes, MetricsLineSchema, (v) => lines.push(v));
  const metrics = lastPerStep(lines);
  if (metrics.length < lines.length) {
    notes.push({ level: "info", file: RUN_FILES.metrics, message: `${lines.length - metrics.length} steps appear twice in metrics.jsonl (a resumed run redoes the steps after its last checkpoint): the later line is shown` });
  }
  const evals: EvalLine[] = [];
  // a run without a held-out set measures nothing, and writes no eval.jsonl (its page says so already)
  await readJsonlFile(runDir, RUN_FILES.eval, notes, EvalLineSchema, (v) => evals.push(v), summary?.heldout_n === 0);
  return { runDir, config, summary, metrics, evals, notes };
}

/** One line per step, the last written winning, in step order. */
export function lastPerStep(lines: MetricsLine[]): MetricsLine[] {
  // warm-start (sft) and GRPO steps are numbered separately: a step is (phase, number)
  const byStep = new Map<string, MetricsLine>();
  for (const l of lines) byStep.set(`${l.phase === "sft" ? "sft" : "rl"}|${l.step}`, l);
  const kept = [...byStep.values()];
  // on the curves' axis the warm start ends at step 0, where RL begins (eval "before" = step 0)
  const sftLast = Math.max(0, ...kept.filter((l) => l.phase === "sft").map((l) => l.step));
  return kept
    .map((l) => (l.phase === "sft" ? { ...l, step: l.step - sftLast } : l))
    .sort((a, b) => a.step - b.step);
}

/** Reads one JSON file; a missing or bad file is a note and null. */
function readJsonFile<T>(
  runDir: string,
  file: string,
  notes: RunNote[],
  validate: (v: unknown) => { ok: T } | { problem: string },
): T | null {
  const path = join(runDir, file);
  if (!existsSync(path)) {
    if (file !== RUN_FILES.summary) notes.push({ level: "warn", file, message: `${file} is missing` });
    return null;
  }
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    notes.push({ level: "warn", file, message: `${file} is not valid JSON (${(e as Error).message}); ignored` });
    return null;
  }
  const r = validate(value);
  if ("problem" in r) {
    notes.push({ level: "warn", file, message: `${file}: ${r.problem}; ignored` });
    return null;
  }
  return r.ok;
}

async function readJsonlFile<T>(
  runDir: string,
  file: string,
  notes: RunNote[],
  schema: z.ZodType<T>,
  onValue: (v: T) => void,
  /** the run was not expected to write it */
  mayLack = false,
): Promise<void> {
  const path = join(runDir, file);
  if (!existsSync(path)) {
    if (!mayLack) notes.push({ level: "warn", file, message: `${file} is missing` });
    return;
  }
  try {
    const result = await readJsonl(path, file, schema, (l) => onValue(l.value as T));
    notes.push(...problemNotes(result.problems));
  } catch (e) {
    notes.push({ level: "warn", file, message: `${file} could not be read (${(e as Error).message})` });
  }
}

/** Turns JSONL problems into notes: the truncated line on its own, bad lines listed then counted. */
export function problemNotes(problems: JsonlProblem[]): RunNote[] {
  const notes: RunNote[] = [];
  const bad = problems.filter((p) => !p.truncated);
  for (const p of problems.filter((p) => p.truncated)) notes.push({ level: "warn", file: p.file, message: `${p.file}:${p.line}: ${p.message}` });
  for (const p of bad.slice(0, MAX_LISTED_PROBLEMS)) notes.push({ level: "warn", file: p.file, message: `${p.file}:${p.line}: ${p.message}` });
  if (bad.length > MAX_LISTED_PROBLEMS) {
    notes.push({ level: "warn", file: bad[0].file, message: `${bad[0].file}: ${bad.length - MAX_LISTED_PROBLEMS} more invalid lines ignored` });
  }
  return notes;
}
