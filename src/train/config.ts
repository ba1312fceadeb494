/**
 * One typed run config, resolved once (CleanRL's Args; STYLE.md 7): command-line flag ??
 * config file (--config train.json) ?? default. Names follow TRL's GRPOConfig where one exists
 * (num_generations, learning_rate, loss_type, epsilon_high, max_steps, ...); the GRPO fields
 * are src/rl's schema, the reward fields src/rewards'. Secrets never live here: API keys are
 * read from the environment variable the config names, by the CLI, and passed down.
 */
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { TrainMcpError } from "../errors.js";
import { redactUrlCredentials } from "../mcp/url-credentials.js";
import { redactTargetCredentials, sameTarget } from "../mcp/target.js";
import { RewardConfigSchema } from "../rewards/defaults.js";
import { GrpoConfigSchema } from "../rl/config.js";
import { ELICITATION_MODES } from "../mcp/elicitation.js";
import { TimeoutMsSchema } from "../mcp/timeout.js";
import { closestName } from "../closest-name.js";

/** learning_rate when none is given: TRL's for full fine-tuning; LoRA adapters start at zero and
 *  barely move at that, so a LoRA run takes ART's MCP notebook's rate (GRPO.md), the README's
 *  LoRA example's too */
export const DEFAULT_LEARNING_RATE = 1e-6;
export const DEFAULT_LORA_LEARNING_RATE = 1e-5;

/**
 * The warning for a LoRA run at a full-fine-tuning learning rate, where the adapters (zero at the
 * start) barely move; only for a rate the user chose (`chosen`): unset, a LoRA run has its own
 * default. undefined when there is nothing to say.
 */
export function loraLearningRateWarning(cfg: { lora_rank: number; learning_rate: number }, chosen: boolean): string | undefined {
  if (!chosen || cfg.lora_rank === 0 || cfg.learning_rate > DEFAULT_LEARNING_RATE) return undefined;
  return (
    `warning: learning_rate ${cfg.learning_rate} with LoRA (rank ${cfg.lora_rank}): the adapters start at zero and barely move at a full-fine-tuning rate; ` +
    `LoRA runs use about 1e-5 to 1e-4 (--lr; unset, a LoRA run's default is ${DEFAULT_LORA_LEARNING_RATE.toExponential()})`
  );
}

/** The run config's fields (before the cross-field checks). */
const LINEAR_MODULES = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"] as const;

