/**
 * Where a run's scenarios come from: the files given with --scenarios, or "auto": the bundled
 * set of each fixture server (scenarios/<name>.jsonl), and for any other server a set generated
 * on the spot by the execution-verified generator (saved in the run directory). On request, more
 * training tasks are generated per server beside them (`generate_train_scenarios`): fresh tasks
 * cannot be answered from memory of earlier steps, so what RL rewards is the skill (calling the
 * tool, copying its result), not the answers of a few hundred tasks. None equals a held-out one.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { SCENARIO_RECORD_FILE } from "./scenario-record.js";
import { TrainMcpError } from "../errors.js";
import { redactTargetCredentials } from "../mcp/target.js";
import { readScenarioFile, readScenarioFileLines, ScenarioFileError, writeScenarioFile, type ScenarioProblem } from "../scenarios/io.js";
import { problemsAgainstTools, toolsNamedBy } from "../scenarios/against-tools.js";
import { ArgumentValidator } from "../mcp/validate.js";
import type { Scenario } from "../scenarios/schema.js";
import { generateVerified, writesAdviceFor } from "../scenarios/verified/generate.js";
import { checkValueNames } from "../scenarios/verified/given-values.js";
import { progressLines } from "../scenarios/verified/progress-line.js";
import { HeldOutGuard, sameTaskAcrossSplits, sameTaskWarning } from "../scenarios/held-out-guard.js";
import { otherServerWarning } from "../scenarios/other-server.js";
import type { ServerSet } from "./servers.js";

/** train has no --generator flag: tasks an LLM writes come from `scenarios generate`, as a file */
const TRAIN_OTHER_SOURCES = "write scenarios by hand (scenarios/README.md) or with an LLM (train-mcp scenarios generate --generator llm --llm-base-url … --llm-model … --out tasks.jsonl) and pass the file with --scenarios tasks.jsonl";

export const BUNDLED_SCENARIOS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../scenarios");

export interface ScenarioSplit {
  train: Scenario[];
  test: Scenario[];
  sources: string[];
}

