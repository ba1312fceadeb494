/**
 * sft "auto": the loop first measures the model on the held-out set; a model that cannot call
 * tools yet gets the supervised warm start; without one (a model that calls tools, or no
 * warm-start steps allowed) that measurement is the "before". The probe plays at least 32
 * scenarios (loop.test.ts), topped up from training ones when the held-out set is smaller.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveTrainConfig } from "../../src/train/config.js";
import { train } from "../../src/train/loop.js";
import { stdioTarget } from "../servers/launch.js";
import { calculatorScenarios, cli, readJsonl, tempDir, tinyModelDir } from "./helpers.js";

const common = {
  server: ["fixture:calculator"],
  scenarios: [calculatorScenarios(8, 8)],
  seed: 5,
  sft: "auto" as const,
  sft_steps: 2,
  sft_batch_size: 4,
  max_steps: 1,
  groups_per_step: 2,
  num_generations: 2,
  max_turns: 3,
  max_tokens_per_turn: 64,
  system_prompt: "Use the tools to answer.",
  save_steps: 0,
};

describe("the supervised warm start on auto", () => {
  it("runs for a model that cannot call tools (random weights)", async () => {
    const out = path.join(tempDir("ws"), "run");
    const logs: string[] = [];
    const summary = await train({ config: resolveTrainConfig({ ...common, model: tinyModelDir(), out, engine: "tfjs" }), hooks: { log: (l) => logs.push(l) } });
    expect(summary.sft_steps).toBe(2);
    expect(logs.some((l) => l.includes("supervised warm start first"))).toBe(true);
    // the probe says what it is: 8 held-out scenarios topped up with training ones, not "held-out base"
    expect(logs).toContainEqual(expect.stringMatching(/^warm-start probe: success \d+\.\d% of 16 scenarios \(8 held-out, 8 training\) \(mean reward [\d.]+, [\d.]+ s\): does the model call tools yet\?$/));
    expect(readJsonl(path.join(out, "eval.jsonl")).map((e) => e.label)).toEqual(["base", "before", "after"]);
  });

  it("with no warm-start steps allowed, the base measurement is the 'before' (not measured twice)", async () => {
    const out = path.join(tempDir("ws"), "run");
    // a held-out set of 32, the least the probe plays: the probe is the held-out set itself
    const logs: string[] = [];
    const summary = await train({
      config: resolveTrainConfig({ ...common, scenarios: [calculatorScenarios(8, 32)], max_tokens_per_turn: 16, sft_steps: 0, model: tinyModelDir(2), out, engine: "tfjs" }),
      hooks: { log: (l) => logs.push(l) },
    });
    expect(logs).toContainEqual(expect.stringMatching(/^warm-start probe: success \d+\.\d% of 32 held-out scenarios \(mean reward [\d.]+, [\d.]+ s\): does the model call tools yet\?$/));
    expect(summary.heldout_base).toBeCloseTo(readJsonl(path.join(out, "eval.jsonl"))[0].success_rate as number, 3);
    expect(summary.sft_steps).toBe(0);
    const evals = readJsonl(path.join(out, "eval.jsonl"));
    expect(evals.map((e) => e.label)).toEqual(["base", "before", "after"]);
    expect(evals[1].success_rate).toBe(evals[0].success_rate);
    expect(evals[1].mean_reward).toBe(evals[0].mean_reward);
    // one evaluation's rollouts, not two
    const evalRollouts = readJsonl(path.join(out, "trajectories.jsonl")).filter((t) => t.phase === "eval");
    expect(evalRollouts.filter((t) => t.label === "base")).toHaveLength(32);
    expect(evalRollouts.filter((t) => t.label === "before")).toHaveLength(0);
  });

  it("runs for a model that calls only tools the server does not have (the built-in model on a database server)", async () => {
    // the built-in model knows the calculator's tools; on an SQL server it calls `percentage`,
    // which is no tool call here: before, that counted as "already calls tools" and GRPO began
    // from a model none of whose calls could reach the server
    const out = path.join(tempDir("ws-unknown"), "run");
    const r = await cli(["train", "--server", stdioTarget("sqlite"), "--scenarios", "auto", "--steps", "1", "--groups-per-step", "1", "--group-size", "2", "--sft-steps", "1", "--seed", "3", "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/the model calls the server's tools in 0 of \d+ probe rollouts \(it called tools the server does not have: [a-z_]+.*\): supervised warm start first/);
    expect(JSON.parse(fs.readFileSync(path.join(out, "summary.json"), "utf8")).sft_steps).toBe(1);
  });
});