const TrainConfigFields = GrpoConfigSchema.extend({
  // unset: chosen by lora_rank once the fields are read (TrainConfigSchema)
  learning_rate: GrpoConfigSchema.shape.learning_rate
    .unwrap()
    .optional()
    .describe(`AdamW learning rate; default ${DEFAULT_LEARNING_RATE.toExponential()} (TRL's, full fine-tuning), ${DEFAULT_LORA_LEARNING_RATE.toExponential()} with lora_rank > 0`),
  server: z.preprocess((v) => (typeof v === "string" ? [v] : v), z
      .array(z.string().trim().min(1, "empty target (expected a URL, stdio:<command>, fixture:<name> or a command line)"))
      .min(1, "no server given")
      .superRefine((targets, ctx) => {
        // the same server twice would play its tasks twice, and its bundled set's ids clash
        const again = targets.findIndex((t, i) => targets.slice(0, i).some((u) => sameTarget(u, t)));
        if (again >= 0) ctx.addIssue({ code: "custom", path: [again], message: `${redactTargetCredentials(targets[again])} is given twice: name each server once` });
      }),
  ).describe("MCP targets (URL, command line, stdio:..., fixture:NAME); several train together; one may be given as a string"),
  out: z.string().optional().describe("run directory; default runs/<date>-<time>"),
  model: z.string().default("default").describe('"default" (the built-in tiny model) or a Hugging Face model folder'),
  scenarios: z
    .array(z.string())
    .default(["auto"])
    .describe('scenario files (.jsonl); "auto": the bundled set of each fixture server, else generated (verified)'),
  generate_scenarios: z
    .number()
    .int()
    .min(1)
    .default(200)
    .describe('scenarios to generate for `scenarios: ["auto"]` on a server with no bundled set (execution-verified; fewer when its tools offer fewer distinct tasks)'),
  argument_values: z
    .record(z.string().min(1), z.array(z.string()))
    .default({})
    .describe('values for tools\' arguments by name, for the scenarios generated (`--value url=http://127.0.0.1:8080/`): what no tool\'s result shows, a page to fetch, a repository path'),
  allow_writes: z
    .boolean()
    .default(false)
    .describe("call the server's state-changing tools while generating scenarios (`scenarios: [\"auto\"]`, generate_train_scenarios), as `scenarios generate --allow-writes` does; always on for fixture: servers; best with server_template_dir"),
  generate_train_scenarios: z
    .number()
    .int()
    .min(0)
    .default(0)
    .describe("execution-verified training scenarios generated per server beside the scenario files, none asking what a held-out one asks (0 = none)"),
  max_steps: z.number().int().min(0).default(20).describe("GRPO steps"),
  groups_per_step: z.number().int().min(1).default(4).describe("B: scenarios per step (each played num_generations times)"),
  micro_batch_size: z.number().int().min(1).default(16).describe("sequences per forward/backward (gradient accumulation over the rest)"),
  micro_batch_tokens: z.number().int().min(64).default(2048).describe("padded tokens (rows × longest) per forward/backward at most"),
  temperature: z.number().min(0).default(1).describe("sampling temperature of rollouts"),
  top_p: z.number().gt(0).max(1).default(1),
  top_k: z.number().int().min(0).default(0),
  max_turns: z.number().int().min(1).default(4).describe("assistant turns per rollout"),
  max_tokens_per_turn: z.number().int().min(1).default(96).describe("new tokens per assistant turn"),
  lora_rank: z.number().int().min(0).default(0).describe("0 = full fine-tuning; >0 trains LoRA adapters"),
  lora_alpha: z.number().positive().default(32),
  lora_dropout: z.number().min(0).lt(1).default(0),
  lora_target_modules: z
    // PEFT's "all-linear": every projection of the blocks
    .preprocess((v) => (v === "all-linear" ? [...LINEAR_MODULES] : v), z.array(z.enum(LINEAR_MODULES)))
    .default([...LINEAR_MODULES]),
  weight_decay: z.number().min(0).default(0),
  save_steps: z.number().int().min(0).default(10).describe("checkpoint every N steps (0 = only at the end)"),
  save_total_limit: z
    .number()
    .int()
    .min(1)
    .nullable()
    .default(2)
    .describe("checkpoints kept (plus the best); null keeps all, as in TRL"),
  eval_steps: z.number().int().min(0).default(0).describe("held-out evaluation every N steps (0 = before and after only)"),
  eval_n: z.number().int().min(0).default(0).describe("held-out scenarios per evaluation (0 = all)"),
  eval_k: z.number().int().min(1).default(1).describe("samples per held-out scenario (1 = greedy); with k > 1 success is the mean over the k samples and pass@k is reported"),
  seed: z.number().int().default(0),
  engine: z.enum(["auto", "ort", "tfjs"]).default("auto").describe("rollout sampler: onnxruntime (fast) or tfjs"),
  device: z.enum(["auto", "cpu", "gpu", "wasm"]).default("auto").describe("training backend device"),
  gradient_checkpointing: z
    .preprocess((v) => (v === true ? "on" : v === false ? "off" : v), z.enum(["auto", "on", "off"]))
    .default("auto")
    .describe("recompute each layer's activations in the backward pass instead of keeping them (TRL's gradient_checkpointing; true/false read as on/off): less memory for about a third more compute; auto = when the wasm heap cannot hold them"),
  wasm_threads: z.number().int().min(1).max(16).default(1).describe("threads of the tfjs wasm backend (2 is ~1.45x faster on an idle 2-core machine, slower on a busy one)"),
  sft: z.enum(["auto", "on", "off"]).default("auto").describe("supervised warm start on reference solutions: auto = when the model cannot call tools yet (under 20% of held-out rollouts call one)"),
  sft_steps: z.number().int().min(0).default(200),
  sft_learning_rate: z.number().positive().default(2e-3),
  sft_batch_size: z.number().int().min(1).default(16),
  sft_target_success: z.number().min(0).max(1).default(1).describe("stop the warm start early once a probe reaches this success"),
  isolate: z.enum(["auto", "on", "off"]).default("auto").describe("a fresh server per rollout (auto: for stateful fixtures)"),
  max_concurrent_rollouts: z.number().int().min(1).default(64),
  tool_timeout_ms: TimeoutMsSchema.default(30_000).describe("per tool call (--timeout): milliseconds, or a number with a unit (500ms, 30s, 2m); at least 100 ms"),
  outage_tries: z
    .number()
    .int()
    .min(1)
    .default(3)
    .describe("tries in a row of a step in which the server failed every tool call (each trains nothing) before the run stops, resumable"),
  outage_wait_s: z
    .number()
    .min(0)
    .default(10)
    .describe("seconds to wait before playing such a step again, doubled for each further try (10, 20, ...: a server that restarts within half a minute does not stop the run)"),
  server_cwd: z
    .string()
    .optional()
    .describe("working directory of stdio servers (--cwd); a run saves where it started, so a resume from elsewhere starts them there"),
  server_template_dir: z
    .string()
    .optional()
    .describe("stdio servers: a folder copied for every server instance, which runs in the copy (--template-dir); saved, so a resume works on copies too"),
  server_tools: z
    .array(z.string().trim().min(1, "empty tool name"))
    .min(1, "an empty list would offer no tool; leave the field out to offer them all")
    .optional()
    .describe("offer only these tools of the servers (--tools): names or globs (`*`, `?`), `SERVER:PATTERN` for one server of several; the others are not shown to the model, called or callable; unset: all"),
  server_exclude_tools: z
    .array(z.string().trim().min(1, "empty tool name"))
    .optional()
    .describe("leave these tools of the servers out (--exclude-tools): names or globs, after server_tools; unset: none"),
  server_instructions: z
    .boolean()
    .default(false)
    .describe("show the model each server's MCP instructions (initialize result) after the system prompt, as Claude Code does (--server-instructions)"),
  server_sandbox: z
    .boolean()
    .default(false)
    .describe("run stdio servers under bubblewrap (--sandbox): the file system read-only but for each instance's server_template_dir copy, no network, their own process tree"),
  server_sandbox_network: z.boolean().default(false).describe("server_sandbox, keeping the network (--sandbox-network): a server that needs a database or an API"),
  server_resource_tools: z
    .boolean()
    .default(false)
    .describe("offer the servers' MCP resources to the model as two tools, list_resources and read_resource (--resource-tools), where a server declares resources"),
  server_sampling: z
    .object({
      model: z.string().min(1).describe("the model that answers (--sampling-model)"),
      base_url: z
        .string()
        .url()
        .refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), "expects an http(s) URL")
        .describe("OpenAI-compatible endpoint (--sampling-base-url)"),
      max_tokens: z.number().int().min(1).default(1024).describe("most tokens one request gets, whatever the server asks"),
      api_key_env: z.string().default("OPENAI_API_KEY").describe("environment variable the key is read from (never saved)"),
    })
    .strict()
    .optional()
    .describe("answer the servers' MCP sampling requests (a tool asking the client's model for a completion) with this model, and declare the capability; unset: not declared"),
  server_elicitation: z
    .enum(ELICITATION_MODES)
    .optional()
    .describe("who answers the servers' MCP elicitation forms (a tool asking the user for input mid-call), and declare the capability (--elicitation): decline, cancel, defaults (the server's pre-filled values), model (server_sampling's model fills them in); unset: not declared"),
  server_env_names: z
    .array(z.string())
    .optional()
    .describe("names of the --env variables the stdio servers were given (never their values): a resume without one of them warns"),
  server_header_names: z
    .array(z.string())
    .optional()
    .describe("names of the -H headers the HTTP servers were given (never their values): a resume without one of them warns"),
  system_prompt: z.string().optional(),
  policy_url: z
    .string()
    .optional()
    .describe("remote OpenAI-compatible policy that plays the rollouts (vLLM, train-mcp serve); the trainer's LoRA adapters are loaded into it after each update"),
  policy_model: z.string().optional().describe("the model name the remote policy serves the base model as; default: the first it lists"),
  policy_api_key_env: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "expects an environment variable's name")
    .optional()
    .describe("environment variable holding policy_url's key (--policy-api-key-env; never saved); unset: no key is sent, so the judge's $OPENAI_API_KEY never reaches a self-hosted policy server"),
  rewards: RewardConfigSchema.default({
    weights: {},
    normalize: true,
    verifierMode: "all",
    rubric: true,
    dangerous: { tools: [], args: [] },
  }),
}).strict();

