/**
 * `train-mcp train --server <target> ...` (and `train-mcp --server <target>`, the same), plus
 * `train-mcp demo` (what `train-mcp` with no arguments runs): flags map onto the TRL-named run
 * config (src/train/config.ts), resolved as flag ?? --config file ?? default. API keys are read
 * from the environment here, once, and passed down; they never enter the config.
 */
import fs from "node:fs";
import path from "node:path";
import { Command, Option } from "commander";
import cliProgress from "cli-progress";
import { TrainMcpError } from "../../errors.js";
import { isRedactedTarget } from "../../mcp/target.js";
import { numberFlag } from "../number-flags.js";
import { fieldDefault, formatValue, helpDefault, modelFolderDefault } from "../help-defaults.js";
import { parseDangerousPatterns } from "../../rewards/dangerous.js";
import { addConnectOptions, parseEnvAndHeaders, serverLogFlag, toolFilterFlags, type TargetFlags } from "../target-options.js";
import type { ConnectOptions } from "../../mcp/options.js";
import { DEFAULT_LEARNING_RATE, DEFAULT_LORA_LEARNING_RATE, fieldLines, readConfigFile, resolveTrainConfig, type TrainConfig } from "../../train/config.js";
import { parseValueSpecs } from "../../scenarios/verified/given-values.js";
import { DEMO_CONFIG } from "../../train/demo.js";
import { runDirRefusal, runOfCheckpoint } from "../../train/run-dir.js";
import type { TrainHooks, TrainSummary } from "../../train/loop.js";

const collect = (value: string, previous: string[] = []) => [...previous, value];

interface TrainFlags extends Omit<TargetFlags, "server"> {
  server?: string[];
  config?: string;
  out?: string;
  model?: string;
  scenarios?: string[];
  generateScenarios?: string;
  generateTrainScenarios?: string;
  value?: string[];
  allowWrites?: boolean;
  steps?: string;
  groupsPerStep?: string;
  groupSize?: string;
  numGenerations?: string;
  maxSteps?: string;
  learningRate?: string;
  lr?: string;
  lossType?: string;
  epsilon?: string;
  epsilonHigh?: string;
  rftCoef?: string;
  beta?: string;
  maxTurns?: string;
  maxTokensPerTurn?: string;
  maxCompletionLength?: string;
  systemPrompt?: string;
  isolate?: "auto" | "on" | "off";
  temperature?: string;
  loraRank?: string;
  seed?: string;
  engine?: string;
  device?: string;
  threads?: string;
  sft?: string;
  gradientCheckpointing?: "auto" | "on" | "off";
  sftSteps?: string;
  evalSteps?: string;
  evalN?: string;
  saveSteps?: string;
  judgeModel?: string;
  judgeBaseUrl?: string;
  dangerousTools?: string[];
  policyUrl?: string;
  policyModel?: string;
  policyApiKeyEnv?: string;
  resume?: string;
  quiet?: boolean;
  json?: boolean;
  jsonl?: boolean;
}

// ranges are the config schema's to check, naming the field too
const num = (flag: string, v: string | undefined): number | undefined => (v === undefined ? undefined : numberFlag(flag, v));

