/**
 * The training loop (ARCHITECTURE.md, train/): connect → scenarios → policy → (warm start) →
 * held-out "before" → GRPO steps [pick scenarios → play groups → score → update → refresh the
 * sampler → metrics line → checkpoint] → held-out "after" → summary and report. Everything a
 * run produces lands in its run directory; `resume` continues from the newest checkpoint with
 * the same data order and random state.
 */
import fs from "node:fs";
import path from "node:path";
import { redactTargetCredentials } from "../mcp/target.js";
import type { ConnectOptions } from "../mcp/connect.js";
import { isResourceTool, LIST_RESOURCES, READ_RESOURCE } from "../mcp/resource-tools.js";
import type { SamplingEndpoint } from "../mcp/sampling.js";
import type { ToolFilter } from "../mcp/tool-filter.js";
import { defaultServerLogSize, keepServerLog } from "../mcp/server-log.js";
import { resumeChanges } from "./resume-changes.js";
import { checkJudge, type JudgeSettingNames } from "../rewards/judge-check.js";
import { Rng } from "../policy/sampling.js";
import { rewardMetrics, type ScoredGroup } from "../rewards/combine.js";
import { rewardsFromConfig } from "../rewards/defaults.js";
import type { RewardComponent } from "../rewards/types.js";
import { sampleUntilFull } from "../rl/dynamic-sampling.js";
import { MetricKey } from "../rl/metrics.js";
import { LocalPolicy } from "../rollout/local-policy.js";
import type { Policy } from "../rollout/policy.js";
import type { Trajectory } from "../rollout/trajectory.js";
import { toolUse, toolUseTotals, type ToolUseTotals } from "../rollout/tool-use.js";
import { templateTag, type Scenario } from "../scenarios/schema.js";
import { latestCheckpoint, pruneCheckpoints, readCheckpointState, restoreWeights, saveTrainingCheckpoint, type TrainerState } from "./checkpoint.js";
import { redactSecretValues } from "../mcp/command-credentials.js";
import { anchorPaths, loraLearningRateWarning, scrubSecrets, type TrainConfig } from "./config.js";
import { isTrainMcpError, TrainMcpError } from "../errors.js";
import { ChatTokenizer } from "../policy/tokenizer.js";
import { scheduledLr, warmupStepsOf } from "../rl/lr-schedule.js";
import { EvaluationFailed, evaluate, faultText, isServerFault, metServerOutage, wasSent, type EvalResult } from "./evaluate.js";
import { grpoUpdate } from "./grpo-update.js";
import { playAndScore } from "./play.js";
import { RemoteLearner } from "./remote-learner.js";
import { resolveModelDir, setupPolicy, turnEndTextOf, type PolicySetup } from "./policy-setup.js";
import { readScenarioFileLines } from "../scenarios/io.js";
import { heldSecrets, RunDir, type EvalRecord } from "./run-dir.js";
import { BUNDLED_SCENARIOS_DIR, loadScenarios, takeAcrossServers } from "./scenario-source.js";
import { keepScenarioRecord, scenarioRecord } from "./scenario-record.js";
import { RUN_FILES } from "../report/run-files.js";
import { ServerSet, stderrNote } from "./servers.js";
import { collectDemonstrations, sftStep } from "./sft.js";
import { promptRoomProblem } from "./prompt-room.js";
import { sleep } from "../sleep.js";

export interface TrainHooks {
  log(line: string): void;
  /** one record per step (metrics line), for JSON-lines output */
  onMetrics?(record: Record<string, unknown>): void;
  progress?(label: string, done: number, total: number): void;
  /** a checkpoint was saved (complete on disk): what a second Ctrl-C can say was kept */
  onCheckpoint?(step: number, runDir: string): void;
}

export interface TrainOptions {
  config: TrainConfig;
  /** continue the run in config.out from its newest checkpoint */
  resume?: boolean;
  judgeApiKey?: string;
  /** where the judge was set, for its errors (default: the --judge-model / --judge-base-url flags) */
  judgeSettingNames?: JudgeSettingNames;
  policyApiKey?: string;
  /** key of the endpoint answering servers' sampling requests (config.server_sampling) */
  samplingApiKey?: string;
  connect?: ConnectOptions;
  hooks: TrainHooks;
  /** aborts between steps: the loop checkpoints and returns (Ctrl-C) */
  signal?: AbortSignal;
}

export interface TrainSummary {
  run_dir: string;
  heldout_before: number | null;
  heldout_after: number | null;
  heldout_n: number;
  /** success on sft auto's warm-start probe (whether the model calls tools yet), when that probe
   *  was the held-out set itself; the probe plays at least 32 scenarios, so with a smaller
   *  --eval-n it is not recorded here */
  heldout_base?: number;
  /** success before and after RL per scenario template (tag "template:..."), with its count */
  heldout_by_template?: Record<string, { n: number; before: number; after: number }>;
  /** how the held-out rollouts used the tools before and after RL, in totals (eval.jsonl has them per tool) */
  heldout_tool_use?: { before?: ToolUseTotals; after?: ToolUseTotals };
  steps: number;
  sft_steps: number;
  wall_s: number;
  engine: string;
  interrupted: boolean;
  report?: string;
  /** the final ("after") evaluation failed: why, and how to measure it again (heldout_after is
   *  then null, the run's checkpoint kept; a resume of the run measures it) */
  final_eval_error?: string;
}

function stamp(): string {
  return new Date().toISOString().replace(/[:T]/g, "-").replace(/\..+$/, "");
}

/** `base`, or `base-2`, `base-3`... when runs started in the same second already took it. */
function freshRunPath(base: string): string {
  let p = base;
  for (let i = 2; fs.existsSync(p); i++) p = `${base}-${i}`;
  return p;
}

/** A seeded permutation of 0..n-1 for each pass over the data (deterministic, resumable). */
function dataOrder(n: number, seed: number, epoch: number): number[] {
  const rng = new Rng(seed, 1000 + epoch);
  const idx = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [idx[i], idx[j]] = [idx[j], idx[i]];
  }
  return idx;
}

const splitCount = (scenarios: readonly Scenario[], split: Scenario["split"]) => scenarios.filter((s) => s.split === split).length;

function pick(train: Scenario[], position: number, count: number, seed: number): Scenario[] {
  const out: Scenario[] = [];
  for (let p = position; p < position + count; p++) {
    const epoch = Math.floor(p / train.length);
    out.push(train[dataOrder(train.length, seed, epoch)[p % train.length]]);
  }
  return out;
}

/**
 * sft "auto" runs the warm start when fewer held-out rollouts than this make a tool call: a
 * model that never calls tools cannot learn to from rewards, while one that calls them on some
 * tasks (answering others from memory) can, and that is RL's to teach.
 */
const MIN_TOOL_CALLER_SHARE = 0.2;
/** tries in a row of one step with every tool call failing on the server's side before the run stops */

/** "1 rollout", "2 rollouts" */
const countOf = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

/** A warning when the system prompt holds what looks like a credential: saved as written (the
 *  model needs it) in config.json and every checkpoint, the files people share. */