/** A field with no default: absent from a saved config.json means it was unset, not unknown to that version. */
export function isUnsetWhenAbsent(key: string): boolean {
  const field = (TrainConfigFields.shape as Record<string, z.ZodType | undefined>)[key];
  if (!field) return false;
  const r = field.safeParse(undefined);
  return r.success && r.data === undefined;
}

export const TrainConfigSchema = TrainConfigFields.superRefine((cfg, ctx) => {
  // the KL term's reference is the base model with the adapters off; full fine-tuning keeps no copy of it
  if (cfg.beta !== 0 && cfg.lora_rank === 0)
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["beta"], message: `beta = ${cfg.beta} needs a reference model: set lora_rank > 0 (--lora-rank N; full fine-tuning keeps no reference weights), or beta 0` });
  // a remote server takes the trainer's updates only as adapters (POST /v1/load_lora_adapter)
  if (cfg.policy_url && cfg.max_steps > 0 && cfg.lora_rank === 0)
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["policy_url"], message: "training with a remote policy needs lora_rank > 0: the server loads the trainer's LoRA adapters after each update" });
  if (cfg.server_elicitation === "model" && !cfg.server_sampling)
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["server_elicitation"], message: "\"model\" fills forms in with the client's model: set server_sampling (--sampling-model, --sampling-base-url) too" });
}).transform((cfg) => ({ ...cfg, learning_rate: cfg.learning_rate ?? (cfg.lora_rank > 0 ? DEFAULT_LORA_LEARNING_RATE : DEFAULT_LEARNING_RATE) }));
export type TrainConfig = z.infer<typeof TrainConfigSchema>;
export type TrainConfigInput = z.input<typeof TrainConfigSchema>;

