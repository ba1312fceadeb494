/**
 * The run directory's files, as zod schemas shared by the writer (src/train, the loop) and the
 * reader (src/report): one place says what a line of metrics.jsonl or eval.jsonl holds.
 *
 *   <run>/config.json         the resolved training config, secrets removed (any JSON object)
 *   <run>/metrics.jsonl       one line per training step, namespaced numeric keys (CleanRL style:
 *                             `reward/total`, `loss/policy`, `time/step`...); unknown keys allowed
 *   <run>/eval.jsonl          one line per held-out evaluation (before / periodic / after)
 *   <run>/trajectories.jsonl  one Trajectory per line (src/rollout/trajectory.ts) plus phase/label
 *   <run>/summary.json        written at the end; absent while a run is going
 *   <run>/checkpoints/        (not read by the report)
 *   <run>/report.html         written by `train-mcp report` / buildReport
 *
 * The schemas are loose on purpose (`z.looseObject`): a newer loop may add keys and an older
 * report must still draw them. Writers should parse with these before writing, readers use them
 * line by line and keep going past a bad line.
 */
import { z } from "zod";
import { TrajectorySchema } from "../rollout/trajectory.js";
import { ToolUseSchema } from "../rollout/tool-use.js";

/** File names inside a run directory. */
export const RUN_FILES = {
  config: "config.json",
  metrics: "metrics.jsonl",
  eval: "eval.jsonl",
  trajectories: "trajectories.jsonl",
  summary: "summary.json",
  checkpoints: "checkpoints",
  report: "report.html",
} as const;

/** config.json: whatever the loop resolved; the report shows it as JSON. */
export const RunConfigSchema = z.record(z.string(), z.unknown()).describe("resolved training config, secrets removed");
export type RunConfig = z.infer<typeof RunConfigSchema>;

/** Training phases a metrics line or trajectory can belong to. Free text is tolerated. */
export const PhaseSchema = z.string().describe('"sft" (supervised warm start) | "grpo" | "eval" | "outage" (rollouts of a step the server spoiled: not trained, played again)');

/**
 * One metrics.jsonl line. Every other key is a namespaced number (or null where the value was
 * NaN/undefined: JSON has no NaN). Known keys: reward/total, reward/<component>,
 * reward/success_rate, loss/policy, loss/kl, loss/sft, kl/mean, entropy, clip/low, clip/high,
 * clip/region, ratio/mean, grad_norm, rollout/tool_calls, rollout/without_tool, groups/zero_variance, groups/kept, tokens/completion,
 * time/rollout, time/reward, time/update, time/step.
 */
export const MetricsLineSchema = z.looseObject({
  step: z.number().int().min(0).describe("optimizer step, 1-based for training steps"),
  time: z.string().describe("ISO-8601 wall-clock time the step ended"),
  phase: PhaseSchema.optional(),
});
export type MetricsLine = z.infer<typeof MetricsLineSchema>;

/** One eval.jsonl line: a held-out evaluation of the policy at `step`. */
export const EvalLineSchema = z.looseObject({
  step: z.number().int().min(0).describe("training step the evaluated weights come from (0 = before RL)"),
  label: z.string().describe('"before" | "after" | "periodic" | free text'),
  split: z.string().default("test").describe("scenario split evaluated"),
  n: z.number().int().min(0).describe("scenarios evaluated"),
  success_rate: z.number().min(0).max(1),
  mean_reward: z.number(),
  mean_turns: z.number(),
  pass_at_k: z.number().min(0).max(1).optional(),
  k: z.number().int().min(1).optional(),
  per_tag: z.record(z.string(), z.number()).optional().describe("success rate per scenario tag"),
  tool_use: ToolUseSchema.optional().describe("how the evaluation's rollouts used each tool (src/rollout/tool-use.ts)"),
  time: z.string().optional(),
});
export type EvalLine = z.infer<typeof EvalLineSchema>;

/**
 * One trajectories.jsonl line: a Trajectory plus where it came from. Eval rollouts carry
 * `phase: "eval"` and the `label` of their evaluation ("before", "after", "periodic").
 */
export const TrajectoryLineSchema = TrajectorySchema.extend({
  phase: PhaseSchema.optional(),
  label: z.string().optional().describe("the evaluation label, for eval rollouts"),
});
export type TrajectoryLine = z.infer<typeof TrajectoryLineSchema>;

/** What the report needs of a trajectory line: the token arrays may be dropped. */
export const TrajectoryViewSchema = TrajectoryLineSchema.omit({ tokenIds: true, assistantMask: true, sampleLogprobs: true });
export type TrajectoryView = z.infer<typeof TrajectoryViewSchema>;

/** summary.json: the run's result, written once at the end. */
export const RunSummarySchema = z.looseObject({
  heldout_before: z.number().min(0).max(1).nullable().optional().describe("held-out success before RL (fraction)"),
  heldout_after: z.number().min(0).max(1).nullable().optional().describe("held-out success after RL (fraction)"),
  heldout_n: z.number().int().min(0).optional(),
  wall_s: z.number().min(0).optional(),
  steps: z.number().int().min(0).optional(),
  run_dir: z.string().optional(),
  final_eval_error: z.string().optional().describe("the final evaluation failed: why, and how to measure it again"),
});
export type RunSummary = z.infer<typeof RunSummarySchema>;

/** True for trajectories of an evaluation rather than training rollouts. */
export function isEvalTrajectory(t: { phase?: string; label?: string }): boolean {
  return t.phase === "eval" || t.label !== undefined;
}
