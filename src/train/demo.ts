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
  // the demo is meant for an otherwise idle machine: two wasm threads train ~1.45x faster
  wasm_threads: 2,
  // the built-in model starts from random weights: it first imitates reference solutions
  sft: "on",
  sft_steps: 40,
  sft_batch_size: 16,
  sft_learning_rate: 3e-3,
  sft_target_success: 0.7,
  max_steps: 12,
  groups_per_step: 4,
  num_generations: 8,
  learning_rate: 3e-4,
  loss_type: "dapo",
  epsilon: 0.2,
  epsilon_high: 0.28,
  temperature: 1,
  max_turns: 3,
  max_tokens_per_turn: 64,
  micro_batch_size: 8,
  save_steps: 6,
  eval_n: 0,
  system_prompt: "Use the tools to answer.",
  // rollouts sample on onnxruntime, which agrees with the trainer within 1e-4
  importance_sampling_correction: false,
};