export function systemPromptWarning(prompt: string | undefined): string | undefined {
  if (!prompt || redactSecretValues(prompt) === prompt) return undefined;
  return "warning: system_prompt holds what looks like a key or credential: the model is given it as written, so it is saved as written, in the run's config.json and in every checkpoint's train_mcp.json";
}

/** How long the rest of a warm start may take (it can stop early), measured on its first steps. */
export function warmStartEstimate(msPerStep: number, left: number, total: number): string {
  const s = (msPerStep * left) / 1000;
  const took = s < 90 ? `${Math.round(s)} s` : s < 5400 ? `${Math.round(s / 60)} min` : `${(s / 3600).toFixed(1)} h`;
  return `warm start: ${(msPerStep / 1000).toFixed(msPerStep < 10_000 ? 1 : 0)} s a step, so up to ${took} more for the ${left} steps left of ${total} (it stops early once the training tasks are solved; --sft-steps N caps it, --sft off skips it)`;
}

/** A warning when warmup is asked for under the constant schedule, which has none (as in
 *  transformers, where `constant` ignores the warmup settings too). */
export function warmupIgnoredWarning(cfg: { lr_scheduler_type: string; warmup_ratio: number; warmup_steps?: number }): string | undefined {
  if (cfg.lr_scheduler_type !== "constant" || !(cfg.warmup_ratio > 0 || (cfg.warmup_steps ?? 0) > 0)) return undefined;
  const asked = (cfg.warmup_steps ?? 0) > 0 ? `warmup_steps ${cfg.warmup_steps}` : `warmup_ratio ${cfg.warmup_ratio}`;
  return `warning: ${asked} has no effect with lr_scheduler_type constant (the default), which has no warmup: use constant_with_warmup, linear or cosine`;
}

/** A step's warning when some rollouts lost their server (their groups are not trained on). */
export function lostServerWarning(step: number, lost: number, serverStderr: string): string {
  return `warning: step ${step}: ${countOf(lost, "rollout")} lost the server mid-rollout; ${lost === 1 ? "its group is" : "their groups are"} left out of the update${serverStderr}`;
}

/** fewer held-out scenarios than this measure too coarsely to compare before and after RL */
const FEW_HELD_OUT = 10;

/** a warm start is checkpointed at least this often (and every 25 steps): a kill loses less */
const SFT_CHECKPOINT_MS = 5 * 60_000;

/** scenarios the sft "auto" probe plays at least */
const MIN_PROBE = 32;

/** The reward settings a checkpoint keeps for eval: all but the judge (whose key eval lacks). */
function withoutJudge({ judge: _judge, ...rest }: TrainConfig["rewards"]): Omit<TrainConfig["rewards"], "judge"> {
  return rest;
}

const round = (x: number, d = 4) => Math.round(x * 10 ** d) / 10 ** d;
/** six significant digits: a learning rate of 4e-7 or a KL of 1.3e-6 keeps its value, where six
 *  decimal places would write 0 */
const significant = (x: number) => (Number.isFinite(x) && x !== 0 ? Number(x.toPrecision(6)) : x);

