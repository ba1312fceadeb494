/**
 * `train-mcp eval --model <checkpoint> [--model <other>] --server <target> --scenarios FILE [--k N]`:
 * held-out success rate, mean reward, mean turns and pass@k of one or more checkpoints on the
 * same scenarios, side by side. Without --scenarios, checkpoints of a run are scored on that
 * run's own set (its held-out split); checkpoints of runs with different sets are refused.
 */
import { quitOnSignal } from "../quit-on-signal.js";
import path from "node:path";
import { Option, type Command } from "commander";
import { TrainMcpError } from "../../errors.js";
import { intFlag, numberFlag } from "../number-flags.js";
import { addConnectOptions, connectArgs, type TargetFlags } from "../target-options.js";
import type { ToolFilter } from "../../mcp/tool-filter.js";
import { redactedTrajectoryLine } from "../../train/run-dir.js";
import type { Scenario } from "../../scenarios/schema.js";
import type { ToolUse } from "../../rollout/tool-use.js";
import { toolUseTable } from "../tool-use-table.js";

const collect = (value: string, previous: string[] = []) => [...previous, value];

interface EvalFlags extends Omit<TargetFlags, "server"> {
  model: string[];
  server: string[];
  scenarios?: string[];
  split: "test" | "train" | "all";
  k: string;
  n?: string;
  temperature: string;
  maxTurns?: string;
  maxTokensPerTurn?: string;
  maxCompletionLength?: string;
  systemPrompt?: string;
  engine: "auto" | "ort" | "tfjs";
  seed: string;
  json?: boolean;
  trajectories?: string;
}