export async function loadScenarios(
  specs: string[],
  servers: ServerSet,
  o: {
    seed: number;
    runDir: string;
    log: (line: string) => void;
    generateN?: number;
    /** values for tools' arguments by name, for the generated scenarios (--value) */
    values?: Readonly<Record<string, readonly string[]>>;
    /** call state-changing tools while generating (--allow-writes; always for fixture: servers) */
    allowWrites?: boolean;
    /** the servers' --template-dir, for the note on tools left out */
    templateDir?: string;
    /** extra execution-verified training scenarios to generate per server (default 0) */
    generateTrain?: number;
    /** refuse a set with no training scenarios (default true; eval needs none) */
    requireTrain?: boolean;
    /** Ctrl-C: generation stops at once */
    signal?: AbortSignal;
    /** a run directory whose generated sets (`scenarios-N.jsonl`, and `scenarios-train-N.jsonl` for
     *  generateTrain) are read instead of generated again: eval of that run's checkpoint, or its --resume */
    generatedIn?: string;
  },
): Promise<ScenarioSplit> {
  // a --value for a name no server's tools take is a typo: said before anything is generated
  if (o.values && Object.keys(o.values).length > 0) checkValueNames(o.values, servers.entries.flatMap((e) => e.toolbox.tools));
  const all: Scenario[] = [];
  const sources: string[] = [];
  // where a user's scenario came from, for errors found once the servers' tools are known
  const origin = new Map<Scenario, { file: string; line: number }>();
  for (const spec of specs) {
    if (spec !== "auto") {
      const read = readScenarioFileLines(spec); // throws ScenarioInvalid naming every bad line
      read.scenarios.forEach((s, i) => origin.set(s, { file: spec, line: read.lines[i] }));
      all.push(...read.scenarios);
      sources.push(spec);
      continue;
    }
    for (const entry of servers.entries) {
      const fixture = /^fixture:(.+)$/.exec(entry.target)?.[1];
      const bundled = fixture ? path.join(BUNDLED_SCENARIOS_DIR, `${fixture}.jsonl`) : undefined;
      if (bundled && fs.existsSync(bundled)) {
        const set = readScenarioFile(bundled).map((s) => ({ ...s, server: entry.target }));
        // --tools / --exclude-tools on a fixture: its tasks that need a tool left out cannot be played
        const leftOut = new Set(entry.toolbox.leftOutTools ?? []);
        const usable = set.filter((s) => !toolsNamedBy(s).some((t) => leftOut.has(t)));
        if (usable.length < set.length) o.log(`note: ${entry.target}: ${set.length - usable.length} of the bundled set's ${set.length} scenarios need a tool this run leaves out (--tools, --exclude-tools), and are left out too`);
        all.push(...usable);
        sources.push(path.relative(process.cwd(), bundled));
        continue;
      }
      const saved = o.generatedIn ? path.join(o.generatedIn, `scenarios-${sources.length}.jsonl`) : undefined;
      if (saved && fs.existsSync(saved)) {
        all.push(...readScenarioFile(saved));
        sources.push(saved);
        continue;
      }
      if (saved) refuseRegenerating(saved, o.generatedIn!);
      const n = o.generateN ?? 200;
      const target = redactTargetCredentials(entry.target);
      o.log(`generating ${n} execution-verified scenarios for ${target} ...`);
      // fewer than asked is fine (a server's tools offer what they offer, and the note says so);
      // a set with no training or no held-out scenario cannot make a run
      const { scenarios } = await generateVerified(entry.toolbox, { n, acceptFewer: true, signal: o.signal, seed: o.seed, server: entry.target, idPrefix: `gen${sources.length}`, otherSources: TRAIN_OTHER_SOURCES, values: o.values, onProgress: progressLines("generating", o.log), ...writesPolicy(entry.target, o, o.log) });
      const missing = (["train", "test"] as const).filter((split) => !scenarios.some((s) => s.split === split));
      if (missing.length > 0)
        throw new TrainMcpError(
          "ScenarioInvalid",
          `the ${scenarios.length} execution-verified scenarios built for ${target} include no ${missing.map((m) => `"${m}"`).join(" or ")} scenario (a run needs both: training and held-out); ` +
            `ask for more with --generate-scenarios N, or write a scenario file (scenarios/README.md) and pass it with --scenarios FILE`,
        );
      const file = path.join(o.runDir, `scenarios-${sources.length}.jsonl`);
      writeScenarioFile(file, scenarios);
      all.push(...scenarios);
      sources.push(file);
    }
  }
  if ((o.generateTrain ?? 0) > 0) all.push(...(await generateTraining(all, servers, { ...o, n: o.generateTrain ?? 0, sources })));
  const seen = new Set<string>();
  for (const s of all) {
    if (seen.has(s.id)) throw new TrainMcpError("ScenarioInvalid", `scenario id "${s.id}" appears twice across ${sources.join(", ")}`);
    seen.add(s.id);
  }
  const playable = servers.playable(all);
  if (playable.length < all.length) {
    // several servers: a scenario plays on the one its `server` names; say which were left out
    const left = all.filter((s) => !playable.includes(s));
    const named = [...new Set(left.map((s) => s.server ?? "(no server field)"))];
    o.log(
      `warning: ${left.length} of ${all.length} scenarios name no server of this run and are left out: ${named.slice(0, 3).join(", ")}${named.length > 3 ? ", …" : ""} ` +
        `(the run's servers: ${servers.entries.map((e) => redactTargetCredentials(e.target)).join(", ")}; with several servers each scenario's "server" must name one of them)`,
    );
  }
  if (servers.entries.length === 1) {
    // one server plays every scenario; ones written for another server are likely a mistake
    const warning = otherServerWarning(playable, servers.entries[0].target, "played on", servers.entries[0].toolbox.serverName);
    if (warning) o.log(warning);
  }
  checkAgainstTools(playable, origin, servers);
  const leak = sameTaskWarning(sameTaskAcrossSplits(playable.filter((s) => origin.has(s))));
  if (leak) o.log(leak);
  const train = playable.filter((s) => s.split === "train");
  const test = playable.filter((s) => s.split === "test");
  if (train.length === 0 && o.requireTrain !== false)
    throw new TrainMcpError("ScenarioInvalid", `no training scenarios (split "train")${playable.length < all.length ? " for the run's servers" : ""} in ${sources.join(", ")}`);
  return { train, test, sources };
}

/** A user's scenario whose state check, setup or reference names a tool its server lacks, or
 *  gives arguments the tool refuses (or has setup calls on a shared instance), can never pass:
 *  refused like a bad field, every one named. */
function checkAgainstTools(playable: Scenario[], origin: Map<Scenario, { file: string; line: number }>, servers: ServerSet): void {
  // one validator per server: it caches compiled schemas by tool name
  const validators = new Map<unknown, ArgumentValidator>();
  const byFile = new Map<string, ScenarioProblem[]>();
  for (const s of playable) {
    const from = origin.get(s);
    if (!from) continue;
    const { toolbox, isolate } = servers.entryFor(s);
    if (!validators.has(toolbox)) validators.set(toolbox, new ArgumentValidator());
    const problems = problemsAgainstTools(s, toolbox.tools, validators.get(toolbox), toolbox.leftOutTools);
    // every rollout's setup on one shared instance would pile up: each needs an instance of its own
    if (s.setup && !isolate) problems.push({ field: "setup", message: "setup calls need a fresh server instance per rollout, and this run shares one (--isolate off)" });
    for (const p of problems) byFile.set(from.file, [...(byFile.get(from.file) ?? []), { line: from.line, ...p }]);
  }
  const [first] = byFile;
  if (!first) return;
  const [file, problems] = first;
  // every scenario naming tools the server lacks: the file is for another server
  const fromFile = playable.filter((s) => origin.get(s)?.file === file);
  const missingTool = (p: ScenarioProblem) => /the server has no tool /.test(p.message);
  const allForeign = fromFile.length > 1 && new Set(problems.filter(missingTool).map((p) => p.line)).size === fromFile.length;
  const target = servers.entryFor(fromFile[0]).target;
  throw new ScenarioFileError(file, problems, allForeign ? `none of its scenarios' tools is on ${redactTargetCredentials(target)}: these scenarios are for another server` : undefined);
}

