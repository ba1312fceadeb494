/**
 * The RL options of a training run, named as Hugging Face TRL's `GRPOConfig` names them
 * (trl/trainer/grpo_config.py) so that a TRL user recognises every knob, with TRL's defaults
 * (see /work/shared/GRPO.md "Defaults worth matching"). The training loop embeds this schema in
 * its run config; `lossConfigOf` turns it into the camelCase options `grpoLoss` takes.
 *
 * Deviations from TRL, each a superset: `std_kind` / `advantage_epsilon` (ART uses population std
 * and 1e-6), `dynamic_sampling` (DAPO; TRL has no such switch), and the truncated-IS knobs named
 * `importance_sampling_*` instead of TRL's `vllm_importance_sampling_*`, since any remote sampler
 * (vLLM or another OpenAI-compatible engine) can differ from the trainer.
 */
import { z } from "zod";

export const LossTypeSchema = z
  .enum(["grpo", "bnpo", "dr_grpo", "dapo"], {
    // GSPO is a ratio level in TRL, not a loss: say where it is
    error: (issue) => (issue.input === "gspo" ? 'GSPO is not a loss_type: it is importance_sampling_level: "sequence" (with any loss_type; TRL\'s GSPO recipe uses "grpo")' : undefined),
  })
  .describe(
    "aggregation of per-token losses: grpo = mean of per-sequence means; bnpo = token mean of the " +
      "micro-batch; dr_grpo = sum / (sequences × max_completion_length); dapo = sum / completion tokens of the whole step",
  );
export type LossType = z.infer<typeof LossTypeSchema>;

export const ScaleRewardsSchema = z
  .preprocess(
    // TRL < 0.22 took a boolean: true meant "group", false meant "none"
    (v) => (v === true ? "group" : v === false ? "none" : v),
    z.enum(["group", "batch", "none"]),
  )
  .describe('advantage scaling: "group" std, "batch" std, or "none" (Dr.GRPO)');
export type ScaleRewards = "group" | "batch" | "none";

export const GrpoConfigSchema = z
  .object({
    loss_type: LossTypeSchema.default("dapo"),
    epsilon: z.number().min(0).max(1).default(0.2).describe("lower clip range ε_low; default 0.2"),
    epsilon_high: z
      .number()
      .min(0)
      .nullish()
      .describe("upper clip range ε_high; default null = epsilon (DAPO's clip-higher uses 0.28)"),
    delta: z
      .number()
      .gt(1)
      .nullish()
      .describe("two-sided GRPO: upper clamp on the unclipped ratio (INTELLECT-2); default null = off"),
    beta: z.number().min(0).default(0).describe("k3 KL coefficient to the reference (adapters off); default 0"),
    importance_sampling_level: z
      .enum(["token", "sequence"])
      .default("token")
      .describe('"token" (GRPO) or "sequence" (GSPO: one length-normalised ratio per sequence); default token'),
    scale_rewards: ScaleRewardsSchema.default("group"),
    std_kind: z
      .enum(["sample", "population"])
      .default("sample")
      .describe('std used to scale advantages: "sample" (N−1, TRL) or "population" (N, ART); default sample'),
    advantage_epsilon: z
      .number()
      .min(0)
      .default(1e-4)
      .describe("added to the std before dividing; TRL 1e-4 (default), ART 1e-6"),
    mask_truncated_completions: z
      .boolean()
      .default(false)
      .describe("drop (mask out) completions that hit the token limit; default false"),
    num_generations: z.number().int().min(2).default(8).describe("G, rollouts per scenario (group size ≥ 2); default 8"),
    max_completion_length: z
      .number()
      .int()
      .positive()
      .nullable()
      .default(null)
      .describe(
        "generated tokens at most per rollout, all turns together (TRL max_completion_length: a rollout that reaches it ends truncated), " +
          "and dr_grpo's constant divisor per sequence; null (default): max_turns × max_tokens_per_turn, which never binds",
      ),
    num_iterations: z
      .number()
      .int()
      .positive()
      .default(1)
      .describe("μ, updates per generated batch; >1 makes the ratio differ from 1; default 1"),
    dynamic_sampling: z
      .boolean()
      .default(false)
      .describe("DAPO: drop groups whose rewards are all equal and sample more to refill; default false"),
    max_refill_rounds: z
      .number()
      .int()
      .min(0)
      .default(3)
      .describe("with dynamic_sampling, extra sampling rounds at most per step; default 3"),
    rft_coef: z
      .number()
      .min(0)
      .default(0)
      .describe(
        "rejection-sampling fine-tuning inside the step (RAFT / STaR): added to the advantage of each group's best " +
          "successful rollout (when none of its group scored higher), i.e. coef × its NLL joins the loss; 0 = off (TRL has no such knob); default 0",
      ),
    importance_sampling_correction: z
      .boolean()
      .default(true)
      .describe(
        "truncated importance sampling (TIS) when the sampler is another engine than the trainer " +
          "(TRL vllm_importance_sampling_correction); has an effect only when sampler log-probs are given; default true",
      ),
    importance_sampling_cap: z
      .number()
      .positive()
      .default(2)
      .describe("TIS cap C on exp(old_trainer − old_sampler) (TRL vllm_importance_sampling_cap); default 2"),
    learning_rate: z.number().positive().max(1, "a learning rate above 1 makes every update diverge (typical: 1e-6 full fine-tuning, 1e-5 LoRA)").default(1e-6).describe("TRL default 1e-6 (full fine-tune); LoRA runs use ~1e-5"),
    lr_scheduler_type: z
      .enum(["constant", "constant_with_warmup", "linear", "cosine"])
      .default("constant")
      .describe("learning rate over the GRPO steps (src/rl/lr-schedule.ts); default constant (TRL's default is linear decay to 0)"),
    warmup_ratio: z.number().min(0).max(1).default(0).describe("share of max_steps warming the learning rate up from 0 (not for constant); default 0"),
    warmup_steps: z.number().int().min(0).optional().describe("warmup in steps; above 0 it wins over warmup_ratio"),
    max_grad_norm: z.number().min(0).default(1).describe("gradient clipping by global norm; 0 = off; default 1.0"),
    sft_reduction: z
      .enum(["token", "sequence"])
      .default("token")
      .describe("SFT warm start: mean over tokens (default) or mean of per-sequence means"),
  })
  .strict();
export type GrpoConfig = z.infer<typeof GrpoConfigSchema>;

/** The options `grpoLoss` reads, camelCase; see src/rl/grpo-loss.ts. */
export interface LossOptionsFromConfig {
  lossType: LossType;
  epsilon: number;
  epsilonHigh: number;
  delta?: number;
  beta: number;
  importanceSamplingLevel: "token" | "sequence";
  maxCompletionLength?: number;
  maskTruncatedCompletions: boolean;
  tisCap?: number;
}

/** Resolves the derived values once (epsilon_high null → epsilon; TIS off → no cap). */
export function lossConfigOf(cfg: GrpoConfig): LossOptionsFromConfig {
  return {
    lossType: cfg.loss_type,
    epsilon: cfg.epsilon,
    epsilonHigh: cfg.epsilon_high ?? cfg.epsilon,
    delta: cfg.delta ?? undefined,
    beta: cfg.beta,
    importanceSamplingLevel: cfg.importance_sampling_level,
    maxCompletionLength: cfg.max_completion_length ?? undefined,
    maskTruncatedCompletions: cfg.mask_truncated_completions,
    tisCap: cfg.importance_sampling_correction ? cfg.importance_sampling_cap : undefined,
  };
}