export function register(program: Command): void {
  const cmd = program
    .command("eval")
    .description("evaluate checkpoints on held-out scenarios (success, reward, turns, pass@k)")
    .requiredOption("--model <dir>", 'checkpoint or model folder, or "default"; repeat to compare', collect)
    .option("-s, --server <target>", "MCP server; repeat for several (default: the servers of the run a --model checkpoint belongs to)", collect)
    .option("--scenarios <file>", "scenario file (repeatable; default: the bundled set of each fixture)", collect)
    .addOption(new Option("--split <split>", "which scenarios").choices(["test", "train", "all"]).default("test"))
    .option("--k <n>", "samples per scenario (1 = greedy); k > 1 samples at --temperature: success, reward and turns are means over all k, pass@k the share of scenarios with a success among them", "1")
    .option("--n <n>", "scenarios at most (default: all of the split)")
    .option("--temperature <x>", "sampling temperature when k > 1", "1")
    .option("--max-turns <n>", "assistant turns per rollout (default: as trained, else 4)")
    .option("--max-tokens-per-turn <n>", "tokens per assistant turn (default: as trained, else 96)")
    .option("--max-completion-length <n>", "generated tokens per rollout, all turns together (default: as trained, else no cap beyond the turn limits)")
    .option("--system-prompt <text>", "system prompt (default: the one the checkpoint was trained with)")
    .addOption(new Option("--engine <e>", "rollout engine").choices(["auto", "ort", "tfjs"]).default("auto"))
    .option("--seed <n>", "random seed", "0")
    .option("--json", "one JSON object per model on stdout")
    .option("--trajectories <file>", "write every rollout (JSONL, with its model and scenario's template) to this file");
  addConnectOptions(cmd).action(async (f: EvalFlags) => {
      // each --model is a folder before anything is said of its run (a checkpoint pruned since)
      const { resolveModelFolder } = await import("../../policy/model-folder.js");
      for (const spec of f.model) resolveModelFolder(spec);
      // a run's checkpoint knows the servers it trained on: --server may be left out then
      f.server = f.server?.length ? f.server : await runServers(f.model);
      const { redactTargetCredentials, sameTarget } = await import("../../mcp/target.js");
      const again = f.server.find((t, i) => f.server!.slice(0, i).some((u) => sameTarget(u, t)));
      if (again !== undefined) throw new TrainMcpError("ConfigInvalid", `--server ${redactTargetCredentials(again)} is given twice: name each server once`);
      // every number is checked before a server starts or a model loads
      const k = intFlag("--k", f.k, 1);
      const n = f.n !== undefined ? intFlag("--n", f.n, 1) : undefined;
      const seed = intFlag("--seed", f.seed, 0);
      const temperature = numberFlag("--temperature", f.temperature, 0);
      const maxTurnsFlag = f.maxTurns !== undefined ? intFlag("--max-turns", f.maxTurns, 1) : undefined;
      const maxTokensFlag = f.maxTokensPerTurn !== undefined ? intFlag("--max-tokens-per-turn", f.maxTokensPerTurn, 1) : undefined;
      const completionFlag = f.maxCompletionLength !== undefined ? intFlag("--max-completion-length", f.maxCompletionLength, 1) : undefined;
      const { redactUrlCredentials } = await import("../../mcp/url-credentials.js");
      const logLine = (l: string) => process.stderr.write(`${redactUrlCredentials(l)}\n`);
      const { ServerSet } = await import("../../train/servers.js");
      const { loadScenarios, takeAcrossServers } = await import("../../train/scenario-source.js");
      const { loadInferencePolicy, turnEndTextOf } = await import("../../train/policy-setup.js");
      const { evaluate } = await import("../../train/evaluate.js");
      const { LocalPolicy } = await import("../../rollout/local-policy.js");
      const { defaultRewards, rewardsFromConfig, RewardConfigSchema } = await import("../../rewards/defaults.js");
      const { templateTag } = await import("../../scenarios/schema.js");
      const connectOptions = connectArgs({ ...f, server: f.server[0] }).options;
      const rows: Array<Record<string, unknown>> = [];
      // how each scored model's rollouts used the tools, printed under the table
      const uses: Array<{ model: string; use: ToolUse }> = [];
      // Ctrl-C prints the models scored so far and says what was not, before the process ends by
      // it (the servers with it)
      const release = quitOnSignal((sig) => {
        if (!f.json) printTable(rows, uses);
        return evalInterruptText(sig, { ...f, scored: rows.length, models: f.model.length });
      });
      const servers = await ServerSet.connect(f.server, "auto", connectOptions, logLine).catch((e: unknown) => {
        release();
        throw e;
      });
      try {
        const os = await import("node:os");
        // without --scenarios, a checkpoint of a run against the same servers is measured on that
        // run's scenarios (its held-out split), not on a set generated afresh
        const load = (specs: string[], generatedIn?: string) => loadScenarios(specs, servers, { seed, runDir: os.tmpdir(), log: logLine, requireTrain: false, generatedIn });
        const runs = f.scenarios?.length ? [] : await runScenarios(f.model, f.server, logLine);
        const showSpecs = (r: { specs: string[] }) => r.specs.map((s) => (s === "auto" ? "auto" : path.relative(process.cwd(), s))).join(", ");
        let data: Awaited<ReturnType<typeof load>>;
        if (runs.length === 0) data = await load(f.scenarios?.length ? f.scenarios : ["auto"]);
        else {
          // checkpoints of different runs are compared on one set only when their runs' sets are
          // the same: else one model's training tasks could be another's held-out ones
          const sets: Array<typeof data> = [];
          for (const r of runs) sets.push(await load(r.specs, r.run));
          const differ = sets.findIndex((d) => scenarioSetKey(d) !== scenarioSetKey(sets[0]));
          if (differ > 0)
            throw new TrainMcpError(
              "ConfigInvalid",
              `the models come from runs with different scenario sets (${runs[0].run}: ${showSpecs(runs[0])}; ${runs[differ].run}: ${showSpecs(runs[differ])}): one model's training tasks may be another's held-out ones; pass --scenarios FILE to score them all on the same set`,
            );
          logLine(`scenarios: those of ${runs.map((r) => r.run).join(" and ")} (${showSpecs(runs[0])})${runs.length > 1 ? ", the same set in each run" : ""}`);
          data = sets[0];
        }
        let scenarios = f.split === "train" ? data.train : f.split === "all" ? [...data.train, ...data.test] : data.test;
        if (n !== undefined) scenarios = takeAcrossServers(scenarios, n);
        if (scenarios.length === 0) throw new TrainMcpError("ScenarioInvalid", `no scenarios in split "${f.split}" of ${data.sources.join(", ")}; try --split all`);
        const { readRolloutSettings } = await import("../../train/checkpoint.js");
        const { openSync, writeSync, closeSync } = await import("node:fs");
        const openOut = (file: string) => {
          try {
            return openSync(file, "w");
          } catch (e) {
            throw new TrainMcpError("ConfigInvalid", `--trajectories ${file}: cannot write it (${(e as Error).message})`);
          }
        };
        const trajectoryFile = f.trajectories ? openOut(f.trajectories) : undefined;
        // what tools print (an environment, an echo) is written down: without the keys this process holds
        const { heldSecrets: secretsOf } = await import("../../train/run-dir.js");
        const heldSecrets = secretsOf([process.env.OPENAI_API_KEY, connectOptions.sampling?.apiKey], connectOptions.env, f.server, connectOptions.headers);
        const templateOf = new Map(scenarios.map((s) => [s.id, templateTag(s)]));
        const unchecked = scenarios.filter((s) => !s.expected?.length).length;
        if (unchecked > 0) logLine(`warning: ${unchecked} of ${scenarios.length} scenarios have no "expected" checks: eval cannot tell their success, so they count as failures`);
        const settingsOf: string[] = [];
        // a run saved with the default rewards is scored as the defaults are: the same settings
        const defaultSettings = JSON.stringify(RewardConfigSchema.omit({ judge: true }).parse({}));
        for (const spec of f.model) {
          const p = await loadInferencePolicy(spec, { engine: f.engine, log: logLine });
          const trained = readRolloutSettings(p.dir);
          if (trained?.resource_tools && !connectOptions.resourceTools) logLine(`warning: ${spec} was trained with --resource-tools (list_resources, read_resource); without that flag here it is played without them`);
          const filterText = (t: ToolFilter | undefined) => [t?.include?.length ? `--tools ${t.include.join(",")}` : "", t?.exclude?.length ? `--exclude-tools ${t.exclude.join(",")}` : ""].filter(Boolean).join(" ");
          // the tools themselves where the run wrote them down: filters spelt two ways may offer the same tools
          const offeredNow = servers.offeredToolNames();
          const toolsDiffer = trained?.offered_tools ? !sameList(trained.offered_tools, offeredNow) : trained && filterText(trained.tools) !== filterText(connectOptions.tools);
          if (trained && toolsDiffer)
            logLine(`warning: ${spec} was trained with ${filterText(trained.tools) || "every tool of its servers"}; here ${filterText(connectOptions.tools) || "every tool"} is offered, so its prompt shows other tools than it learned with${trained.offered_tools ? toolChanges(trained.offered_tools, offeredNow) : ""}`);
          if (trained && !!trained.server_instructions !== !!connectOptions.serverInstructions)
            logLine(`warning: ${spec} was trained ${trained.server_instructions ? "with" : "without"} its servers' instructions in the system prompt (--server-instructions); here it is played ${connectOptions.serverInstructions ? "with" : "without"} them`);
          if (trained?.elicitation && trained.elicitation !== connectOptions.elicitation)
            logLine(`warning: ${spec} was trained with --elicitation ${trained.elicitation}; here ${connectOptions.elicitation ? `forms are answered by ${connectOptions.elicitation}` : "the capability is not declared, so tools that ask the user for input may be missing or fail"}`);
          if (trained?.sampling && !connectOptions.sampling) logLine(`warning: ${spec} was trained with a sampling model (--sampling-model); without one here, tools that ask the client's model for a completion may be missing`);
          const maxTurns = maxTurnsFlag ?? trained?.max_turns ?? 4;
          // the efficiency reward's turn budget is the turns this model is given
          // and its rewards are the run's (train_mcp.json) where the checkpoint has them
          const run = { hasExpectations: scenarios.some((s) => s.expected?.length), hasReferences: scenarios.some((s) => s.reference?.calls.length), maxTurns, knownTools: servers.entries.flatMap((e) => e.toolbox.tools.map((t) => t.name)), stateTimeoutMs: connectOptions.timeoutMs };
          const components = trained?.rewards ? rewardsFromConfig(trained.rewards, run) : defaultRewards(run);
          try {
            const r = await evaluate(scenarios, new LocalPolicy({ codec: p.tokenizer, sampler: p.sampler, maxContextTokens: p.config.maxPositions, turnEndText: turnEndTextOf(p.tokenizer) }), servers, {
              k,
              temperature,
              seed,
              maxTurns,
              maxTokensPerTurn: maxTokensFlag ?? trained?.max_tokens_per_turn ?? 96,
              maxCompletionTokens: completionFlag ?? trained?.max_completion_length,
              systemPrompt: f.systemPrompt ?? trained?.system_prompt,
              maxConcurrentRollouts: 64,
              toolTimeoutMs: connectOptions.timeoutMs ?? 30_000, // --timeout's documented default
              components,
              normalizeRewards: trained?.rewards?.normalize,
            });
            // mean rewards of rows scored with different settings do not compare: say which
            const row = { model: spec, n: r.n, success_rate: round(r.success_rate), mean_reward: round(r.mean_reward), reward_settings: trained?.rewards ? "run" : "default", mean_turns: round(r.mean_turns), ...(r.pass_at_k !== undefined ? { [`pass@${r.k}`]: round(r.pass_at_k) } : {}) };
            rows.push(row);
            if (r.tool_use) uses.push({ model: spec, use: r.tool_use });
            settingsOf.push(trained?.rewards ? JSON.stringify(trained.rewards) : defaultSettings);
            if (f.json) process.stdout.write(JSON.stringify({ ...row, per_tag: Object.fromEntries(Object.entries(r.per_tag).map(([t, v]) => [t, round(v)])), ...(r.tool_use ? { tool_use: r.tool_use } : {}) }) + "\n");
            if (trajectoryFile !== undefined)
              for (const t of r.trajectories) writeSync(trajectoryFile, redactedTrajectoryLine({ model: spec, template: templateOf.get(t.scenarioId), ...t }, heldSecrets) + "\n");
          } finally {
            await p.sampler.close();
          }
        }
        if (trajectoryFile !== undefined) closeSync(trajectoryFile);
        if (new Set(settingsOf).size > 1)
          logLine(`warning: the models' rewards were scored with different settings (reward_settings: each run's own, or the defaults): compare their success_rate, not their mean_reward`);
        if (!f.json) printTable(rows, uses);
      } finally {
        release();
        await servers.close();
      }
    });
}