/** ":line:column" (1-based) of a character offset */
function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split("\n");
  return `:${before.length}:${before[before.length - 1].length + 1}`;
}

/** Reads a JSON config file; errors name the file and the field. */
export function readConfigFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    throw new TrainMcpError("ConfigInvalid", `${file}: cannot read: ${(e as Error).message}`);
  }
  if (/\.ya?ml$/i.test(file)) throw new TrainMcpError("ConfigInvalid", `${file}: config files are JSON here (YAML is not read): write the same fields as a JSON object`);
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    // "… at position 63": a person looks for a line
    const msg = (e as Error).message;
    const at = /position (\d+)/.exec(msg);
    const where = at ? lineAndColumn(text, Number(at[1])) : "";
    // (Node quotes the text around the fault, newlines and all: one line for the terminal)
    throw new TrainMcpError("ConfigInvalid", `${file}${where}: invalid JSON: ${msg.replace(/ in JSON at position \d+.*$/s, "").replace(/\s+/g, " ")}`);
  }
  // valid JSON of the wrong shape ([1, 2], "x") is no syntax error: say what the file holds
  if (!v || typeof v !== "object" || Array.isArray(v))
    throw new TrainMcpError("ConfigInvalid", `${file}: expected a JSON object of config fields ({"server": …, "max_steps": …}), got ${Array.isArray(v) ? "an array" : v === null ? "null" : `a ${typeof v}`}`);
  return v as Record<string, unknown>;
}

/** The line (1-based) where a field is written in a JSON config file, found key by key along
 *  its path (array indices skipped); undefined when the file does not spell it (a flag, a default). */
export type FieldLines = (fieldPath: readonly PropertyKey[]) => number | undefined;

/** FieldLines for a config file's text: a key's first `"name":` after its parent's. */
export function fieldLines(file: string): FieldLines {
  let text = "";
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return () => undefined;
  }
  return (fieldPath) => {
    let at = 0;
    for (const key of fieldPath) {
      if (typeof key !== "string") continue;
      const re = new RegExp(`${JSON.stringify(key).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\s*:`, "g");
      re.lastIndex = at;
      const m = re.exec(text);
      if (!m) return undefined;
      at = m.index;
    }
    return fieldPath.some((k) => typeof k === "string") ? text.slice(0, at).split("\n").length : undefined;
  };
}

