/**
 * Checkpoints: everything needed to continue a run exactly — the weights (or LoRA adapters in
 * PEFT form), the optimizer state, the step, the random state and the position in the data
 * order — written into a temporary folder and renamed into place, so a kill at any moment
 * leaves either the old checkpoint or the new one, never half of one. `latest.json` names the
 * newest; the last N and the best are kept.
 */
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { TrainMcpError } from "../errors.js";
import { RewardConfigSchema } from "../rewards/defaults.js";
import type { Transformer } from "../policy/model/transformer.js";
import type { OptimizerState } from "../policy/optimizer.js";
import { loadAdapter, saveAdapter } from "../policy/peft.js";
import { readSafetensors, writeFileAtomic, writeSafetensors } from "../policy/safetensors.js";
import { loadCheckpoint, saveCheckpoint, type NamedWeights } from "../policy/weights.js";
import { ELICITATION_MODES } from "../mcp/elicitation.js";

export const TrainerStateSchema = z.object({
  step: z.number().int().describe("GRPO steps completed"),
  sftDone: z.boolean().describe("the warm start has run (or was not needed)"),
  sftSteps: z.number().int().min(0).optional().describe("warm-start steps done: a resume of an interrupted warm start goes on from there"),
  dataPosition: z.number().int().describe("scenarios consumed from the training order"),
  rngCounter: z.number().int().describe("sampling seeds used so far"),
  bestSuccess: z.number().nullable(),
  bestStep: z.number().int().nullable(),
  lora: z.boolean(),
  time: z.string(),
  /** seconds the run has taken up to this checkpoint, over all its processes (absent before v0.1 checkpoints kept it) */
  wall_s: z.number().optional(),
});
export type TrainerState = z.infer<typeof TrainerStateSchema>;

const TOKENIZER_FILES = ["tokenizer.json", "tokenizer_config.json", "chat_template.jinja", "generation_config.json", "special_tokens_map.json"];

export interface SaveInput {
  model: Transformer;
  optimizer: OptimizerState;
  state: TrainerState;
  /** the source model folder: its tokenizer files travel with every checkpoint */
  modelDir: string;
  /** how the model was prompted and played (system prompt, turn limits), for eval and serve */
  rollout?: RolloutSettings;
}

/** Saved as train_mcp.json in each checkpoint: evaluate a checkpoint the way it was trained. */
export const RolloutSettingsSchema = z.object({
  system_prompt: z.string().optional(),
  max_turns: z.number().int().min(1),
  max_tokens_per_turn: z.number().int().min(1),
  /** generated tokens per rollout, when the run capped them below max_turns × max_tokens_per_turn */
  max_completion_length: z.number().int().min(1).optional(),
  /** the model was given list_resources / read_resource (--resource-tools) */
  resource_tools: z.boolean().optional(),
  /** its servers' MCP instructions followed the system prompt (--server-instructions) */
  server_instructions: z.boolean().optional(),
  /** the tools it was offered, when not all (--tools, --exclude-tools) */
  tools: z.object({ include: z.array(z.string()).optional(), exclude: z.array(z.string()).optional() }).optional().catch(undefined),
  /** the names of the tools its prompt listed, across its servers (sorted): what eval compares, whatever filters named them */
  offered_tools: z.array(z.string()).optional().catch(undefined),
  /** its servers' sampling requests were answered by a model (--sampling-model): tools that need it were listed */
  sampling: z.boolean().optional(),
  /** who answered its servers' elicitation forms (--elicitation) */
  elicitation: z.enum(ELICITATION_MODES).optional().catch(undefined),
  // the judge is left out: its endpoint needs a key that eval does not have
  // settings this version cannot read (a newer one's reward names) fall back to the defaults
  rewards: RewardConfigSchema.omit({ judge: true }).optional().catch(undefined).describe("the run's reward settings, so that eval's mean reward is the one training logged"),
});
export type RolloutSettings = z.infer<typeof RolloutSettingsSchema>;

export function readRolloutSettings(dir: string): RolloutSettings | undefined {
  const f = path.join(dir, "train_mcp.json");
  if (!fs.existsSync(f)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(f, "utf8"));
  } catch (e) {
    throw new TrainMcpError("ConfigInvalid", `${f}: not JSON (${(e as Error).message})`);
  }
  const parsed = RolloutSettingsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new TrainMcpError("ConfigInvalid", `${f}: ${issue.path.join(".") || "(top level)"}: ${issue.message}`);
  }
  return parsed.data;
}

export function checkpointName(step: number): string {
  return `step-${String(step).padStart(6, "0")}`;
}