/** eval's table: one format per column (n is a count, the other numbers are rates and means: 1 is 1.000); then each model's tool use. */
function printTable(rows: ReadonlyArray<Record<string, unknown>>, uses: ReadonlyArray<{ model: string; use: ToolUse }>): void {
  if (rows.length === 0) return;
  const keys = Object.keys(rows[0]);
  const fmt = (k: string, v: unknown) => (typeof v === "number" && k !== "n" ? v.toFixed(3) : String(v));
  const width = keys.map((k) => Math.max(k.length, ...rows.map((r) => fmt(k, r[k]).length)));
  process.stdout.write(keys.map((k, i) => k.padEnd(width[i])).join("  ") + "\n");
  for (const r of rows) process.stdout.write(keys.map((k, i) => fmt(k, r[k]).padEnd(width[i])).join("  ") + "\n");
  process.stdout.write(toolUseTable(uses));
}

/**
 * What `eval` says when a signal stops it after `scored` of its `models`: their rows are above
 * (the table is printed on the way out; --json printed each as it was done), and --trajectories
 * holds their rollouts.
 */
export function evalInterruptText(sig: NodeJS.Signals, opts: { json?: boolean; trajectories?: string; scored: number; models: number }): string {
  const { scored, models } = opts;
  const left = models - scored;
  const shown =
    scored === 0
      ? `0 of ${models} model${models === 1 ? "" : "s"} scored, nothing printed`
      : `${scored} of ${models} model${models === 1 ? "" : "s"} scored, ${opts.json ? "each row above" : "in the table above"}${left > 0 ? `; the other ${left === 1 ? "one was" : `${left} were`} not evaluated` : ""}`;
  return `interrupted (${sig}): eval stopped: ${shown}${opts.trajectories && scored > 0 ? `; ${opts.trajectories} holds the rollouts of the models scored` : ""}`;
}


