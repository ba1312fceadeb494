/**
 * The defaults `--help` shows, read from the run config's schema (src/train/config.ts, whose GRPO
 * fields are src/rl/config.ts's) rather than written out again beside each flag, so the help
 * cannot drift from what a run does. `demo` shows its preset (DEMO_CONFIG) where it sets a field.
 * Numbers print bare ("(default: 20)"), as commander's own defaults do after `bareDefaults`.
 */
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import type { Command, Help, Option } from "commander";
import { TrainConfigSchema, type TrainConfig } from "../train/config.js";
import { DEMO_CONFIG } from "../train/demo.js";

let defaults: TrainConfig | null | undefined;

/** Every field at its default: a config holding only its one required field, parsed. */
function schemaDefaults(): TrainConfig | null {
  if (defaults === undefined) {
    const parsed = TrainConfigSchema.safeParse({ server: ["fixture:calculator"] });
    defaults = parsed.success ? parsed.data : null;
  }
  return defaults;
}

/** A field's default as a run gets it (train), or the demo's setting (`demo`). */
export function fieldDefault(field: keyof TrainConfig, demo = false): unknown {
  if (demo && field in DEMO_CONFIG) return (DEMO_CONFIG as Record<string, unknown>)[field];
  return schemaDefaults()?.[field];
}

/** 1e-6 and 5e-5 as written in configs; other numbers as they are. */
export function formatValue(v: unknown): string {
  if (typeof v === "number") return v !== 0 && Math.abs(v) < 1e-3 ? v.toExponential() : String(v);
  if (Array.isArray(v)) return v.map(formatValue).join(", ");
  return String(v);
}

/** The built-in model's own train_mcp.json (its system prompt and turn limits), {} when unreadable.
 *  Read as plain JSON, not with checkpoint.ts's readRolloutSettings: that module loads the weight
 *  code, which every `--help` would then pay for. */
function builtInRollout(): Record<string, unknown> {
  try {
    return JSON.parse(fs.readFileSync(fileURLToPath(new URL("../policy/default-model/train_mcp.json", import.meta.url)), "utf8")) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/**
 * The default of a field a model folder's train_mcp.json sets (turn limits): for `train`, that
 * file's value first — the built-in model's named, as `--model default` is train's default —
 * else the schema's; the demo's preset as `helpDefault` gives it.
 */
export function modelFolderDefault(cmd: Command, field: "max_turns" | "max_tokens_per_turn"): string {
  if (cmd.name() === "demo") return helpDefault(cmd, field);
  const builtIn = builtInRollout()[field];
  const schema = formatValue(fieldDefault(field));
  return builtIn === undefined
    ? ` (default: the model folder's train_mcp.json, else ${schema})`
    : ` (default: the model folder's train_mcp.json, ${formatValue(builtIn)} for the built-in model; else ${schema})`;
}

/** " (default: 20)" for `train`, " (demo: 40)" for `demo`; "" when the schema has none. */
export function helpDefault(cmd: Command, field: keyof TrainConfig): string {
  const demo = cmd.name() === "demo";
  const v = fieldDefault(field, demo);
  return v === undefined || v === null ? "" : ` (${demo ? "demo" : "default"}: ${formatValue(v)})`;
}

/** commander's help with a number-like default shown bare, `(default: 1)` rather than `(default: "1")`. */
export function bareDefaults(help: Help, option: Option): string {
  const text = Object.getPrototypeOf(help).optionDescription.call(help, option) as string;
  const v = option.defaultValue;
  if (typeof v !== "string" || option.defaultValueDescription !== undefined || v.trim() === "" || !Number.isFinite(Number(v))) return text;
  return text.replace(`default: ${JSON.stringify(v)}`, `default: ${v}`);
}