function addTrainOptions(cmd: Command, serverRequired: boolean): Command {
  const server = "-s, --server <target>";
  const serverHelp = `MCP server (URL, command line, stdio:..., fixture:NAME); repeat to train on several${cmd.name() === "demo" ? helpDefault(cmd, "server") : ""}`;
  (serverRequired ? cmd.option(server, serverHelp, collect) : cmd.option(server, serverHelp, collect))
    .option("--config <file>", "JSON run config (TRL GRPOConfig names); flags override it")
    .option("-o, --out <dir>", "run directory (default runs/<date>-<time>)")
    .option("--model <dir|default>", `a Hugging Face model folder, or "default" (the built-in tiny model)${helpDefault(cmd, "model")}`)
    .option("--scenarios <file|auto>", `scenario file (.jsonl), repeatable; auto: bundled or generated${helpDefault(cmd, "scenarios")}`, collect)
    .option("--value <name=value>", "a value for tools' arguments of that name, for the scenarios generated (what no tool's result shows: a page to fetch, a repository path); repeatable", collect)
    .option("--allow-writes", "call the server's state-changing tools while generating scenarios (--scenarios auto, --generate-train-scenarios), as scenarios generate --allow-writes does; always on for fixture: servers; best with --template-dir")
    .option("--generate-scenarios <n>", `with --scenarios auto, how many execution-verified scenarios to generate for a server with no bundled set (fewer when its tools offer fewer)${helpDefault(cmd, "generate_scenarios")}`)
    .option("--generate-train-scenarios <n>", `also train on N execution-verified scenarios generated per server (none equal to a held-out one)${helpDefault(cmd, "generate_train_scenarios")}`)
    .option("--steps <n>", `GRPO steps (max_steps; TRL's --max-steps is the same flag)${helpDefault(cmd, "max_steps")}`)
    // TRL's spellings, as aliases
    .addOption(new Option("--max-steps <n>").hideHelp())
    .addOption(new Option("--num-generations <n>").hideHelp())
    .addOption(new Option("--learning-rate <x>").hideHelp())
    .option("--groups-per-step <n>", `scenarios per step (B)${helpDefault(cmd, "groups_per_step")}`)
    .option("--group-size <n>", `rollouts per scenario (G; TRL's --num-generations is the same flag)${helpDefault(cmd, "num_generations")}`)
    .option("--lr <x>", `learning rate (TRL's --learning-rate is the same flag) (${cmd.name() === "demo" ? `demo: ${formatValue(fieldDefault("learning_rate", true))}` : `default: ${DEFAULT_LEARNING_RATE.toExponential()}, TRL's for full fine-tuning; ${DEFAULT_LORA_LEARNING_RATE.toExponential()} with --lora-rank`})`)
    // checked by the config schema, which tells "gspo" where GSPO is set (commander would only list the choices)
    .option("--loss-type <t>", `loss aggregation: grpo, bnpo, dr_grpo or dapo${helpDefault(cmd, "loss_type")}; GSPO is importance_sampling_level "sequence" in a --config file`)
    .option("--epsilon <x>", `lower clip range${helpDefault(cmd, "epsilon")}`)
    .option("--epsilon-high <x>", `upper clip range (DAPO clip-higher)${cmd.name() === "demo" ? helpDefault(cmd, "epsilon_high") : " (default: --epsilon's)"}`)
    .option("--beta <x>", `KL coefficient (needs LoRA: the reference is the base model)${helpDefault(cmd, "beta")}`)
    .option("--rft-coef <x>", `weight of imitating each group's best successful rollout (RAFT/STaR; 0 = off)${helpDefault(cmd, "rft_coef")}`)
    .option("--max-turns <n>", `assistant turns per rollout${modelFolderDefault(cmd, "max_turns")}`)
    .option("--max-tokens-per-turn <n>", `tokens per assistant turn${modelFolderDefault(cmd, "max_tokens_per_turn")}`)
    .option("--max-completion-length <n>", "generated tokens per rollout, all turns together (TRL max_completion_length; default: no cap beyond the turn limits)")
    .option("--system-prompt <text>", `system prompt of every rollout ${cmd.name() === "demo" ? `(demo: ${JSON.stringify(fieldDefault("system_prompt", true))})` : "(default: the model folder's train_mcp.json, else a generic tool-use prompt)"}`)
    .addOption(
      new Option("--isolate <mode>", `a fresh server instance per rollout: auto = for servers whose tools change state${helpDefault(cmd, "isolate")}`).choices(["auto", "on", "off"]),
    )
    .option("--temperature <x>", `rollout sampling temperature${helpDefault(cmd, "temperature")}`)
    .option("--lora-rank <n>", `train LoRA adapters of this rank (0 = full fine-tuning)${helpDefault(cmd, "lora_rank")}`)
    .option("--seed <n>", `random seed${helpDefault(cmd, "seed")}`)
    .addOption(new Option("--engine <e>", `rollout engine${helpDefault(cmd, "engine")}`).choices(["auto", "ort", "tfjs"]))
    .addOption(new Option("--device <d>", `training device${helpDefault(cmd, "device")}`).choices(["auto", "cpu", "gpu", "wasm"]))
    .addOption(
      new Option("--gradient-checkpointing <mode>", `recompute activations in the backward pass: less memory, ~1/3 more compute (auto = when the wasm heap needs it)${helpDefault(cmd, "gradient_checkpointing")}`).choices(["auto", "on", "off"]),
    )
    .option("--threads <n>", `tfjs wasm threads for training (2 is faster on an idle 2-core machine)${helpDefault(cmd, "wasm_threads")}`)
    .addOption(new Option("--sft <mode>", `supervised warm start (auto: when the model does not call tools yet)${helpDefault(cmd, "sft")}`).choices(["auto", "on", "off"]))
    .option("--sft-steps <n>", `warm-start steps at most${helpDefault(cmd, "sft_steps")}`)
    .option("--eval-steps <n>", `held-out evaluation every N steps (0 = before and after only)${helpDefault(cmd, "eval_steps")}`)
    .option("--eval-n <n>", `held-out scenarios per evaluation (0 = all)${helpDefault(cmd, "eval_n")}`)
    .option("--save-steps <n>", `checkpoint every N steps (0 = only at the end)${helpDefault(cmd, "save_steps")}`)
    .option("--judge-model <name>", "RULER judge model (OpenAI-compatible; key from $OPENAI_API_KEY)")
    .option("--judge-base-url <url>", "RULER judge endpoint")
    .option("--dangerous-tools <pattern>", "tool-name glob or argument regex to penalize (repeatable)", collect)
    .option("--policy-url <url>", "remote OpenAI-compatible policy that plays the rollouts (needs --lora-rank: its adapters are loaded there after each step)")
    .option("--policy-model <name>", "the base model's name on the remote policy (default: the first it lists)")
    .option("--policy-api-key-env <name>", "environment variable holding --policy-url's key (default: none is sent; $OPENAI_API_KEY stays the judge's)")
    .option("--resume <run-dir>", "continue a run from its newest checkpoint")
    .option("-q, --quiet", "no progress output or step lines: warnings, and one line with the result at the end")
    .option("--json", "print the summary as one JSON line at the end")
    .option("--jsonl", "print each step's metrics as a JSON line");
  // --env, --cwd, --header (never saved), --timeout (tool_timeout_ms), --server-log, --inherit-env
  return addConnectOptions(cmd);
}

/** Each config field a flag sets, with the flag's name (errors name the flag the user typed). */
function flagFields(f: TrainFlags): Array<[field: string, flag: string, raw: unknown, kind?: "number"]> {
  return [
    ["server", "--server", f.server],
    ["out", "--out", f.out ?? f.resume],
    ["model", "--model", f.model],
    ["scenarios", "--scenarios", f.scenarios],
    ["generate_scenarios", "--generate-scenarios", f.generateScenarios, "number"],
    ["generate_train_scenarios", "--generate-train-scenarios", f.generateTrainScenarios, "number"],
    ["argument_values", "--value", f.value ? parseValueSpecs(f.value) : undefined],
    ["allow_writes", "--allow-writes", f.allowWrites],
    ["max_steps", ...either("--steps", f.steps, "--max-steps", f.maxSteps), "number"],
    ["tool_timeout_ms", "--timeout", f.timeout, "number"],
    ["server_cwd", "--cwd", f.cwd],
    ["server_template_dir", "--template-dir", f.templateDir],
    ["server_tools", "--tools", toolFilterFlags(f)?.include],
    ["server_exclude_tools", "--exclude-tools", toolFilterFlags(f)?.exclude],
    ["server_instructions", "--server-instructions", f.serverInstructions],
    ["server_sandbox", "--sandbox", f.sandbox],
    ["server_sandbox_network", "--sandbox-network", f.sandboxNetwork],
    ["server_resource_tools", "--resource-tools", f.resourceTools],
    ["server_elicitation", "--elicitation", f.elicitation],
    ["groups_per_step", "--groups-per-step", f.groupsPerStep, "number"],
    ["num_generations", ...either("--group-size", f.groupSize, "--num-generations", f.numGenerations), "number"],
    ["learning_rate", ...either("--lr", f.lr, "--learning-rate", f.learningRate), "number"],
    ["loss_type", "--loss-type", f.lossType],
    ["epsilon", "--epsilon", f.epsilon, "number"],
    ["epsilon_high", "--epsilon-high", f.epsilonHigh, "number"],
    ["beta", "--beta", f.beta, "number"],
    ["rft_coef", "--rft-coef", f.rftCoef, "number"],
    ["max_turns", "--max-turns", f.maxTurns, "number"],
    ["max_tokens_per_turn", "--max-tokens-per-turn", f.maxTokensPerTurn, "number"],
    ["max_completion_length", "--max-completion-length", f.maxCompletionLength, "number"],
    ["system_prompt", "--system-prompt", f.systemPrompt],
    ["isolate", "--isolate", f.isolate],
    ["temperature", "--temperature", f.temperature, "number"],
    ["lora_rank", "--lora-rank", f.loraRank, "number"],
    ["seed", "--seed", f.seed, "number"],
    ["engine", "--engine", f.engine],
    ["device", "--device", f.device],
    ["wasm_threads", "--threads", f.threads, "number"],
    ["gradient_checkpointing", "--gradient-checkpointing", f.gradientCheckpointing],
    ["sft", "--sft", f.sft],
    ["sft_steps", "--sft-steps", f.sftSteps, "number"],
    ["eval_steps", "--eval-steps", f.evalSteps, "number"],
    ["eval_n", "--eval-n", f.evalN, "number"],
    ["save_steps", "--save-steps", f.saveSteps, "number"],
    ["policy_url", "--policy-url", f.policyUrl],
    ["policy_model", "--policy-model", f.policyModel],
    ["policy_api_key_env", "--policy-api-key-env", f.policyApiKeyEnv],
  ];
}

/** A flag and its TRL spelling (`--steps` / `--max-steps`): whichever was typed, not both. */
function either(flag: string, value: string | undefined, alias: string, aliasValue: string | undefined): [string, string | undefined] {
  if (value !== undefined && aliasValue !== undefined) throw new TrainMcpError("ConfigInvalid", `${flag} and ${alias} are the same setting: give one`);
  return aliasValue !== undefined ? [alias, aliasValue] : [flag, value];
}

function flagsToConfig(f: TrainFlags): Record<string, unknown> {
  return Object.fromEntries(flagFields(f).map(([field, flag, raw, kind]) => [field, kind === "number" ? num(flag, raw as string | undefined) : raw]));
}

/** config field -> the flag that set it, for the fields the user set by flag */
function flagNames(f: TrainFlags): Record<string, string> {
  return Object.fromEntries(flagFields(f).flatMap(([field, flag, raw]) => (raw === undefined ? [] : [[field, flag]])));
}

/** How the run's servers are reached; calls wait tool_timeout_ms (--timeout), start-up at least 30 s. */
function connectOptions(f: TrainFlags, config: TrainConfig): ConnectOptions {
  const { env, headers } = parseEnvAndHeaders(f.env, f.header);
  return {
    env,
    headers,
    serverLog: serverLogFlag(f.serverLog), // the working directory is the config's server_cwd (--cwd)
    inheritEnv: f.inheritEnv,
    timeoutMs: config.tool_timeout_ms,
    connectTimeoutMs: f.timeout !== undefined ? config.tool_timeout_ms : Math.max(30_000, config.tool_timeout_ms),
  };
}

function hooks(f: TrainFlags): { hooks: TrainHooks; stop(): void } {
  const quiet = !!f.quiet;
  const tty = process.stderr.isTTY && !quiet && !f.jsonl;
  let bar: cliProgress.SingleBar | undefined;
  let barLabel = "";
  const stopBar = () => {
    bar?.stop();
    bar = undefined;
  };
  return {
    stop: stopBar,
    hooks: {
      log: (line) => {
        // quiet drops the running commentary, not what the user must act on
        if (quiet && !line.startsWith("warning:")) return;
        stopBar();
        process.stderr.write(`${line}\n`);
      },
      onMetrics: f.jsonl ? (r) => process.stdout.write(JSON.stringify(r) + "\n") : undefined,
      progress: tty
        ? (label, done, total) => {
            if (!bar || barLabel !== label) {
              stopBar();
              barLabel = label;
              bar = new cliProgress.SingleBar(
                { format: `${label.padEnd(22)} [{bar}] {value}/{total}`, stream: process.stderr, clearOnComplete: true, hideCursor: false },
                cliProgress.Presets.shades_classic,
              );
              bar.start(total, done);
            } else bar.update(done);
            if (done >= total) stopBar();
          }
        : undefined,
    },
  };
}

/** The system prompt and turn limits a model folder's train_mcp.json gives ({} when none). */
async function modelRolloutDefaults(model: string): Promise<Record<string, unknown>> {
  const { defaultModelDir } = await import("../../policy/default-model/index.js");
  const { readRolloutSettings } = await import("../../train/checkpoint.js");
  const dir = model === "default" ? defaultModelDir() : path.resolve(model);
  const trained = fs.existsSync(dir) && fs.statSync(dir).isDirectory() ? readRolloutSettings(dir) : undefined;
  if (!trained) return {};
  const { system_prompt, max_turns, max_tokens_per_turn } = trained;
  return Object.fromEntries(Object.entries({ system_prompt, max_turns, max_tokens_per_turn }).filter(([, v]) => v !== undefined));
}

/** `over` laid on `base`: objects merged key by key (rewards.weights.ruler alone), the rest replaced. */
function layer(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out = { ...base };
  const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
  for (const [k, v] of Object.entries(over)) out[k] = isObject(v) && isObject(out[k]) ? layer(out[k], v) : v;
  return out;
}

/** `--resume` names a run directory: not a checkpoint in it, not a folder that is not there. */
function checkResumeDir(dir: string): void {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new TrainMcpError("ConfigInvalid", `--resume ${dir}: no such run directory`);
  const run = runOfCheckpoint(dir);
  if (run) throw new TrainMcpError("ConfigInvalid", `--resume ${dir} is a checkpoint: resume its run directory, ${run} (it continues from the newest checkpoint)`);
  // a model folder has a config.json too: read as a run's, its fields would be a wall of unknown ones
  const refused = runDirRefusal(dir, true);
  if (refused) throw new TrainMcpError("ConfigInvalid", `--resume ${refused}`);
  if (!fs.existsSync(path.join(dir, "config.json"))) throw new TrainMcpError("ConfigInvalid", `--resume ${dir}: not a run directory (no config.json in it)`);
}

async function runTraining(f: TrainFlags, preset: Record<string, unknown> = {}): Promise<TrainSummary> {
  if (f.resume) checkResumeDir(f.resume);
  // a resume continues in its own directory: another --out would start a new run there instead
  if (f.resume && f.out !== undefined && path.resolve(f.out) !== path.resolve(f.resume))
    throw new TrainMcpError("ConfigInvalid", `--resume ${f.resume} continues that run in its own directory: drop --out ${f.out} (to start a new run there, drop --resume; to branch, copy the run directory first)`);
  // a resume's --config is laid over the run's saved config, as its flags are
  const saved = f.resume ? readConfigFile(`${f.resume}/config.json`) : undefined;
  const given = f.config ? readConfigFile(f.config) : undefined;
  const file = saved && given ? layer(saved, given) : (given ?? saved);
  const flagCfg = flagsToConfig(f);
  // a model folder says how it plays best (train_mcp.json: system prompt, turn limits), as eval
  // and serve read it; the preset, the config file and the flags override that (a resume keeps
  // what its run saved)
  const modelSpec = String(flagCfg.model ?? file?.model ?? preset.model ?? "default");
  const modelDefaults = f.resume ? {} : await modelRolloutDefaults(modelSpec);
  const base: Record<string, unknown> = { ...modelDefaults, ...preset, ...(file ?? {}) };
  if (f.judgeModel || f.judgeBaseUrl) {
    if (!f.judgeModel || !f.judgeBaseUrl) throw new TrainMcpError("ConfigInvalid", "--judge-model and --judge-base-url go together");
    const rewards = (base.rewards as Record<string, unknown> | undefined) ?? {};
    base.rewards = { ...rewards, judge: { ...((rewards.judge as object) ?? {}), model: f.judgeModel, baseURL: f.judgeBaseUrl } };
  }
  if (f.samplingModel || f.samplingBaseUrl) {
    // either flag may replace its half of a config's (or a resumed run's) server_sampling
    const sampling = { ...((base.server_sampling as Record<string, unknown> | undefined) ?? {}), ...(f.samplingModel ? { model: f.samplingModel } : {}), ...(f.samplingBaseUrl ? { base_url: f.samplingBaseUrl } : {}) };
    if (!sampling.model || !sampling.base_url) throw new TrainMcpError("ConfigInvalid", "--sampling-model and --sampling-base-url go together (or one of them with server_sampling in --config)");
    base.server_sampling = sampling;
  }
  if (f.dangerousTools?.length) {
    const rewards = (base.rewards as Record<string, unknown> | undefined) ?? {};
    base.rewards = { ...rewards, dangerous: parseDangerousPatterns(f.dangerousTools) };
  }
  // a field's line is looked up in the file the user wrote (--config), not in a run's saved config
  const configName = f.config ?? (f.resume ? `${f.resume}/config.json` : "config");
  const config: TrainConfig = resolveTrainConfig(flagCfg, base, configName, flagNames(f), f.config ? fieldLines(f.config) : undefined);
  // a run's config.json keeps URLs and command lines without their credentials: a resume needs
  // them given again
  if (f.resume) {
    const stripped = [
      ...config.server.map((t) => ["--server", t]),
      ...(config.policy_url ? [["--policy-url", config.policy_url]] : []),
      ...(config.server_sampling ? [["--sampling-base-url", config.server_sampling.base_url]] : []),
      ...(config.rewards.judge ? [["--judge-base-url", config.rewards.judge.baseURL]] : []),
    ].find(([, v]) => isRedactedTarget(v));
    if (stripped) throw new TrainMcpError("ConfigInvalid", `${f.resume}/config.json keeps ${stripped[1]} without its credentials: pass ${stripped[0]} with them again to resume (secrets passed by --env are never saved)`);
  }
  const judgeKey = config.rewards.judge ? process.env[config.rewards.judge.apiKeyEnv] : undefined;
  const { hooks: h, stop } = hooks(f);
  // a variable named on purpose and not set: the requests would go out without the key
  if (config.policy_url && config.policy_api_key_env && process.env[config.policy_api_key_env] === undefined)
    h.log(`warning: policy_api_key_env names ${config.policy_api_key_env}, which is not set: requests to --policy-url go out without a key`);
  const samplingKeyEnv = config.server_sampling?.api_key_env;
  if (samplingKeyEnv && samplingKeyEnv !== "OPENAI_API_KEY" && process.env[samplingKeyEnv] === undefined)
    h.log(`warning: server_sampling.api_key_env names ${samplingKeyEnv}, which is not set: sampling requests go out without a key`);
  const controller = new AbortController();
  // Ctrl-C, or a scheduler's SIGTERM (preemption): finish the step, checkpoint, exit 128 + signal
  let stopSignal: NodeJS.Signals | undefined;
  // the newest checkpoint on disk, and whether it is the one the first signal asked for
  let lastCheckpoint: SavedCheckpoint | undefined;
  h.onCheckpoint = (step, runDir) => {
    lastCheckpoint = { step, runDir, afterStop: stopSignal !== undefined };
  };
  const onSignal = (sig: NodeJS.Signals) => {
    if (stopSignal) {
      // written even under --quiet: what is on disk decides what a resume can do
      process.stderr.write(`${secondSignalText(sig, lastCheckpoint)}\n`);
      process.exit(sig === "SIGTERM" ? 143 : 130);
    }
    stopSignal = sig;
    process.exitCode = sig === "SIGTERM" ? 143 : 130;
    h.log(`interrupted (${sig}): finishing this step, checkpointing, then exiting (the signal again quits at once)`);
    controller.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    // the engines load only when a run starts, so `train-mcp tools` stays quick
    const { train } = await import("../../train/loop.js");
    const summary = await train({
      config,
      resume: !!f.resume,
      judgeApiKey: judgeKey,
      // a judge from --config or a resumed run's config.json (not the flags) is named by its fields there
      ...(config.rewards.judge && !f.judgeModel && (f.config || f.resume) ? { judgeSettingNames: { model: `${configName}: rewards.judge.model`, baseUrl: `${configName}: rewards.judge.baseURL` } } : {}),
      // only a key named for it: $OPENAI_API_KEY is the judge's, and a policy server may be anyone's
      policyApiKey: config.policy_api_key_env ? process.env[config.policy_api_key_env] : undefined,
      samplingApiKey: config.server_sampling ? process.env[config.server_sampling.api_key_env] : undefined,
      connect: connectOptions(f, config),
      hooks: h,
      signal: controller.signal,
    });
    if (summary.interrupted) {
      process.exitCode = stopSignal === "SIGTERM" ? 143 : 130;
      h.log(`stopped after step ${summary.steps} (checkpointed): continue with: train-mcp train --resume ${summary.run_dir}`);
    } else if (stopSignal) {
      // the signal came during the final evaluation, which ran to its end: the run is whole
      process.exitCode = 0;
      h.log(`the ${stopSignal} came during the final evaluation, which finished: the run is complete`);
    }
    return summary;
  } finally {
    stop();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

export interface SavedCheckpoint {
  step: number;
  runDir: string;
  /** saved after the first signal (the checkpoint it announced) */
  afterStop: boolean;
}

/** What a second Ctrl-C (or SIGTERM) says as it quits at once: whether the announced checkpoint was completed, and what a resume finds. */
export function secondSignalText(sig: NodeJS.Signals, saved: SavedCheckpoint | undefined): string {
  const quit = `interrupted again (${sig}): quit at once`;
  if (saved?.afterStop) return `${quit}, after the checkpoint was completed (step ${saved.step}): continue with: train-mcp train --resume ${saved.runDir}`;
  if (saved)
    return `${quit}, before the checkpoint was completed: the run keeps its last checkpoint (step ${saved.step}; later steps are lost): continue with: train-mcp train --resume ${saved.runDir}`;
  return `${quit}, before the checkpoint was completed: no checkpoint was saved, so nothing is kept to resume from`;
}

/** "1 GRPO step", "2 GRPO steps" */
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

const pct = (x: number | null) => (x !== null && Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : "n/a");

/** Where held-out success moved: one row per scenario template, the most common first ("" for one template). */
export function templateTable(byTemplate: NonNullable<TrainSummary["heldout_by_template"]>): string {
  const rows = Object.entries(byTemplate).sort((x, y) => y[1].n - x[1].n || x[0].localeCompare(y[0]));
  if (rows.length < 2) return "";
  const w = Math.max(...rows.map(([name]) => name.length), "template".length);
  const line = (name: string, n: string, b: string, a: string) => `  ${name.padEnd(w)}  ${n.padStart(4)}  ${b.padStart(7)}  ${a.padStart(7)}\n`;
  return line("template", "n", "before", "after") + rows.map(([name, r]) => line(name, String(r.n), pct(r.before), pct(r.after))).join("");
}

/** What a run prints at its end (stderr): held-out success before and after, and where its files are. */
export function summaryText(s: TrainSummary): string {
  const text =
    `\nheld-out success (${count(s.heldout_n, "scenario")}): before RL ${pct(s.heldout_before)} → after RL ${pct(s.heldout_after)}` +
    `  (${count(s.steps, "GRPO step")}${s.sft_steps ? `, ${count(s.sft_steps, "warm-start step")}` : ""}, ${s.wall_s} s)\n`;
  return text + templateTable(s.heldout_by_template ?? {}) + toolUseLine(s.heldout_tool_use) + `report: ${s.report ?? "(not built)"}\nrun directory: ${s.run_dir}\n`;
}

/** How the held-out rollouts' tool use moved ("" without both measurements): a model that learns to call the tool shows it here first. */
export function toolUseLine(u: TrainSummary["heldout_tool_use"]): string {
  const b = u?.before;
  const a = u?.after;
  if (!b || !a) return "";
  const share = (n: number, of: number) => `${Math.round((100 * n) / Math.max(1, of))}%`;
  const malformed = b.malformed_calls + a.malformed_calls > 0 ? `; tool calls that did not parse ${b.malformed_calls} → ${a.malformed_calls}` : "";
  return `tool use (held-out rollouts): answered without a tool ${share(b.without_tool, b.rollouts)} → ${share(a.without_tool, a.rollouts)}; tool calls ${b.calls} → ${a.calls} (failed ${b.failed} → ${a.failed})${malformed}\n`;
}

/** --quiet's whole output on success: the result and where it is, on one line. */
export function quietSummaryLine(s: TrainSummary): string {
  return `held-out success (${count(s.heldout_n, "scenario")}): before RL ${pct(s.heldout_before)} → after RL ${pct(s.heldout_after)}; run directory: ${s.run_dir}\n`;
}

function printSummary(s: TrainSummary, f: TrainFlags): void {
  // --json carries the result on stdout; --quiet alone still says it, once
  if (!f.quiet) process.stderr.write(summaryText(s));
  else if (!f.json) process.stderr.write(quietSummaryLine(s));
  if (f.json) process.stdout.write(JSON.stringify(s) + "\n");
}

/** A run, then its summary; with --json a run whose final evaluation failed still ends its
 *  output with its summary line (heldout_after null, final_eval_error set), then exits non-zero. */
async function trainAndPrint(f: TrainFlags, preset?: Record<string, unknown>): Promise<void> {
  let summary: TrainSummary;
  try {
    summary = await runTraining(f, preset);
  } catch (e) {
    const { summaryOfFailedRun } = await import("../../train/loop.js"); // loaded by the run already
    const partial = summaryOfFailedRun(e);
    if (partial && f.json) process.stdout.write(JSON.stringify(partial) + "\n");
    throw e;
  }
  printSummary(summary, f);
}

export function register(program: Command): void {
  const trainCmd = addTrainOptions(
    program.command("train").description("train a model to use an MCP server's tools (GRPO with real tool calls)"),
    true,
  ).action(async (f: TrainFlags) => {
    if (!f.server?.length && !f.resume && !f.config) throw new TrainMcpError("ConfigInvalid", "train needs --server <target> (or --config / --resume)");
    await trainAndPrint(f);
  });
  void trainCmd;
  addTrainOptions(program.command("demo").description("the offline demo: the built-in model learns the bundled fixture servers"), false).action(
    async (f: TrainFlags) => {
      await trainAndPrint(f, DEMO_CONFIG as Record<string, unknown>);
    },
  );
}
