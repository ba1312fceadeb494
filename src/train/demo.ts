/**
 * The offline demo preset: the built-in tiny model on bundled fixture servers and their
 * scenario sets, sized to run the whole trip (warm start, GRPO with real tool calls, held-out
 * evaluation before and after, report) on 2 CPU cores in minutes, with no network.
 */
import type { TrainConfigInput } from "./config.js";

export const DEMO_CONFIG: TrainConfigInput = {
  // the built-in model's shipped weights were pretrained on calculator tasks, and taught to answer
  // the easy-looking ones without a tool (scripts/base-model/): what RL has to learn here is when
  // to call the calculator. The calculator's bundled set holds 100 held-out scenarios
  server: ["fixture:calculator"],
  model: "default",
  scenarios: ["auto"],
  // 3000 fresh verified training tasks beside the bundled 300 (those asking a held-out question
  // dropped: ~2,670 kept): replayed for 40 steps, 300 tasks are partly learned by heart; fresh
  // ones reward calling the tool and copying its result. Held-out 65/65/66% over seeds 1-3,
  // against 63/62% on the bundled 300 alone
  generate_train_scenarios: 3000,
  seed: 1,
  // the demo is meant for an otherwise idle machine: two wasm threads train ~1.45x faster
  wasm_threads: 2,
  // a base eval first; the warm start runs only when the model does not call tools yet (the
  // shipped weights call one on 67 of the 100 held-out tasks: no warm start; the built-in model
  // without its weights file starts from random weights and needs it)
  sft: "auto",
  sft_steps: 40,
  sft_batch_size: 16,
  sft_learning_rate: 3e-3,
  sft_target_success: 0.7,
  max_steps: 40,
  groups_per_step: 4,
  num_generations: 8,
  // pretrained weights take RL steps near the pretraining's final learning rate; above ~2e-4 the
  // policy collapses within a few steps
  learning_rate: 5e-5,
  loss_type: "dapo",
  epsilon: 0.2,
  epsilon_high: 0.28,
  // more rollouts succeed at 0.7 than at 1, so more groups have a success to learn from
  temperature: 0.7,
  max_turns: 3,
  max_tokens_per_turn: 64,
  micro_batch_size: 8,
  save_steps: 10,
  eval_n: 0,
  system_prompt: "Use the tools to answer.",
  // rollouts sample on onnxruntime, which agrees with the trainer within 1e-4
  importance_sampling_correction: false,
};
