/**
 * What a `--resume` may change. A resumed run continues the one in its directory, so what
 * defines that run — its servers, scenarios, model, adapters, seed, and how held-out success is
 * measured — must stay as it was, or "before RL" and "after RL" would describe different things.
 * The rest (more steps, another learning rate, checkpoint cadence...) may change; each change is
 * named in the log and config.json is rewritten, so the run directory says what it ran with.
 */
import path from "node:path";
import { TrainMcpError } from "../errors.js";
import { sameTarget } from "../mcp/target.js";
import { isUnsetWhenAbsent, scrubSecrets, type TrainConfig } from "./config.js";

/** fields that define the run; `flag` is how a user would have set them */
const FIXED: Record<string, string> = {
  server: "--server",
  model: "--model",
  scenarios: "--scenarios",
  generate_scenarios: "--generate-scenarios",
  generate_train_scenarios: "--generate-train-scenarios",
  argument_values: "--value",
  allow_writes: "--allow-writes",
  seed: "--seed",
  lora_rank: "--lora-rank",
  lora_alpha: "lora_alpha",
  lora_target_modules: "lora_target_modules",
  eval_n: "--eval-n",
  eval_k: "eval_k",
  max_turns: "--max-turns",
  max_tokens_per_turn: "--max-tokens-per-turn",
  max_completion_length: "--max-completion-length",
  system_prompt: "system_prompt",
  policy_model: "--policy-model",
  server_tools: "--tools",
  server_exclude_tools: "--exclude-tools",
  server_resource_tools: "--resource-tools",
  server_instructions: "--server-instructions",
  server_elicitation: "--elicitation",
};

const anchored = (v: unknown): unknown =>
  typeof v === "string" ? (v === "default" || v === "auto" ? v : path.resolve(v)) : Array.isArray(v) ? v.map(anchored) : v;

const show = (v: unknown) => (v === undefined ? "(unset)" : JSON.stringify(v));

/** Compares the config a resume asks for with the one saved in the run directory: throws a usage
 *  error for a change to a field that defines the run, returns the other changes as log text. */
export function resumeChanges(saved: Record<string, unknown>, cfg: TrainConfig, where: string): string[] {
  const now = JSON.parse(JSON.stringify(scrubSecrets(cfg))) as Record<string, unknown>;
  const changes: string[] = [];
  for (const key of Object.keys(now)) {
    // a field this version added is no change; one without a default was merely unset (JSON drops it)
    if (key === "out" || (!(key in saved) && !isUnsetWhenAbsent(key))) continue;
    const before = saved[key];
    const after = now[key];
    const same =
      key === "server"
        ? Array.isArray(before) && before.length === cfg.server.length && before.every((t, i) => sameTarget(String(t), cfg.server[i]))
        : key === "model" || key === "scenarios"
          ? JSON.stringify(anchored(before)) === JSON.stringify(after) // `cfg` is anchored already; a run saved before paths were made absolute is not
          : JSON.stringify(before) === JSON.stringify(after);
    if (same) continue;
    if (key in FIXED)
      throw new TrainMcpError(
        "ConfigInvalid",
        `${FIXED[key]} (${key}): ${show(after)} differs from ${show(before)} in ${where}; a resumed run keeps what defines it — start a new run (another --out) to change it`,
      );
    changes.push(`${key} ${show(before)} → ${show(after)}`);
  }
  return changes;
}
