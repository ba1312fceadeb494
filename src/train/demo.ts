/**
 * The offline demo preset: the built-in tiny model on bundled fixture servers and their
 * scenario sets, sized to run the whole trip (warm start, GRPO with real tool calls, held-out
 * evaluation before and after, report) on 2 CPU cores in minutes, with no network.
 */
import type { TrainConfigInput } from "./config.js";

export const DEMO_CONFIG: TrainConfigInput = {
  server: ["fixture:calculator", "fixture:knowledge"],
  model: "default",
  scenarios: ["auto"],
  seed: 1,
  sft: "on",
  sft_steps: 300,
  sft_batch_size: 16,
  sft_learning_rate: 2e-3,
  sft_target_success: 0.7,
  max_steps: 30,
  groups_per_step: 8,
  num_generations: 8,
  learning_rate: 2e-4,
  loss_type: "dapo",
  epsilon: 0.2,
  epsilon_high: 0.28,
  temperature: 1,
  max_turns: 3,
  max_tokens_per_turn: 64,
  micro_batch_size: 16,
  save_steps: 10,
  eval_n: 0,
  system_prompt: "Use the tools to answer.",
  importance_sampling_correction: false,
};
