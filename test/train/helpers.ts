/**
 * Shared pieces of the training tests: a tiny model folder (the built-in tokenizer, a small
 * config, seeded random weights) and small scenario files cut from the bundled calculator set,
 * so a whole run takes seconds.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { resolveConfig } from "../../src/policy/config.js";
import { defaultModelDir } from "../../src/policy/default-model/index.js";
import { initRandomWeights, saveCheckpoint } from "../../src/policy/weights.js";
import { TrajectorySchema, type Trajectory } from "../../src/rollout/trajectory.js";

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `train-mcp-${prefix}-`));
}

function copyBuiltInTokenizer(dir: string): void {
  for (const f of ["tokenizer.json", "tokenizer_config.json", "chat_template.jinja"]) {
    const src = path.join(defaultModelDir(), f);
    if (fs.existsSync(src)) fs.copyFileSync(src, path.join(dir, f));
  }
}

/**
 * The built-in model's config and tokenizer with seeded random weights, as the built-in model was
 * before it shipped trained weights: tests of serving mechanics (constrained decoding, stop
 * strings, adapters) want its long, noisy outputs rather than the trained model's short answers.
 */
export function untrainedDefaultModelDir(seed = 0): string {
  const dir = tempDir("untrained");
  copyBuiltInTokenizer(dir);
  const config = resolveConfig(JSON.parse(fs.readFileSync(path.join(defaultModelDir(), "config.json"), "utf8")) as Record<string, unknown>);
  saveCheckpoint(dir, config, initRandomWeights(config, seed));
  return dir;
}

/** A 2-layer, 64-wide model with the built-in tokenizer, saved as a Hugging Face folder. */
export function tinyModelDir(seed = 1): string {
  const dir = tempDir("model");
  copyBuiltInTokenizer(dir);
  const raw = JSON.parse(fs.readFileSync(path.join(defaultModelDir(), "config.json"), "utf8")) as Record<string, unknown>;
  const config = resolveConfig({ ...raw, hidden_size: 64, intermediate_size: 128, num_hidden_layers: 2, num_attention_heads: 2, num_key_value_heads: 1, head_dim: 32, max_position_embeddings: 1024 });
  saveCheckpoint(dir, config, initRandomWeights(config, seed));
  return dir;
}

/** The first `train` training and `test` held-out single-call scenarios of the calculator set. */
export function calculatorScenarios(trainN: number, testN: number): string {
  const lines = fs
    .readFileSync(path.resolve("scenarios/calculator.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { split: string; reference?: { calls: unknown[] } });
  const single = lines.filter((s) => s.reference?.calls.length === 1);
  const pick = [...single.filter((s) => s.split === "train").slice(0, trainN), ...single.filter((s) => s.split === "test").slice(0, testN)];
  const file = path.join(tempDir("scenarios"), "calc.jsonl");
  fs.writeFileSync(file, pick.map((s) => JSON.stringify(s)).join("\n") + "\n");
  return file;
}

export function readJsonl(file: string): Array<Record<string, unknown>> {
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Runs bin/train-mcp.mjs with these arguments, outside vitest's environment; `envChanges` sets
 *  variables (undefined removes one). */
export function cli(args: string[], envChanges: Record<string, string | undefined> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const inherited = Object.entries(process.env).filter(([k]) => !k.startsWith("VITEST") && k !== "NODE_OPTIONS" && !(k in envChanges));
    const env = Object.fromEntries([...inherited, ...Object.entries(envChanges).filter(([, v]) => v !== undefined)]);
    const child = spawn(process.execPath, ["bin/train-mcp.mjs", ...args], { stdio: ["ignore", "pipe", "pipe"], env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * A one-turn rollout with no conversation behind it, for update tests: `prompt` context tokens
 * then `sampled` policy tokens (sampler log-prob -1), their ids spread by `seed`.
 */
export function syntheticRollout(o: { id: string; groupId: string; seed: number; reward: number; success?: boolean; prompt?: number; sampled?: number }): Trajectory {
  const prompt = Array.from({ length: o.prompt ?? 12 }, (_, i) => 10 + ((o.seed * 7 + i * 3) % 200));
  const sampled = Array.from({ length: o.sampled ?? 6 }, (_, i) => 300 + ((o.seed * 11 + i * 5) % 300));
  return TrajectorySchema.parse({
    id: o.id,
    scenarioId: o.groupId,
    groupId: o.groupId,
    messages: [],
    tokenIds: [...prompt, ...sampled],
    assistantMask: [...prompt.map(() => 0), ...sampled.map(() => 1)],
    sampleLogprobs: [...prompt.map(() => 0), ...sampled.map(() => -1)],
    toolCalls: [],
    finish: "answer",
    turns: 1,
    reward: o.reward,
    success: o.success ?? o.reward > 0.5,
  });
}

/** `train` on the calculator fixture with a tiny budget (seeded, checkpoint every step, --json);
 *  `more` adds or overrides flags (e.g. --groups-per-step, --scenarios). */
export function tinyRunArgs(model: string, out: string, steps: number, more: string[] = []): string[] {
  return [
    "train",
    "--server", "fixture:calculator",
    "--model", model,
    "--out", out,
    "--steps", String(steps),
    "--save-steps", "1",
    "--group-size", "2",
    "--max-turns", "2",
    "--max-tokens-per-turn", "16",
    "--sft", "off",
    "--engine", "tfjs",
    "--eval-n", "2",
    "--seed", "5",
    "--json",
    ...more,
  ];
}