/** 4 significant digits: 0.6 rather than 0.5999999999999999 (float noise of the means). */
function round(x: number): number {
  return Number(x.toPrecision(4));
}

/** Which scenarios a loaded set holds, in which split, asking what: equal for the same set. */
function scenarioSetKey(d: { train: readonly Scenario[]; test: readonly Scenario[] }): string {
  const rows = [...d.train, ...d.test].map((s) => JSON.stringify([s.split, s.id, s.task, s.expected ?? null]));
  return JSON.stringify(rows.sort());
}

/** The servers and scenarios a run saved in its config.json; undefined when it cannot be read. */
async function savedRunConfig(run: string): Promise<{ server?: unknown; scenarios?: unknown } | undefined> {
  const { readFileSync } = await import("node:fs");
  try {
    return JSON.parse(readFileSync(path.join(run, "config.json"), "utf8")) as { server?: unknown; scenarios?: unknown };
  } catch {
    return undefined;
  }
}

/** The servers the first checkpoint among `models` trained on (its run's config.json), for an eval without --server. */
async function runServers(models: readonly string[]): Promise<string[]> {
  const { runOfCheckpoint } = await import("../../train/run-dir.js");
  const { redactTargetCredentials } = await import("../../mcp/target.js");
  for (const model of models) {
    const run = runOfCheckpoint(model);
    if (!run) continue;
    const saved = await savedRunConfig(run);
    if (!saved) continue;
    const servers = Array.isArray(saved.server) ? saved.server.map(String) : [];
    if (servers.some((t) => t.includes("[redacted]")))
      throw new TrainMcpError("ConfigInvalid", `eval: the servers of ${run} were saved without their credentials: pass them with --server`);
    if (servers.length > 0) {
      process.stderr.write(`servers: those of ${run} (${servers.map(redactTargetCredentials).join(", ")})\n`);
      return servers;
    }
  }
  // a run folder given for a checkpoint: the message that names the checkpoint says more
  const { refuseRunDirectory } = await import("../../policy/model-folder.js");
  for (const model of models) refuseRunDirectory(model);
  throw new TrainMcpError("ConfigInvalid", "eval needs --server <target>: no --model is a checkpoint of a run that records its servers");
}