export async function train(o: TrainOptions): Promise<TrainSummary> {
  const t0 = performance.now();
  // paths as absolute ones, so that a resume from another directory finds them
  const envNames = Object.keys(o.connect?.env ?? {});
  const headerNames = Object.keys(o.connect?.headers ?? {});
  const namesOnly = (given: string[], kept: string[] | undefined) => (o.resume ? kept : given.length > 0 ? given : undefined);
  const cfg = anchorPaths(
    {
      ...o.config,
      server_cwd: o.config.server_cwd ?? o.connect?.cwd,
      server_env_names: namesOnly(envNames, o.config.server_env_names),
      server_header_names: namesOnly(headerNames, o.config.server_header_names),
    },
    process.cwd(),
  );
  // log lines name server targets: a URL's credentials stay out of them
  const log = (line: string) => o.hooks.log(redactSecretValues(line));
  // what can be checked before anything is written is: a start that fails on a typo, a server
  // that does not start or a judge that is not there never creates, nor touches, its run
  // directory (an --out that existed stays as it was, byte for byte)
  checkInputs(cfg);
  const dir = path.resolve(cfg.out ?? freshRunPath(path.join("runs", stamp())));
  const newDir = !fs.existsSync(dir);
  RunDir.refuseOccupied(dir, { resume: o.resume });
  const saved = o.resume ? new RunDir(dir).readJson<Record<string, unknown>>("config.json") : undefined;
  const changed = saved ? resumeChanges(saved, cfg, path.join(dir, "config.json")) : [];
  // --env values are never saved: a resume must give them again
  const savedEnv = Array.isArray(saved?.server_env_names) ? (saved.server_env_names as string[]) : [];
  const missingEnv = savedEnv.filter((n) => !envNames.includes(n));
  if (missingEnv.length > 0) log(`warning: the run's servers were given --env ${missingEnv.join(", ")}, which this resume does not give (values are never saved): they start without ${missingEnv.length === 1 ? "it" : "them"}; pass --env ${missingEnv[0]}=… again`);
  // -H values (an Authorization header) are never saved either
  const missingHeaders = (saved?.server_header_names as string[] | undefined)?.filter((n) => !headerNames.some((h) => h.toLowerCase() === n.toLowerCase())) ?? [];
  const promptWarning = systemPromptWarning(cfg.system_prompt);
  if (promptWarning) log(promptWarning);
  if (missingHeaders.length > 0) log(`warning: the run's servers were given -H ${missingHeaders.join(", ")}, which this resume does not give (values are never saved): requests go without ${missingHeaders.length === 1 ? "it" : "them"}; pass -H '${missingHeaders[0]}: …' again`);

  // stdio servers' stderr, kept with the run unless --server-log put it elsewhere: copied at
  // every checkpoint, so a run killed by -9 has it up to its last one
  let serverLogFrom = o.connect?.serverLog === undefined ? defaultServerLogSize() : undefined;
  const servers = await ServerSet.connect(cfg.server, cfg.isolate, { ...o.connect, cwd: cfg.server_cwd, templateDir: cfg.server_template_dir ?? o.connect?.templateDir, resourceTools: cfg.server_resource_tools, tools: toolFilterOf(cfg), serverInstructions: cfg.server_instructions, sandbox: cfg.server_sandbox || cfg.server_sandbox_network ? { network: cfg.server_sandbox_network } : undefined, sampling: samplingEndpoint(cfg, o.samplingApiKey), elicitation: cfg.server_elicitation }, log);
  let runDir: RunDir;
  try {
    if (cfg.rewards.judge && cfg.max_steps > 0) {
      // a wrong judge URL, key or model would leave every group to the other rewards, silently
      const { apiKeyEnv, ...judge } = cfg.rewards.judge;
      const warning = await checkJudge({ ...judge, apiKey: o.judgeApiKey }, apiKeyEnv, o.judgeSettingNames);
      if (warning) log(warning);
    }
    runDir = RunDir.create(dir, { resume: o.resume });
    runDir.lock(); // from here on this process writes the run's files
  } catch (e) {
    await servers.close();
    throw e;
  }
  runDir.heldSecrets = heldSecrets([o.judgeApiKey, o.policyApiKey, o.samplingApiKey], o.connect?.env, cfg.server, o.connect?.headers);
  if (!saved) runDir.writeJson("config.json", scrubSecrets(cfg));
  log(`run directory: ${runDir.dir}`);
  const syncServerLog = (final = false) => {
    // (each stdio transport already blanks its server's secrets in what it writes there)
    if (serverLogFrom !== undefined) serverLogFrom = keepServerLog(runDir.path("server.log"), serverLogFrom, final);
  };
  // a run that fails before its first rollout (scenarios, model, policy endpoint) leaves no directory behind
  let started = false;
  const discardIfUnused = (e: unknown): never => {
    runDir.unlock();
    if (!o.resume && !started) {
      runDir.discard(newDir);
      log(newDir ? `run directory removed: the run stopped before its first rollout` : `run directory left as it was: the run stopped before its first rollout`);
    }
    throw e;
  };
  let setup: PolicySetup | undefined;
  try {
    // a resume reads the sets generated for the run when it started, never generates them again
    const data = await loadScenarios(cfg.scenarios, servers, { seed: cfg.seed, runDir: runDir.dir, log, generateN: cfg.generate_scenarios, generateTrain: cfg.generate_train_scenarios, values: cfg.argument_values, allowWrites: cfg.allow_writes, templateDir: cfg.server_template_dir ?? o.connect?.templateDir, signal: o.signal, generatedIn: o.resume ? runDir.dir : undefined });
    const heldout = cfg.eval_n > 0 ? takeAcrossServers(data.test, cfg.eval_n) : data.test;
    // the sets are recorded at the start; a resume on other ones (a scenario file rewritten) is refused
    const scenarioNote = keepScenarioRecord(runDir.dir, scenarioRecord(data.sources, data.train, heldout), { resume: !!o.resume, hasCheckpoint: o.resume === true && latestCheckpoint(runDir.path("checkpoints")) !== null, bundledDir: BUNDLED_SCENARIOS_DIR });
    if (scenarioNote) log(scenarioNote);
    // --eval-n measures on part of the held-out split: say of how many
    const ofSplit = heldout.length < data.test.length ? ` (--eval-n ${cfg.eval_n} of the ${data.test.length} in the held-out split)` : "";
    log(`scenarios: ${data.train.length} train, ${heldout.length} held-out${ofSplit} (${data.sources.join(", ")})`);
    if (heldout.length === 0) log(`warning: no held-out scenarios (split "test") in ${data.sources.join(", ")}: success before and after RL cannot be measured`);
    else if (heldout.length < FEW_HELD_OUT && (cfg.eval_n === 0 || cfg.eval_n >= FEW_HELD_OUT))
      log(`warning: only ${heldout.length} held-out scenario${heldout.length === 1 ? "" : "s"}: held-out success moves in steps of ${Math.round(100 / heldout.length)} points, so before and after RL say little; add test scenarios (a larger --generate-scenarios, or a scenario file)`);
    const resourceNote = unusedResourceToolsNote(servers, data.train);
    if (resourceNote) log(resourceNote);
    // TRL's max_completion_length: generated tokens per rollout, all turns together; at its
    // default (max_turns × max_tokens_per_turn) it never binds and rollouts are capped turn by turn
    const turnsCap = cfg.max_turns * cfg.max_tokens_per_turn;
    const completionCap = cfg.max_completion_length !== null && cfg.max_completion_length < turnsCap ? cfg.max_completion_length : undefined;
    if (cfg.max_completion_length !== null && cfg.max_completion_length > turnsCap)
      log(
        `warning: max_completion_length ${cfg.max_completion_length} is more than a rollout can generate (max_turns ${cfg.max_turns} × max_tokens_per_turn ${cfg.max_tokens_per_turn} = ${turnsCap}): ` +
          (cfg.loss_type === "dr_grpo" ? "it is dr_grpo's divisor only" : `with loss_type ${cfg.loss_type} it has no effect`),
      );
    const warmupIgnored = warmupIgnoredWarning(cfg);
    if (warmupIgnored) log(warmupIgnored);
    const unchecked = [...data.train, ...heldout].filter((s) => !s.expected?.length).length;
    if (unchecked > 0)
      log(
        `warning: ${unchecked} of ${data.train.length + heldout.length} scenarios have no "expected" checks, so their success is never measured (they count as failures) ` +
          `and they train on ${cfg.rewards.judge ? "the judge's ranking and " : ""}the rule rubric alone${cfg.rewards.judge ? "" : " (format and tool hygiene: no judge is configured)"}`,
      );

    setup = await setupPolicy({
      model: cfg.model,
      seed: cfg.seed,
      device: cfg.device,
      threads: cfg.wasm_threads,
      gradientCheckpointing: cfg.gradient_checkpointing,
      engine: cfg.engine,
      learningRate: cfg.learning_rate,
      weightDecay: cfg.weight_decay,
      maxGradNorm: cfg.max_grad_norm,
      lora: cfg.lora_rank > 0 ? { r: cfg.lora_rank, alpha: cfg.lora_alpha, dropout: cfg.lora_dropout, targetModules: cfg.lora_target_modules } : undefined,
      log,
    });
    const { trainable, sampler, tokenizer, model } = setup;
    log(
      `model: ${cfg.model === "default" ? "built-in tiny model" : setup.modelDir}${setup.randomInit ? " (random init)" : ""}, ` +
        `${cfg.lora_rank > 0 ? `LoRA r=${cfg.lora_rank}` : "full fine-tuning"}${model.gradientCheckpointing ? ", gradient checkpointing" : ""}; ` +
        `backend ${setup.backend}; rollouts on ${cfg.policy_url ? `${cfg.policy_url} (remote policy)` : sampler.engine}`,
    );

    // a first prompt that fills the context (many tools, a small model) leaves nothing to learn
    if (!cfg.policy_url) {
      const problem = promptRoomProblem(tokenizer, model.config.maxPositions, servers, [...data.train, ...heldout], cfg.system_prompt);
      if (problem) throw new TrainMcpError("ConfigInvalid", problem);
    }

    const knownTools = servers.entries.flatMap((e) => e.toolbox.tools.map((t) => t.name));
    const components: RewardComponent[] = rewardsFromConfig(cfg.rewards, {
      hasExpectations: [...data.train, ...heldout].some((s) => s.expected?.length),
      hasReferences: [...data.train, ...heldout].some((s) => s.reference?.calls.length),
      judgeApiKey: o.judgeApiKey,
      maxTurns: cfg.max_turns,
      knownTools,
      stateTimeoutMs: cfg.tool_timeout_ms,
    });
    // every reward 0, or every rollout of a group the same: nothing for GRPO to learn from
    if (components.every((c) => c.weight === 0))
      throw new TrainMcpError("ConfigInvalid", `every reward component of this run has weight 0 (rewards.weights: ${components.map((c) => c.name).join(", ")}), so every reward is 0 and nothing is learned`);
    // a resume says it again only when it changes the rate (the run's start said it already)
    const lrWarning = loraLearningRateWarning(cfg, !o.resume || changed.some((c) => c.startsWith("learning_rate ")));
    if (lrWarning) log(lrWarning);
    if (cfg.temperature === 0 && cfg.num_generations > 1)
      log(`warning: temperature 0 plays the ${cfg.num_generations} rollouts of a group alike, so their rewards do not differ and GRPO learns nothing from them`);

    // resume: weights, optimizer, counters, and the run files cut back to the checkpoint
    let state: TrainerState = { step: 0, sftDone: false, dataPosition: 0, rngCounter: 0, bestSuccess: null, bestStep: null, lora: cfg.lora_rank > 0, time: new Date().toISOString() };
    const ckDir = runDir.path("checkpoints");
    let restored = false;
    let priorWall = 0;
    if (o.resume) {
      const latest = latestCheckpoint(ckDir);
      if (latest) {
        restored = true;
        const ck = readCheckpointState(latest);
        const finished = runDir.readJson<TrainSummary>("summary.json");
        if (ck.state.step >= cfg.max_steps && ck.state.sftDone && finished && !finished.interrupted && !finished.final_eval_error && finished.steps === ck.state.step) {
          // nothing to do: measuring "after" again would only change the record
          log(`the run is finished (${ck.state.step}/${cfg.max_steps} steps): nothing to resume; pass --steps N (more than ${ck.state.step}) to go on training it`);
          return finishedHere(runDir, finished);
        }
        await restoreWeights(latest, model, ck.state.lora, cfg.seed);
        trainable.loadOptimizerState(ck.optimizer);
        state = ck.state;
        priorWall = ck.state.wall_s ?? 0;
        await sampler.refresh();
        for (const f of ["metrics.jsonl", "trajectories.jsonl", "eval.jsonl"] as const) runDir.truncateToCheckpoint(f, state);
        log(`resumed from ${path.basename(latest)} (step ${state.step}${state.sftDone ? "" : `, warm start ${state.sftSteps ?? 0}/${cfg.sft_steps}`})`);
      } else {
        // what an earlier process wrote before its first checkpoint is played again from the start
        for (const f of ["metrics.jsonl", "trajectories.jsonl", "eval.jsonl"] as const) runDir.truncateToCheckpoint(f, null);
        log("no checkpoint yet: starting from the beginning");
      }
    }

    // a remote policy plays the rollouts; with LoRA, the server loads the adapters after each update
    const remote = cfg.policy_url
      ? await RemoteLearner.connect({ baseURL: cfg.policy_url, model: cfg.policy_model, apiKey: o.policyApiKey, apiKeyEnv: cfg.policy_api_key_env, tokenizer, trainee: model, baseModelDir: setup.modelDir, runDir: runDir.dir, log })
      : undefined;
    const refreshPolicy = async () => {
      await sampler.refresh();
      if (remote && cfg.lora_rank > 0) await remote.push(state.step);
    };
    // resumed: the server still plays the base model, not the weights just restored
    if (remote && restored) await refreshPolicy();
    const policy: Policy = remote?.policy ?? new LocalPolicy({ codec: tokenizer, sampler, maxContextTokens: model.config.maxPositions, turnEndText: turnEndTextOf(tokenizer) });
    const rollout = {
      maxTurns: cfg.max_turns,
      maxTokensPerTurn: cfg.max_tokens_per_turn,
      maxCompletionTokens: completionCap,
      systemPrompt: cfg.system_prompt,
      maxConcurrentRollouts: cfg.max_concurrent_rollouts,
      toolTimeoutMs: cfg.tool_timeout_ms,
    };
    started = true;
    // a resume that failed to start leaves the saved config as it was, and says nothing of the
    // changes (a refused one, e.g. on other scenario sets, would seem to have taken them)
    if (changed.length > 0) {
      runDir.writeJson("config.json", scrubSecrets(cfg));
      log(`resumed with changes (saved in config.json once the run goes on): ${changed.join(", ")}`);
    }
    const evals: EvalRecord[] = readEvals(runDir);
    // evaluation is judged by the checks alone: a judge ranks groups, and costs calls
    const evalComponents = components.filter((c) => !c.judge);
    const runEval = async (label: string, step: number, scenarios = heldout): Promise<EvalResult> => {
      const te = performance.now();
      const r = await evaluate(scenarios, policy, servers, {
        ...rollout,
        k: cfg.eval_k,
        temperature: cfg.temperature,
        topP: cfg.top_p,
        topK: cfg.top_k,
        seed: cfg.seed + 17,
        components: evalComponents,
        normalizeRewards: cfg.rewards.normalize,
        onProgress: (d, t) => o.hooks.progress?.(`eval ${label}`, d, t),
        // a server that crashed mid-evaluation gets the waits and tries a training step gets
        outageReplay: { tries: cfg.outage_tries - 1, waitS: cfg.outage_wait_s, signal: o.signal, log: (l) => log(`eval ${label}: ${l}`) },
      }).catch((e: unknown) => {
        // an evaluation that measured nothing still leaves its rollouts: they show what failed
        if (e instanceof EvaluationFailed) {
          runDir.appendTrajectories(e.replaced, { step, phase: "outage", label });
          runDir.appendTrajectories(e.trajectories, { step, phase: "eval", label });
        }
        throw e;
      });
      if (r.replaced) runDir.appendTrajectories(r.replaced, { step, phase: "outage", label });
      const lost = r.trajectories.filter(metServerOutage);
      if (lost.length > 0)
        log(`warning: eval ${label}: ${lost.length} of ${r.trajectories.length} rollouts lost the server mid-rollout${r.replaced ? " on every try" : ""} (counted as failures), the first with: ${faultText(lost[0].toolCalls.find((c) => c.error === "connection")!.result)}`);
      const rec: EvalRecord = { step, label, split: scenarios.every((x) => x.split === "test") ? "test" : "test+train", n: r.n, success_rate: r.success_rate, mean_reward: r.mean_reward, mean_turns: r.mean_turns, per_tag: r.per_tag, ...(r.tool_use ? { tool_use: r.tool_use } : {}), time: new Date().toISOString() };
      if (r.pass_at_k !== undefined) Object.assign(rec, { pass_at_k: r.pass_at_k, k: r.k });
      runDir.append("eval.jsonl", [rec]);
      runDir.appendTrajectories(r.trajectories, { step, phase: "eval", label });
      evals.push(rec);
      const took = `mean reward ${r.mean_reward.toFixed(3)}, ${((performance.now() - te) / 1000).toFixed(1)} s`;
      // "base" is sft auto's probe, sized on its own (MIN_PROBE): not the held-out "before" measure
      if (label === "base")
        log(`warm-start probe: success ${(r.success_rate * 100).toFixed(1)}% of ${r.n} ${rec.split === "test" ? "held-out scenarios" : `scenarios (${splitCount(scenarios, "test")} held-out, ${splitCount(scenarios, "train")} training)`} (${took}): does the model call tools yet?`);
      else log(`${rec.split === "test" ? "held-out" : "probe (held-out + training)"} ${label}: success ${(r.success_rate * 100).toFixed(1)}% of ${r.n} (${took})`);
      return r;
    };
    let savedStep = state.step; // the step of the newest checkpoint (a resume's, or none yet)
    const checkpoint = () => {
      savedStep = state.step;
      state.time = new Date().toISOString();
      state.wall_s = round(priorWall + (performance.now() - t0) / 1000, 1);
      saveTrainingCheckpoint(ckDir, {
        model,
        optimizer: trainable.optimizerState(),
        state,
        modelDir: setup!.modelDir,
        rollout: { system_prompt: cfg.system_prompt, max_turns: cfg.max_turns, max_tokens_per_turn: cfg.max_tokens_per_turn, max_completion_length: completionCap, ...(cfg.server_resource_tools ? { resource_tools: true } : {}), ...(toolFilterOf(cfg) ? { tools: toolFilterOf(cfg) } : {}), offered_tools: servers.offeredToolNames(), ...(cfg.server_instructions ? { server_instructions: true } : {}), ...(cfg.server_sampling ? { sampling: true } : {}), ...(cfg.server_elicitation ? { elicitation: cfg.server_elicitation } : {}), rewards: withoutJudge(cfg.rewards) },
      });
      pruneCheckpoints(ckDir, cfg.save_total_limit ?? Number.POSITIVE_INFINITY, state.bestStep);
      syncServerLog();
      o.hooks.onCheckpoint?.(state.step, runDir.dir);
    };

    // 1. supervised warm start, when the model cannot call tools yet
    let sftSteps = 0;
    let base: number | undefined;
    // (a remote policy learns only through adapters: with full fine-tuning it stays the base model)
    if (!state.sftDone && !(remote && cfg.lora_rank === 0)) {
      // a warm start under way when the run stopped goes on (its probe decided it already)
      const warmedBefore = state.sftSteps ?? 0;
      // a resume with --sft off ends a warm start under way where it stopped
      let needSft = cfg.sft === "on" || (warmedBefore > 0 && cfg.sft !== "off");
      if (warmedBefore > 0 && cfg.sft === "off") {
        log(`warm start stopped at step ${warmedBefore} of ${cfg.sft_steps} (--sft off): GRPO starts from there`);
        trainable.loadOptimizerState({ step: 0, m: new Map(), v: new Map() });
      }
      if (cfg.sft === "auto" && warmedBefore === 0) {
        // a few held-out rollouts (--eval-n 1) would decide the warm start by chance: probe at
        // least MIN_PROBE scenarios, topped up from the rest of the held-out set, then training
        const probeSet = heldout.length >= MIN_PROBE ? heldout : [...heldout, ...data.test.filter((x) => !heldout.includes(x)), ...data.train].slice(0, MIN_PROBE);
        const probe = await runEval("base", 0, probeSet);
        if (probeSet === heldout) base = probe.success_rate;
        // a call of a tool this server does not have (a model trained on another server's) is no
        // more a tool call here than one that did not parse: only the warm start teaches these names
        const reachesATool = (c: { error?: string }) => !c.error?.startsWith("parse:") && c.error !== "unknown_tool";
        const callers = probe.trajectories.filter((t) => t.toolCalls.some(reachesATool)).length;
        const strangers = [...new Set(probe.trajectories.flatMap((t) => t.toolCalls.filter((c) => c.error === "unknown_tool").map((c) => c.name)))];
        needSft = callers / Math.max(1, probe.trajectories.length) < MIN_TOOL_CALLER_SHARE;
        const unknownNote = strangers.length > 0 ? ` (it called tools the server does not have: ${strangers.slice(0, 3).join(", ")}${strangers.length > 3 ? ", …" : ""})` : "";
        log(needSft ? `the model calls the server's tools in ${callers} of ${probe.trajectories.length} probe rollouts${unknownNote}: supervised warm start first` : "the model already calls the server's tools: no warm start");
        // no warm start: the weights RL starts from are the ones just measured
        if (probeSet === heldout && (!needSft || cfg.sft_steps === 0)) {
          const rec: EvalRecord = { ...evals[evals.length - 1], label: "before" };
          runDir.append("eval.jsonl", [rec]);
          evals.push(rec);
        }
      }
      if (needSft && cfg.sft_steps > 0) sftSteps = await warmStart(data.train, warmedBefore);
      else sftSteps = warmedBefore;
      // interrupted: the weights and steps so far are checkpointed, and a resume goes on from them
      state.sftDone = !o.signal?.aborted;
      checkpoint();
    } else sftSteps = state.sftSteps ?? 0;

    /** Supervised steps on verified reference solutions, from step `from` + 1 (a resume's). */
    async function warmStart(trainSet: Scenario[], from: number): Promise<number> {
      const ts = performance.now();
      const { demos, rejected, firstProblem } = await collectDemonstrations(trainSet, tokenizer, servers, { ...rollout, components: evalComponents, seed: cfg.seed });
      log(`warm start: ${countOf(demos.length, "demonstration")} from reference solutions${rejected ? ` (${rejected} did not verify and ${rejected === 1 ? "was" : "were"} dropped; the first, ${firstProblem})` : ""}`);
      if (demos.length === 0 && rejected > 0) log(`warning: the warm start has no demonstration to train on, so GRPO starts from a model that may not call tools yet`);
      if (demos.length === 0) return from;
      const lr = trainable.optimizer.lr;
      trainable.optimizer.lr = cfg.sft_learning_rate;
      const rng = new Rng(cfg.seed, 77);
      let order: number[] = [];
      const nextBatch = () => {
        const batch: Trajectory[] = [];
        while (batch.length < cfg.sft_batch_size) {
          if (order.length === 0) order = shuffled(demos.length, rng);
          batch.push(demos[order.pop()!]);
        }
        return batch;
      };
      // a resume draws the batches already trained on again, untrained: the order goes on as it would have
      for (let i = 1; i <= from; i++) nextBatch();
      if (from > 0) log(`warm start goes on from step ${from}`);
      const probeSet = trainSet.slice(0, 32);
      log(
        `warm start: up to ${cfg.sft_steps} supervised steps, stopping early once ${Math.round(cfg.sft_target_success * 100)}% of ${probeSet.length} training tasks are solved (checked every 25 steps); --sft off skips it, --sft-steps N caps it`,
      );
      let done = from;
      // on a slow machine 25 steps are many minutes: say how it goes, and checkpoint, by the clock too
      let lastNote = performance.now();
      let lastCheckpoint = performance.now();
      const tSteps = performance.now();
      for (let i = from + 1; i <= cfg.sft_steps; i++) {
        // a step is minutes of synchronous compute on a big model: let signals and sockets (an
        // HTTP server's connection) be served between steps
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (o.signal?.aborted) break;
        const r = sftStep(trainable, nextBatch(), cfg.micro_batch_size, cfg.micro_batch_tokens, cfg.sft_reduction);
        done = i;
        state.sftSteps = i;
        const rec = { step: i, phase: "sft", time: new Date().toISOString(), [MetricKey.lossSft]: significant(r.loss), [MetricKey.gradNorm]: significant(r.gradNorm), [MetricKey.tokens]: r.tokens };
        runDir.append("metrics.jsonl", [rec]);
        o.hooks.onMetrics?.(rec);
        o.hooks.progress?.("warm start", i, cfg.sft_steps);
        // a big model's warm start can take an hour: say so after a few steps, with the ways out
        if (i === from + 3 && i < cfg.sft_steps) log(warmStartEstimate((performance.now() - tSteps) / 3, cfg.sft_steps - i, cfg.sft_steps));
        if (performance.now() - lastNote > 60_000 && i % 25 !== 0) {
          log(`warm start ${i}/${cfg.sft_steps}: loss ${r.loss.toFixed(3)}`);
          lastNote = performance.now();
        }
        if (performance.now() - lastCheckpoint > SFT_CHECKPOINT_MS && i % 25 !== 0 && i < cfg.sft_steps) {
          checkpoint();
          lastCheckpoint = performance.now();
        }
        if (i % 25 === 0 || i === cfg.sft_steps) {
          lastNote = performance.now();
          await refreshPolicy();
          const pr = await evaluate(probeSet, policy, servers, { ...rollout, k: 1, temperature: 0, seed: cfg.seed, components: evalComponents });
          log(`warm start ${i}/${cfg.sft_steps}: loss ${r.loss.toFixed(3)}, train-probe success ${(pr.success_rate * 100).toFixed(0)}%`);
          if (pr.success_rate >= cfg.sft_target_success) break;
          // a long warm start is checkpointed as it goes: a kill loses at most these 25 steps
          if (i < cfg.sft_steps) {
            checkpoint();
            lastCheckpoint = performance.now();
          }
        }
      }
      await refreshPolicy();
      // GRPO starts with fresh optimizer moments at its own learning rate (an interrupted warm
      // start keeps its own in the checkpoint, for the resume that goes on with it)
      if (!o.signal?.aborted) trainable.loadOptimizerState({ step: 0, m: new Map(), v: new Map() });
      trainable.optimizer.lr = lr;
      log(`warm start: ${done} step${done === 1 ? "" : "s"} in ${((performance.now() - ts) / 1000).toFixed(1)} s`);
      return done;
    }

    // 2. held-out success before RL
    const beforeRecord = heldout.length === 0 || o.signal?.aborted ? undefined : (evals.find((e) => e.label === "before") ?? (await runEval("before", state.step)));
    // its eval.jsonl line (runEval adds it): the step says which weights it measured (after any warm start)
    const beforeLine = beforeRecord ? evals.find((e) => e.label === "before") : undefined;

    // 3. GRPO
    const lrSchedule = { type: cfg.lr_scheduler_type, learningRate: cfg.learning_rate, maxSteps: cfg.max_steps, warmupSteps: warmupStepsOf(cfg.max_steps, cfg.warmup_ratio, cfg.warmup_steps) };
    let interrupted = false;
    let outageTries = 0; // tries in a row of the step at hand in which the server failed every call
    while (state.step < cfg.max_steps) {
      if (o.signal?.aborted) {
        interrupted = true;
        break;
      }
      const step = state.step + 1;
      const tStep = performance.now();
      trainable.optimizer.lr = scheduledLr(lrSchedule, step);
      const ms = { rollout: 0, reward: 0 };
      // the step's scenarios, next in the seeded data order, each played num_generations times
      let groupsPlayed = 0;
      const playNext = async (n: number, onProgress?: (done: number, total: number) => void) => {
        const scenarios = pick(data.train, state.dataPosition, n, cfg.seed);
        state.dataPosition += scenarios.length;
        const firstGroupIndex = groupsPlayed;
        groupsPlayed += scenarios.length;
        const p = await playAndScore(scenarios, policy, servers, {
          ...rollout,
          firstGroupIndex,
          groupSize: cfg.num_generations,
          temperature: cfg.temperature,
          topP: cfg.top_p,
          topK: cfg.top_k,
          seed: cfg.seed * 1_000_003 + ++state.rngCounter * 7919,
          step,
          components,
          normalizeRewards: cfg.rewards.normalize,
          onProgress,
          log,
        });
        ms.rollout += p.ms.rollout;
        ms.reward += p.ms.reward;
        return p.scored;
      };
      const first = await playNext(cfg.groups_per_step, (d, t) => o.hooks.progress?.(`step ${step} rollouts`, d, t));
      // DAPO dynamic sampling: groups whose rewards are all equal carry no signal; sample more
      // scenarios until groups_per_step groups carry some (or the refill rounds are spent)
      const { groups: scored, train: toTrain, refilled } = cfg.dynamic_sampling
        ? await sampleUntilFull(first, (s) => s.group.trajectories.map((t) => t.reward), (n) => playNext(n), {
            targetGroups: cfg.groups_per_step,
            maxRounds: cfg.max_refill_rounds,
          })
        : { groups: first, train: first, refilled: 0 };
      const groups = scored.map((s) => s.group.trajectories);
      // a remote policy's rollouts are tokenized afterwards; one the template cannot render is not trained on
      const untokenized = groups.flat().filter((t) => t.error?.startsWith("tokenize:"));
      if (untokenized.length) {
        log(`step ${step}: ${countOf(untokenized.length, "rollout")} could not be tokenized (${untokenized[0].error})`);
        if (untokenized.length === groups.flat().length) {
          runDir.appendTrajectories(groups.flat(), { phase: "grpo" }); // kept for the diagnosis
          throw new Error(`remote policy: no rollout of step ${step} could be tokenized with the trainer's chat template: ${untokenized[0].error}`);
        }
      }
      // truncated IS needs the sampler's log-probs of these very tokens: onnxruntime has them, a remote policy does not
      const samplerIsOtherEngine = !remote && sampler.engine !== "tfjs";
      // A server outage is no evidence about the model: a group with a rollout that lost its server
      // is left out of the update (rollouts that avoided the tools would otherwise look better), and
      // a step in which every call the model made failed on the server's side trains nothing and
      // does not count: it is played again after a wait, and the run stops after outage_tries such tries.
      const realCalls = groups.flat().flatMap((t) => t.toolCalls).filter(wasSent);
      // (every rollout failing outright — its server session could not be opened — is one too)
      const failedRollouts = groups.flat().filter((t) => t.finish === "error");
      const callsAllFailed = realCalls.length > 0 && realCalls.every(isServerFault);
      const outage = callsAllFailed || (failedRollouts.length > 0 && failedRollouts.length === groups.flat().length);
      outageTries = outage ? outageTries + 1 : 0;
      // where the stdio servers' stderr is kept (nothing for HTTP servers: they print elsewhere)
      const serverStderr = stderrNote(servers.entries.map((e) => e.target), serverLogFrom !== undefined ? runDir.path("server.log") : o.connect?.serverLog);
      if (outage) {
        // not a step: no update, no metrics line, no checkpoint; the same scenarios are played
        // again once the server answers, and the step's rollouts are kept (phase "outage")
        state.dataPosition -= groupsPlayed;
        runDir.appendTrajectories(groups.flat(), { phase: "outage" });
        const first = callsAllFailed ? faultText(realCalls[0].result) : (failedRollouts[0].error ?? "no message");
        log(
          callsAllFailed
            ? `warning: step ${step}: every tool call (${realCalls.length}) failed on the server's side, so nothing was trained and the step is played again; the first with: ${first}`
            : `warning: step ${step}: every rollout (${failedRollouts.length}) failed, so nothing was trained and the step is played again; the first with: ${first}`,
        );
        if (outageTries >= cfg.outage_tries) {
          // the weights are those of the last step that trained: checkpointed now (as Ctrl-C
          // does), not only at the last save_steps, so a resume loses no trained step
          if (state.step > savedStep) checkpoint();
          throw new TrainMcpError(
            "ServerUnreachable",
            `the MCP server failed every tool call ${outageTries === 1 ? "once" : `${outageTries} times in a row`} at step ${step}, so the run stopped (the first failure: ${first}); nothing was trained on those tries, and the run stands at step ${state.step}${state.step > 0 ? " (its checkpoint is kept)" : ""}: resume with --resume ${runDir.dir} once the server works${serverStderr}`,
          );
        }
        // a server that is restarting gets time to come back: 10 s, 20 s, ... by default
        const waitS = cfg.outage_wait_s * 2 ** (outageTries - 1);
        if (waitS > 0) {
          log(`waiting ${waitS} s before try ${outageTries + 1} of ${cfg.outage_tries} of step ${step}`);
          await sleep(waitS * 1000, o.signal).catch(() => undefined); // Ctrl-C ends the wait; the loop's check stops the run
        }
        continue;
      }
      const lostServer = groups.flat().filter(metServerOutage);
      const serverSound = toTrain.map((s) => s.group.trajectories).filter((g) => !g.some(metServerOutage));
      let update: ReturnType<typeof grpoUpdate>;
      try {
        update = grpoUpdate(trainable, { groups: serverSound, cfg: { ...cfg, max_completion_length: cfg.max_completion_length ?? turnsCap }, microBatchSize: cfg.micro_batch_size, microBatchTokens: cfg.micro_batch_tokens, samplerIsOtherEngine, onProgress: (d, t) => o.hooks.progress?.(`step ${step} update`, d, t) });
      } catch (e) {
        runDir.appendTrajectories(groups.flat(), { phase: "grpo" }); // the step's rollouts outlive a failed update
        throw e;
      }
      state.step = step;
      await refreshPolicy();
      const trajectories = groups.flat();
      const toolCalls = trajectories.flatMap((t) => t.toolCalls);
      const record: Record<string, unknown> = {
        step,
        phase: "grpo",
        time: new Date().toISOString(),
        ...Object.fromEntries(Object.entries({ ...rewardMetrics(scored), ...update }).map(([k, v]) => [k, significant(v)])),
        [MetricKey.groupsRefilled]: refilled,
        "rollout/turns": round(trajectories.reduce((s, t) => s + t.turns, 0) / Math.max(1, trajectories.length), 3),
        "rollout/tool_calls": toolCalls.length,
        "rollout/tool_errors": toolCalls.filter((c) => c.isError).length,
        // rollouts that answered without calling any tool: what RL unlearns when the tools pay
        "rollout/without_tool": toolUse(trajectories).without_tool,
        "rollout/failed": trajectories.filter((t) => t.finish === "error").length,
        "rollout/untokenized": untokenized.length,
        "rollout/server_lost": lostServer.length,
        "rollout/truncated": trajectories.filter((t) => t.finish === "max_tokens").length,
        [MetricKey.timeRollout]: round(ms.rollout / 1000, 3),
        "time/reward": round(ms.reward / 1000, 3),
        "time/step": round((performance.now() - tStep) / 1000, 3),
      };
      runDir.append("metrics.jsonl", [record]);
      runDir.appendTrajectories(trajectories, { phase: "grpo" });
      if (realCalls.length >= 4 && realCalls.every((c) => c.isError && !c.error)) {
        // the tools ran and refused every call ("database locked", a bad credential): the run
        // learns nothing useful until that is fixed
        log(`warning: step ${step}: every tool call (${realCalls.length}) came back as the tool's error, the first: ${realCalls[0].result.replace(/\s+/g, " ").slice(0, 200)}`);
      } else if (failedRollouts.length > 0) {
        log(`warning: step ${step}: ${failedRollouts.length} of ${groups.flat().length} rollouts failed, the first with: ${failedRollouts[0].error ?? "no message"}`);
      } else if (lostServer.length > 0) {
        log(lostServerWarning(step, lostServer.length, serverStderr));
      } else if (realCalls.length === 0) {
        // no call reached a server, so none could fail: is anyone still there?
        for (const e of servers.entries) {
          const why = await e.toolbox.reachable?.();
          if (why) log(`warning: step ${step}: no rollout called a tool, and ${redactTargetCredentials(e.target)} does not answer a ping (${why}): the next steps' tool calls will fail`);
        }
      }
      // every group left to the other rewards: the judge is down or its replies unusable
      if (cfg.rewards.judge && groups.length > 0 && Number(record["reward/judge_fallbacks"] ?? 0) >= groups.length)
        log(`warning: step ${step}: the judge failed on every group (${groups.length}), so the rewards came from the other components only; why is in each rollout's rewardDetails in trajectories.jsonl, the first: ${firstJudgeMiss(scored, components)}`);
      o.hooks.onMetrics?.(record);
      log(
        `step ${step}/${cfg.max_steps}: reward ${fmt(record["reward/total"])} success ${fmt(record["reward/success_rate"])} ` +
          `loss ${fmt(record["loss/total"])} kl ${fmt(record["kl/mean"])} clip ${fmt(record["clip/region"])} ` +
          `zero-var ${record["groups/zero_variance"] ?? 0} (${fmt(record["time/step"], 1)} s)`,
      );
      let best = false;
      if (cfg.eval_steps > 0 && heldout.length > 0 && step % cfg.eval_steps === 0 && step < cfg.max_steps) {
        const r = await runEval("periodic", step);
        if (state.bestSuccess === null || r.success_rate > state.bestSuccess) {
          state.bestSuccess = r.success_rate;
          state.bestStep = step;
          best = true;
        }
      }
      // the best weights so far are kept as a checkpoint, also between save_steps
      if ((cfg.save_steps > 0 && step % cfg.save_steps === 0) || best) checkpoint();
    }
    // a stop asked for during the last step: checkpointed below, and "after RL" left to --resume
    if (o.signal?.aborted) interrupted = true;
    if (state.step > 0 || sftSteps > 0) checkpoint();

    // 4. held-out success after RL; an evaluation that fails (the server went down) still
    // leaves the report of what the run has, and the checkpoint it can be measured from again
    let after: EvalResult | undefined;
    let afterFailed: unknown;
    if (!interrupted && heldout.length > 0 && beforeLine?.step === state.step) {
      // no GRPO step since "before" (--steps 0): the same weights, measured already
      log(`no GRPO step trained since the before-RL evaluation (step ${state.step}): after RL is that measurement, not played again`);
      const rec: EvalRecord = { ...beforeLine, label: "after", time: new Date().toISOString() };
      runDir.append("eval.jsonl", [rec]);
      evals.push(rec);
      after = { n: rec.n, success_rate: rec.success_rate, mean_reward: rec.mean_reward, mean_turns: rec.mean_turns, per_tag: rec.per_tag ?? {}, ...(rec.tool_use ? { tool_use: rec.tool_use } : {}), trajectories: [] };
    } else if (!interrupted && heldout.length > 0) {
      try {
        after = await runEval("after", state.step);
      } catch (e) {
        afterFailed = e;
      }
    }
    const finalEvalError = afterFailed === undefined ? undefined : `final evaluation failed: ${(afterFailed as Error).message}; resume with --resume ${runDir.dir} to measure it again (the checkpoint of step ${state.step} is kept)`;
    if (finalEvalError) log(finalEvalError);
    const summary: TrainSummary = {
      run_dir: runDir.dir,
      // null: not measured (no held-out set; an interrupted run has no "after", nor one whose final evaluation failed)
      heldout_before: beforeRecord ? round(beforeRecord.success_rate) : null,
      heldout_after: after ? round(after.success_rate) : null,
      heldout_n: heldout.length,
      ...(base !== undefined ? { heldout_base: round(base) } : {}),
      ...(after && beforeRecord ? { heldout_by_template: byTemplate(heldout, beforeRecord.per_tag ?? {}, after.per_tag) } : {}),
      ...(beforeRecord?.tool_use || after?.tool_use
        ? { heldout_tool_use: { ...(beforeRecord?.tool_use ? { before: toolUseTotals(beforeRecord.tool_use) } : {}), ...(after?.tool_use ? { after: toolUseTotals(after.tool_use) } : {}) } }
        : {}),
      steps: state.step,
      sft_steps: sftSteps,
      // a resumed run counts the time its earlier processes took up to the checkpoint it continued from
      wall_s: round(priorWall + (performance.now() - t0) / 1000, 1),
      engine: sampler.engine,
      interrupted,
      ...(finalEvalError ? { final_eval_error: finalEvalError } : {}),
    };
    runDir.writeJson("summary.json", summary);
    try {
      const { buildReport } = await import("../report/build-report.js");
      summary.report = (await buildReport(runDir.dir)).path;
    } catch (e) {
      log(`report: ${(e as Error).message}`);
    }
    runDir.writeJson("summary.json", summary);
    if (finalEvalError) {
      // the run's exit status still says it did not finish; the message says where its results are
      const where = `${summary.report ? `report: ${summary.report}\n` : ""}run directory: ${runDir.dir}`;
      const e = afterFailed;
      const failed = isTrainMcpError(e) ? new TrainMcpError(e.code, `${finalEvalError}\n${where}`, e.usage, { cause: e }) : new Error(`${finalEvalError}\n${where}`, { cause: e });
      summaryOfFailedRuns.set(failed, summary);
      throw failed;
    }
    return summary;
  } catch (e) {
    return discardIfUnused(e);
  } finally {
    await setup?.sampler.close().catch(() => undefined);
    await servers.close();
    if (started || o.resume) syncServerLog(true);
    runDir.unlock();
  }
}