/** `n` training tasks per server from the verified generator, less any that asks what a held-out
 *  scenario of `existing` asks; saved in the run directory and named in `sources`. */
async function generateTraining(
  existing: Scenario[],
  servers: ServerSet,
  o: { seed: number; runDir: string; log: (line: string) => void; n: number; sources: string[]; signal?: AbortSignal; generatedIn?: string; values?: Readonly<Record<string, readonly string[]>>; allowWrites?: boolean; templateDir?: string },
): Promise<Scenario[]> {
  const guard = new HeldOutGuard(existing.filter((s) => s.split === "test"));
  const out: Scenario[] = [];
  for (const [i, entry] of servers.entries.entries()) {
    // a resumed run trains on the set it generated when it started (saved beside its checkpoints)
    const saved = o.generatedIn ? path.join(o.generatedIn, `scenarios-train-${i}.jsonl`) : undefined;
    if (saved && fs.existsSync(saved)) {
      out.push(...readScenarioFile(saved));
      o.sources.push(saved);
      continue;
    }
    if (saved) refuseRegenerating(saved, o.generatedIn!);
    o.log(`generating ${o.n} execution-verified training scenarios for ${redactTargetCredentials(entry.target)} ...`);
    // each extra task helps; a server that offers fewer (or none) leaves the others' and the run's own
    let scenarios: Scenario[];
    try {
      ({ scenarios } = await generateVerified(entry.toolbox, { n: o.n, acceptFewer: true, signal: o.signal, seed: `${o.seed}/train-${i}`, testFraction: 0, server: entry.target, idPrefix: `train${i}`, otherSources: TRAIN_OTHER_SOURCES, values: o.values, onProgress: progressLines("generating", o.log), ...writesPolicy(entry.target, o, o.log) }));
    } catch (e) {
      if (!(e instanceof TrainMcpError) || e.code !== "ConfigInvalid") throw e;
      o.log(`warning: no extra training scenarios for ${redactTargetCredentials(entry.target)}: ${e.message}`);
      continue;
    }
    const kept = scenarios.filter((s) => !guard.leaks(s));
    const file = path.join(o.runDir, `scenarios-train-${i}.jsonl`);
    writeScenarioFile(file, kept);
    o.log(`  kept ${kept.length} (${scenarios.length - kept.length} asked what a held-out scenario asks) in ${file}`);
    out.push(...kept);
    o.sources.push(file);
  }
  return out;
}

/** The first `n` scenarios taken in turn from each server's (in order), so a cut-down held-out
 *  set of several servers holds each of them, not only the first one's. */
export function takeAcrossServers(scenarios: readonly Scenario[], n: number): Scenario[] {
  const queues = new Map<string, Scenario[]>();
  for (const s of scenarios) {
    const key = s.server ?? "";
    const q = queues.get(key);
    if (q) q.push(s);
    else queues.set(key, [s]);
  }
  const out: Scenario[] = [];
  for (let i = 0; out.length < Math.min(n, scenarios.length); i++)
    for (const q of queues.values()) if (i < q.length && out.length < n) out.push(q[i]);
  return out;
}

/** A user's server keeps its state where a fresh process does not undo it (files, databases): its
 *  state-changing tools are called only under --allow-writes; the fixtures' state is their own
 *  process's. */
function writesPolicy(target: string, o: { allowWrites?: boolean; templateDir?: string }, log: (line: string) => void): { allowWrites: boolean; writesAdvice?: string; onNote: (line: string) => void } {
  return { allowWrites: target.startsWith("fixture:") || o.allowWrites === true, writesAdvice: writesAdviceFor(target, o.templateDir), onNote: (line) => log(`note: ${line}`) };
}

/**
 * A resumed run whose record lists its sets never generates one again: a new set would differ
 * (another server state, another version) and leave a file the run did not train on. A run that
 * kept no record (it stopped before its sets were written, or an older version made it) generates.
 */
function refuseRegenerating(file: string, runDir: string): void {
  if (!fs.existsSync(path.join(runDir, SCENARIO_RECORD_FILE))) return;
  throw new TrainMcpError("ScenarioInvalid", `${file} is gone: the run generated it when it started and its other files refer to it, so a resume does not generate it again; restore it (or start a new run)`);
}