export function saveTrainingCheckpoint(checkpointsDir: string, input: SaveInput): string {
  const name = checkpointName(input.state.step);
  const final = path.join(checkpointsDir, name);
  const tmp = path.join(checkpointsDir, `.tmp-${name}-${process.pid}`);
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  if (input.state.lora) {
    saveAdapter(tmp, input.model, path.resolve(input.modelDir));
    // the adapter needs its base: keep the base folder's path for resume and export
  } else {
    saveCheckpoint(tmp, input.model.config, input.model.exportWeights(false));
  }
  for (const f of TOKENIZER_FILES) {
    const src = path.join(input.modelDir, f);
    if (fs.existsSync(src)) fs.copyFileSync(src, path.join(tmp, f));
  }
  const opt: NamedWeights = new Map();
  for (const [k, t] of input.optimizer.m) opt.set(`m.${k}`, t);
  for (const [k, t] of input.optimizer.v) opt.set(`v.${k}`, t);
  writeSafetensors(path.join(tmp, "optimizer.safetensors"), opt, { adam_step: String(input.optimizer.step) });
  if (input.rollout) writeFileAtomic(path.join(tmp, "train_mcp.json"), JSON.stringify(input.rollout, null, 2) + "\n");
  writeFileAtomic(path.join(tmp, "trainer_state.json"), JSON.stringify(input.state, null, 2) + "\n");
  fs.rmSync(final, { recursive: true, force: true });
  fs.renameSync(tmp, final);
  writeFileAtomic(path.join(checkpointsDir, "latest.json"), JSON.stringify({ step: input.state.step, dir: name }) + "\n");
  return final;
}

/** Keeps the newest `keep` checkpoints and the best one; removes leftovers of killed saves. */
export function pruneCheckpoints(checkpointsDir: string, keep: number, bestStep: number | null): void {
  const entries = fs.existsSync(checkpointsDir) ? fs.readdirSync(checkpointsDir) : [];
  for (const e of entries) if (e.startsWith(".tmp-")) fs.rmSync(path.join(checkpointsDir, e), { recursive: true, force: true });
  const steps = entries.filter((e) => /^step-\d+$/.test(e)).sort();
  const keepSet = new Set(Number.isFinite(keep) ? steps.slice(-keep) : steps);
  if (bestStep !== null) keepSet.add(checkpointName(bestStep));
  for (const s of steps) if (!keepSet.has(s)) fs.rmSync(path.join(checkpointsDir, s), { recursive: true, force: true });
}

export interface LoadedCheckpoint {
  dir: string;
  state: TrainerState;
  optimizer: OptimizerState;
}

/** The newest complete checkpoint of a run, or null when it has none. */
export function latestCheckpoint(checkpointsDir: string): string | null {
  const latest = path.join(checkpointsDir, "latest.json");
  if (fs.existsSync(latest)) {
    let dir: unknown;
    try {
      dir = (JSON.parse(fs.readFileSync(latest, "utf8")) as { dir?: unknown }).dir;
    } catch {
      dir = undefined; // a damaged pointer: the folders themselves say which is newest
    }
    const full = typeof dir === "string" ? path.join(checkpointsDir, dir) : "";
    if (full && fs.existsSync(path.join(full, "trainer_state.json"))) return full;
  }
  // latest.json is written after the rename (or is damaged): fall back to the newest complete folder
  const steps = fs.existsSync(checkpointsDir)
    ? fs.readdirSync(checkpointsDir).filter((e) => /^step-\d+$/.test(e) && fs.existsSync(path.join(checkpointsDir, e, "trainer_state.json")))
    : [];
  return steps.length ? path.join(checkpointsDir, steps.sort()[steps.length - 1]) : null;
}

export function readCheckpointState(dir: string): LoadedCheckpoint {
  const stateFile = path.join(dir, "trainer_state.json");
  let state: TrainerState;
  try {
    state = TrainerStateSchema.parse(JSON.parse(fs.readFileSync(stateFile, "utf8")));
  } catch (e) {
    throw new TrainMcpError("IoFailed", `${stateFile}: unreadable trainer state: ${(e as Error).message}`);
  }
  const { tensors, metadata } = readSafetensors(path.join(dir, "optimizer.safetensors"));
  const m: NamedWeights = new Map();
  const v: NamedWeights = new Map();
  for (const [k, t] of tensors) (k.startsWith("m.") ? m : v).set(k.slice(2), t);
  return { dir, state, optimizer: { step: Number(metadata.adam_step ?? 0), m, v } };
}

/** Restores weights (full) or adapters (LoRA) from a checkpoint into `model`. */
export async function restoreWeights(dir: string, model: Transformer, lora: boolean, seed: number): Promise<void> {
  if (lora) {
    model.disposeLora();
    loadAdapter(dir, model, seed);
    return;
  }
  const { weights } = await loadCheckpoint(dir);
  for (const [name, v] of model.params) {
    const w = weights.get(name);
    if (!w) throw new TrainMcpError("ModelInvalid", `${dir}: checkpoint lacks "${name}"`);
    v.assign((await import("@tensorflow/tfjs-core")).tensor(w.data, w.shape));
  }
}
