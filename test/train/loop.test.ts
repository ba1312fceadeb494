import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { latestCheckpoint, readCheckpointState, readRolloutSettings } from "../../src/train/checkpoint.js";
import { resolveTrainConfig } from "../../src/train/config.js";
import { train } from "../../src/train/loop.js";
import { calculatorScenarios, readJsonl, tempDir, tinyModelDir } from "./helpers.js";

describe("the training loop on a tiny model and the real calculator server", () => {
  it("runs the whole trip and leaves a complete run directory", async () => {
    const out = path.join(tempDir("run"), "run");
    const logs: string[] = [];
    const config = resolveTrainConfig({
      server: ["fixture:calculator"],
      model: tinyModelDir(),
      scenarios: [calculatorScenarios(12, 6)],
      out,
      seed: 3,
      sft: "on",
      sft_steps: 3,
      sft_batch_size: 4,
      max_steps: 2,
      groups_per_step: 2,
      num_generations: 2,
      max_turns: 2,
      max_tokens_per_turn: 24,
      save_steps: 1,
      learning_rate: 1e-3,
      engine: "tfjs",
      // the trip with each layer's activations recomputed (gradients equal: checkpointing.test.ts)
      gradient_checkpointing: true,
    });
    const summary = await train({ config, hooks: { log: (l) => logs.push(l) } });
    expect(summary.steps).toBe(2);
    expect(logs.find((l) => l.startsWith("model: "))).toContain("full fine-tuning, gradient checkpointing;");
    expect(summary.sft_steps).toBe(3);
    expect(summary.heldout_n).toBe(6);
    expect(summary.heldout_before).toBeGreaterThanOrEqual(0);
    expect(Number.isFinite(summary.heldout_after)).toBe(true);
    // per template: counts add up to the held-out set, rates match the eval records
    const byTemplate = summary.heldout_by_template!;
    expect(Object.values(byTemplate).reduce((s, r) => s + r.n, 0)).toBe(6);
    for (const [name, r] of Object.entries(byTemplate)) {
      expect(name.startsWith("calculator.")).toBe(true);
      expect(r.before).toBeGreaterThanOrEqual(0);
      expect(r.after).toBeLessThanOrEqual(1);
    }

    const metrics = readJsonl(path.join(out, "metrics.jsonl"));
    expect(metrics.filter((m) => m.phase === "sft").map((m) => m.step)).toEqual([1, 2, 3]);
    const grpo = metrics.filter((m) => m.phase === "grpo");
    expect(grpo.map((m) => m.step)).toEqual([1, 2]);
    for (const m of grpo) {
      for (const k of ["reward/total", "loss/total", "grad_norm", "clip/region", "policy/entropy", "time/rollout", "time/update"]) expect(typeof m[k]).toBe("number");
    }
    const evals = readJsonl(path.join(out, "eval.jsonl"));
    expect(evals.map((e) => e.label)).toEqual(["before", "after"]);
    const afterTags = evals[1].per_tag as Record<string, number>;
    for (const [name, r] of Object.entries(byTemplate)) expect(r.after).toBeCloseTo(afterTags[`template:${name}`], 4);
    const trajectories = readJsonl(path.join(out, "trajectories.jsonl"));
    expect(trajectories.filter((t) => t.phase === "grpo")).toHaveLength(2 * 2 * 2);
    expect(trajectories.filter((t) => t.phase === "eval")).toHaveLength(12);
    for (const t of trajectories.filter((t) => t.phase === "grpo")) {
      expect((t.tokenIds as number[]).length).toBe((t.assistantMask as number[]).length);
      expect(typeof t.reward).toBe("number");
    }
    // checkpoints: complete folders only, the newest one loadable, the last N kept
    const latest = latestCheckpoint(path.join(out, "checkpoints"))!;
    expect(path.basename(latest)).toBe("step-000002");
    const ck = readCheckpointState(latest);
    expect(ck.state.step).toBe(2);
    expect(ck.state.sftDone).toBe(true);
    expect(ck.optimizer.m.size).toBeGreaterThan(0);
    for (const f of ["model.safetensors", "config.json", "tokenizer.json", "optimizer.safetensors", "trainer_state.json"]) expect(fs.existsSync(path.join(latest, f))).toBe(true);
    // how it was played and scored, for eval
    expect(readRolloutSettings(latest)).toMatchObject({ max_turns: 2, max_tokens_per_turn: 24, rewards: { normalize: true, rubric: true } });
    expect(fs.readdirSync(path.join(out, "checkpoints")).filter((e) => e.startsWith(".tmp"))).toEqual([]);
    expect(fs.existsSync(path.join(out, "report.html"))).toBe(true);
    expect(JSON.parse(fs.readFileSync(path.join(out, "summary.json"), "utf8")).heldout_n).toBe(6);
    expect(JSON.parse(fs.readFileSync(path.join(out, "config.json"), "utf8")).max_steps).toBe(2);
  });
});
