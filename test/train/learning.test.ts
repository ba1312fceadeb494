/**
 * The shortened loop that must learn: a tiny model, a brief warm start on reference solutions,
 * then ten seeded GRPO steps with real tool calls on the real calculator server. The reward of
 * the rollouts (verifier + rubric) has to rise from the first steps to the last.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveTrainConfig } from "../../src/train/config.js";
import { train } from "../../src/train/loop.js";
import { calculatorScenarios, tempDir, tinyModelDir } from "./helpers.js";

describe("GRPO in the real loop", () => {
  it("raises the rollout reward over ten seeded steps", async () => {
    const rewards: number[] = [];
    const logs: string[] = [];
    const config = resolveTrainConfig({
      server: ["fixture:calculator"],
      model: tinyModelDir(1),
      scenarios: [calculatorScenarios(40, 4)],
      out: path.join(tempDir("learn"), "run"),
      seed: 3,
      sft: "on",
      sft_steps: 15,
      sft_batch_size: 8,
      sft_learning_rate: 3e-3,
      max_steps: 10,
      groups_per_step: 4,
      num_generations: 6,
      max_turns: 2,
      max_tokens_per_turn: 32,
      save_steps: 0,
      learning_rate: 1e-3,
      engine: "tfjs",
      eval_n: 4,
      system_prompt: "Use the tools.",
    });
    await train({
      config,
      hooks: {
        log: (l) => logs.push(l),
        onMetrics: (r) => {
          if (r.phase === "grpo") rewards.push(r["reward/total"] as number);
        },
      },
    });
    expect(rewards).toHaveLength(10);
    // the warm start says after its third step how long the rest may take
    expect(logs.filter((l) => /^warm start: [\d.]+ s a step, so up to \d+ (s|min) more for the 12 steps left of 15 \(/.test(l))).toHaveLength(1);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const first = mean(rewards.slice(0, 3));
    const last = mean(rewards.slice(-3));
    expect(last).toBeGreaterThan(first + 0.02);
  });
});