/**
 * flag ?? file ?? default, validated once. Errors name where the bad value came from: the flag
 * that set it (`flagNames`: field -> flag), else `where` (the config file), the field, and its
 * line when `lines` can find it.
 */
export function resolveTrainConfig(flags: Record<string, unknown>, file?: Record<string, unknown>, where = "config", flagNames: Record<string, string> = {}, lines: FieldLines = () => undefined): TrainConfig {
  const merged: Record<string, unknown> = { ...(file ?? {}) };
  for (const [k, v] of Object.entries(flags)) if (v !== undefined) merged[k] = v;
  const parsed = TrainConfigSchema.safeParse(merged);
  if (!parsed.success) {
    // every problem at once: a file with three typos is fixed in one edit, not three runs
    // (one problem per field: "Invalid URL" and "expects an http(s) URL" say the same thing twice)
    const seen = new Set<string>();
    const firstPerField = parsed.error.issues.filter((i) => i.code === "unrecognized_keys" || (!seen.has(i.path.join(".")) && !!seen.add(i.path.join("."))));
    // each unknown key is a problem of its own, on its own line (one issue lists all of an object's)
    const perKey = firstPerField.flatMap((issue): z.core.$ZodIssue[] => (issue.code === "unrecognized_keys" ? issue.keys.map((k) => ({ ...issue, keys: [k] })) : [issue]));
    const problems = perKey.map((issue) => {
      const p = describeIssue(issue, flagNames);
      // an unknown field's line is its own key's; a bad value's, its field's
      const line = p.byFlag ? undefined : lines(issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0]] : issue.path);
      return { ...p, line };
    });
    // in the file's order, as a compiler lists them; flags' problems (no line) first, then unlocated ones
    const rank = (p: { byFlag: boolean; line?: number }) => (p.byFlag ? -1 : (p.line ?? Number.MAX_SAFE_INTEGER));
    problems.sort((a, b) => rank(a) - rank(b));
    const single = problems.length === 1 ? problems[0] : undefined;
    if (single) throw new TrainMcpError("ConfigInvalid", single.byFlag ? single.text : `${where}${single.line ? `:${single.line}` : ""}: ${single.text}`);
    throw new TrainMcpError("ConfigInvalid", `${where === "config" ? "the run config" : where}: ${problems.length} problems:\n${problems.map((p) => `  ${p.line ? `line ${p.line}: ` : ""}${p.text}`).join("\n")}`);
  }
  return parsed.data;
}

/** One schema issue as a user reads it: the flag that set the value, else the field (with the
 *  nearest known name for an unknown one). */
function describeIssue(issue: z.core.$ZodIssue, flagNames: Record<string, string>): { text: string; byFlag: boolean } {
  if (issue.code === "unrecognized_keys") {
    const prefix = issue.path.length ? `${issue.path.join(".")}.` : "";
    const unknown = issue.keys.map((k) => {
      // other trainers' names are top-level fields; a typo is matched against its own object's keys
      const other = prefix ? undefined : OTHER_NAMES[k];
      if (other !== undefined && !/^[a-z_]+$/.test(other)) return `"${k}" (${other})`;
      const near = other ?? closestName(k, knownKeysAt(issue.path));
      return `"${prefix}${k}"${near ? ` (did you mean "${near}"?)` : ""}`;
    });
    return { text: `unknown field ${unknown.join(", ")}`, byFlag: false };
  }
  const field = issue.path.join(".");
  const flag = flagNames[String(issue.path[0])];
  return flag ? { text: `${flag} (${field}): ${issue.message}`, byFlag: true } : { text: `field "${field || "(top level)"}": ${issue.message}`, byFlag: false };
}