/** A finished run's summary with the paths of the directory resumed: a copied run directory
 *  keeps the summary of the one it was copied from (rewritten then, so the copy names itself). */
function finishedHere(runDir: RunDir, finished: TrainSummary): TrainSummary {
  const report = runDir.path(RUN_FILES.report);
  const { report: _old, ...rest } = finished;
  const here: TrainSummary = { ...rest, run_dir: runDir.dir, ...(fs.existsSync(report) ? { report } : {}) };
  if (here.run_dir !== finished.run_dir || here.report !== finished.report) runDir.writeJson("summary.json", here);
  return here;
}

// the summary a run wrote before its final evaluation failed, by the error it threw (for --json)
const summaryOfFailedRuns = new WeakMap<object, TrainSummary>();

/** The summary of a run that trained but whose final evaluation failed, when `e` is that error. */
export function summaryOfFailedRun(e: unknown): TrainSummary | undefined {
  return typeof e === "object" && e !== null ? summaryOfFailedRuns.get(e) : undefined;
}

/**
 * The inputs a start can check without a server or a model load: the model folder (its
 * config.json and tokenizer), --template-dir, and each scenario file (every bad line named).
 * Throws the error the user acts on (exit 2).
 */
function checkInputs(cfg: TrainConfig): void {
  const noTemplate = ChatTokenizer.missingChatTemplate(resolveModelDir(cfg.model));
  if (noTemplate) throw new TrainMcpError("ModelInvalid", `--model ${cfg.model}: ${noTemplate}`);
  if (cfg.server_template_dir && !(fs.existsSync(cfg.server_template_dir) && fs.statSync(cfg.server_template_dir).isDirectory()))
    throw new TrainMcpError("ConfigInvalid", `--template-dir (server_template_dir): ${cfg.server_template_dir} is no folder`);
  // read again once the servers are known (their tools check the calls): files are small
  for (const spec of cfg.scenarios) if (spec !== "auto") readScenarioFileLines(spec);
}