/** The scenario files of each run the checkpoints among `models` belong to (once per run), where
 *  that run trained on the same servers; "auto" stands for its generated sets (scenarios-N.jsonl). */
async function runScenarios(models: readonly string[], servers: readonly string[], log: (line: string) => void): Promise<Array<{ run: string; specs: string[] }>> {
  const { runOfCheckpoint } = await import("../../train/run-dir.js");
  const { sameTarget } = await import("../../mcp/target.js");
  const { existsSync } = await import("node:fs");
  const found: Array<{ run: string; specs: string[] }> = [];
  for (const model of models) {
    const run = runOfCheckpoint(model);
    if (!run || found.some((r) => r.run === run)) continue;
    const saved = await savedRunConfig(run);
    if (!saved) continue;
    const ranOn = Array.isArray(saved.server) ? saved.server.map(String) : [];
    const specs = Array.isArray(saved.scenarios) ? saved.scenarios.map(String) : [];
    if (ranOn.length !== servers.length || !ranOn.every((t, i) => sameTarget(t, servers[i]))) continue;
    if (specs.length === 0) continue;
    const gone = specs.filter((s) => s !== "auto" && !existsSync(s));
    if (gone.length > 0) {
      // not silently: this model's training set is unknown, so it cannot be told apart from the held-out one
      log(`warning: ${model}: its run ${run} lists scenario files that are gone (${gone.join(", ")}): that run's set is not used nor compared with the other models' (this model may be scored on tasks it trained on); pass --scenarios FILE to choose the set`);
      continue;
    }
    found.push({ run, specs });
  }
  return found;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** " (not offered here: a, b; new here: c)": the tool names that differ, a few of each */
function toolChanges(trained: readonly string[], now: readonly string[]): string {
  const few = (names: string[]) => (names.length > 5 ? `${names.slice(0, 5).join(", ")} and ${names.length - 5} more` : names.join(", "));
  const gone = trained.filter((n) => !now.includes(n));
  const added = now.filter((n) => !trained.includes(n));
  const parts = [gone.length ? `not offered here: ${few(gone)}` : "", added.length ? `new here: ${few(added)}` : ""].filter(Boolean);
  return parts.length ? ` (${parts.join("; ")})` : "";
}
