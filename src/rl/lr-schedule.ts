/**
 * The learning rate of each GRPO step, after transformers' `get_scheduler` (what TRL's
 * `lr_scheduler_type` / `warmup_ratio` / `warmup_steps` select): a linear warmup from 0 over W
 * steps, then constant, linear decay to 0, or a half cosine to 0 at step T; "constant" has no
 * warmup there ("constant_with_warmup" has). A step here is one round of rollouts and its update
 * (num_iterations optimizer steps share that round's rate).
 *
 *   k = step − 1 (0-based), W = warmup steps, T = max_steps
 *   warmup (k < W):  lr · k / W
 *   constant:        lr
 *   linear:          lr · max(0, (T − k) / (T − W))
 *   cosine:          lr · max(0, ½ (1 + cos(π (k − W) / (T − W))))
 */
export type LrSchedulerType = "constant" | "constant_with_warmup" | "linear" | "cosine";

export interface LrSchedule {
  type: LrSchedulerType;
  learningRate: number;
  maxSteps: number;
  warmupSteps: number;
}

/** The rate for 1-based `step`. */
export function scheduledLr(s: LrSchedule, step: number): number {
  const k = step - 1;
  if (s.type === "constant") return s.learningRate;
  const w = s.warmupSteps;
  if (k < w) return (s.learningRate * k) / Math.max(1, w);
  if (s.type === "constant_with_warmup") return s.learningRate;
  const progress = (k - w) / Math.max(1, s.maxSteps - w);
  if (s.type === "linear") return s.learningRate * Math.max(0, 1 - progress);
  return s.learningRate * Math.max(0, 0.5 * (1 + Math.cos(Math.PI * progress)));
}

/** Warmup steps from TRL's two ways of saying it: warmup_steps, when above 0, wins over warmup_ratio. */
export function warmupStepsOf(maxSteps: number, warmupRatio: number, warmupSteps?: number): number {
  return warmupSteps !== undefined && warmupSteps > 0 ? warmupSteps : Math.ceil(warmupRatio * maxSteps);
}