/** Why the judge gave the first of a step's groups no score, as its rollouts keep it. */
function firstJudgeMiss(scored: readonly ScoredGroup[], components: readonly RewardComponent[]): string {
  const judges = components.filter((c) => c.judge).map((c) => c.name);
  for (const s of scored) for (const b of s.breakdown) for (const name of judges) if (b.missing[name]) return b.missing[name].replace(/\s+/g, " ").slice(0, 300);
  return "no reason given";
}

function readEvals(runDir: RunDir): EvalRecord[] {
  const file = runDir.path("eval.jsonl");
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as EvalRecord];
      } catch {
        return [];
      }
    });
}

/** Before/after success of each template the held-out set has (absent from a record: 0). */
function byTemplate(heldout: readonly Scenario[], before: Record<string, number>, after: Record<string, number>): TrainSummary["heldout_by_template"] {
  const out: NonNullable<TrainSummary["heldout_by_template"]> = {};
  for (const s of heldout) {
    const tag = templateTag(s);
    if (!tag) continue;
    const name = tag.slice("template:".length);
    out[name] ??= { n: 0, before: round(before[tag] ?? 0), after: round(after[tag] ?? 0) };
    out[name].n++;
  }
  return out;
}

function shuffled(n: number, rng: Rng): number[] {
  const idx = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [idx[i], idx[j]] = [idx[j], idx[i]];
  }
  return idx;
}