/** The field names the config object at `fieldPath` takes ([] = top level; rewards.weights' own). */
function knownKeysAt(fieldPath: readonly PropertyKey[]): string[] {
  // through .default(), .optional(), z.preprocess and arrays to the object schema itself
  const unwrap = (s: unknown): unknown => {
    for (;;) {
      const def = (s as { _zod?: { def?: { type: string; innerType?: unknown; out?: unknown; element?: unknown } } } | undefined)?._zod?.def;
      if (!def) return s;
      if (def.innerType !== undefined) s = def.innerType;
      else if (def.type === "pipe") s = def.out;
      else if (def.type === "array") s = def.element;
      else return s;
    }
  };
  let schema: unknown = TrainConfigFields;
  for (const key of fieldPath) {
    if (typeof key !== "string") continue;
    const shape = (unwrap(schema) as { shape?: Record<string, unknown> } | undefined)?.shape;
    if (!shape) return [];
    schema = shape[key];
  }
  return Object.keys((unwrap(schema) as { shape?: Record<string, unknown> } | undefined)?.shape ?? {});
}

/** Names other trainers' configs use (TRL, PEFT, transformers' TrainingArguments) for a field
 *  of ours, too far from it by spelling to be found as a typo, or what stands for them here. */
const BATCH = "a step here plays groups_per_step × num_generations rollouts; micro_batch_size / micro_batch_tokens bound the memory of its update";
const OTHER_NAMES: Record<string, string> = {
  output_dir: "out",
  lora_r: "lora_rank",
  r: "lora_rank",
  target_modules: "lora_target_modules",
  model_name_or_path: "model",
  num_train_steps: "max_steps",
  num_train_epochs: "max_steps",
  steps: "max_steps",
  per_device_train_batch_size: BATCH,
  gradient_accumulation_steps: BATCH,
  generation_batch_size: BATCH,
  steps_per_generation: BATCH,
  judge: 'it belongs under "rewards": {"judge": {"model": …, "baseURL": …}}',
  weights: 'it belongs under "rewards": {"weights": {…}}',
  dangerous: 'it belongs under "rewards": {"dangerous": {"tools": […], "args": […]}}',
  reward_weights: 'here: "rewards": {"weights": {"verifier": 4, "format": 0.5, …}}, see the README\'s rewards section',
  reward_funcs: 'here: "rewards": {"weights": {…}} over the built-in components (verifier, ruler, format, tool_validity, tool_errors, efficiency, safety, reference_calls)',
  max_prompt_length: "prompts are not cut here; a rollout longer than the model's context trains on the part that fits",
  logging_steps: "every step is logged here (metrics.jsonl)",
  use_vllm: "here: --policy-url, a served model (vLLM or train-mcp serve) plays the rollouts",
  gradient_checkpointing_kwargs: "not needed: gradient_checkpointing is true or false here",
};

const SECRET_KEY = /key|token|secret|password|authorization/i;

/** The config as saved with a run: anything that looks like a secret removed, credentials in
 *  server URLs and on servers' command lines too. */
export function scrubSecrets<T>(value: T): T {
  // free text (a system prompt) is kept as written; URLs lose their credentials wherever they are
  if (typeof value === "string") return redactUrlCredentials(value) as T;
  if (Array.isArray(value)) return value.map((v) => scrubSecrets(v)) as T;
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      // apiKeyEnv / api_key_env name a variable, they hold no secret
      if (k === "server" && Array.isArray(v)) out[k] = v.map((t) => (typeof t === "string" ? redactTargetCredentials(t) : scrubSecrets(t)));
      else out[k] = SECRET_KEY.test(k) && !/api_?key_?env$/i.test(k) && typeof v === "string" ? "[redacted]" : scrubSecrets(v);
    }
    return out as T;
  }
  return value;
}

/** `cfg` with the paths a resume from another directory must still find made absolute: the model
 *  folder, scenario files, and the stdio servers' working directory (default `from`). */
export function anchorPaths(cfg: TrainConfig, from: string): TrainConfig {
  return {
    ...cfg,
    model: cfg.model === "default" ? cfg.model : path.resolve(from, cfg.model),
    scenarios: cfg.scenarios.map((s) => (s === "auto" ? s : path.resolve(from, s))),
    server_cwd: path.resolve(from, cfg.server_cwd ?? "."),
    ...(cfg.server_template_dir ? { server_template_dir: path.resolve(from, cfg.server_template_dir) } : {}),
  };
}