function fmt(v: unknown, d = 3): string {
  if (typeof v !== "number") return "-";
  // a small nonzero value (a KL of 4.7e-6) keeps its digits: "0.000" would read as none
  return v !== 0 && Math.abs(v) < 0.5 * 10 ** -d ? v.toPrecision(2) : v.toFixed(d);
}

/** config.server_sampling as the MCP layer takes it */
/** server_tools / server_exclude_tools (--tools, --exclude-tools) as the MCP layer's ToolFilter */
function toolFilterOf(cfg: TrainConfig): ToolFilter | undefined {
  return cfg.server_tools || cfg.server_exclude_tools ? { include: cfg.server_tools, exclude: cfg.server_exclude_tools } : undefined;
}

function samplingEndpoint(cfg: TrainConfig, apiKey: string | undefined): SamplingEndpoint | undefined {
  const s = cfg.server_sampling;
  return s ? { baseUrl: s.base_url, model: s.model, maxTokens: s.max_tokens, apiKey } : undefined;
}

/** --resource-tools offered the two tools, but no training task's reference solution uses them. */
function unusedResourceToolsNote(servers: ServerSet, train: readonly Scenario[]): string | undefined {
  const offered = servers.entries.some((e) => e.toolbox.tools.some(isResourceTool));
  const used = train.some((s) => s.reference?.calls.some((c) => c.name === LIST_RESOURCES || c.name === READ_RESOURCE));
  if (!offered || used) return undefined;
  return "note: --resource-tools: no training scenario's reference solution reads a resource, so nothing rewards list_resources / read_resource in particular; `train-mcp scenarios generate --resource-tools` writes tasks that do";
}
