/**
 * `train-mcp scenarios generate|check|show`: build, validate and summarize scenario files.
 *
 *   generate --server T --generator verified|llm --n 200 --out FILE [--seed S] [--test-fraction F]
 *   check FILE [--server T]   every bad line listed (exit 2); with --server, every reference
 *                             solution of the well-formed lines is replayed on a fresh server
 *                             (exit 1 if one fails, 2 if a line is bad or names a missing tool), and
 *                             one line sums up: N scenarios, M ok, K failing (by reason)
 *   show FILE                 counts per split, difficulty and tool
 * The OpenAI key is read here from OPENAI_API_KEY (never from a flag, never logged) and passed
 * down. The progress bar goes to stderr and only when stderr is a terminal.
 */
import { quitOnSignal } from "../quit-on-signal.js";
import { Option, type Command } from "commander";
import cliProgress from "cli-progress";
import { TrainMcpError } from "../../errors.js";
import { intFlag, numberFlag } from "../number-flags.js";
import { connect } from "../../mcp/connect.js";
import type { Toolbox } from "../../mcp/types.js";
import { formatProblem, parseScenarioText, readScenarioFile, writeScenarioFile } from "../../scenarios/io.js";
import { generateWithLlm } from "../../scenarios/llm/generate.js";
import { LlmTaskChecker } from "../../scenarios/llm/verify.js";
import { isReadOnlyTool } from "../../scenarios/verified/generic.js";
import { templateLinksWarning, writesWarning } from "../../train/servers.js";
import { replayMutates, replayScenario } from "../../scenarios/replay.js";
import { problemsAgainstTools } from "../../scenarios/against-tools.js";
import { sameTaskAcrossSplits, sameTaskWarning } from "../../scenarios/held-out-guard.js";
import { otherServerWarning } from "../../scenarios/other-server.js";
import { redactTargetCredentials } from "../../mcp/target.js";
import { ArgumentValidator } from "../../mcp/validate.js";
import { countScenarios, formatCounts } from "../../scenarios/summary.js";
import { detectStateful, generateVerified, writesAdviceFor } from "../../scenarios/verified/generate.js";
import { parseGivenValues } from "../../scenarios/verified/given-values.js";
import { progressLines } from "../../scenarios/verified/progress-line.js";
import { existsSync, readFileSync, statSync } from "node:fs";
import { addConnectOptions, addTargetOptions, connectArgs, type TargetFlags } from "../target-options.js";

interface GenerateFlags extends TargetFlags {
  generator: "verified" | "llm";
  n: string;
  out: string;
  seed: string;
  testFraction: string;
  llmBaseUrl?: string;
  llmModel?: string;
  llmMaxRequests?: string;
  concurrency?: string;
  verify: boolean;
  acceptFewer?: boolean;
  stateful?: boolean;
  allowWrites?: boolean;
  value?: string[];
  idPrefix?: string;
  force?: boolean;
}

/**
 * A progress bar on stderr when it is a terminal. With `tried` (the verified generator) it also
 * shows attempts made, and where stderr is no terminal (a log, CI) a line every 30 s says them.
 */
function progressBar(label: string, tried = false): { update: (done: number, total: number, attempts?: number) => void; stop: () => void } {
  if (!process.stderr.isTTY) return { update: tried ? progressLines(label, (line) => process.stderr.write(`${line}\n`)) : () => undefined, stop: () => undefined };
  const bar = new cliProgress.SingleBar(
    { format: `${label} [{bar}] {value}/{total}${tried ? " | {tried} tried" : ""} | {duration_formatted}`, stream: process.stderr, hideCursor: true, clearOnComplete: false },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(done, total, attempts = 0) {
      if (!started) {
        bar.start(total, 0, { tried: 0 });
        started = true;
      }
      bar.update(done, { tried: attempts });
    },
    stop: () => started && bar.stop(),
  };
}

/**
 * The one line `scenarios check --server` ends with: every scenario counted once, as ok or as
 * failing for one reason (a line with a problem in the file is not checked further, and one
 * refused against the tools is not replayed, so the reasons never overlap), then what the
 * replay covered.
 */
export function checkSummary(c: CheckCounts): string {
  const bad = c.badInFile ?? 0;
  const failing = c.failed + c.badAgainstTools + bad;
  const unreplayed = c.total - c.replayed - c.badAgainstTools - bad;
  const derived = c.unconfirmed ? ` (${c.unconfirmed} derived, checked on the reference answer only)` : "";
  const without = unreplayed ? `, ${unreplayed} without a reference solution to replay` : "";
  const inFile = bad ? `, ${bad} invalid in the file` : "";
  return `${c.total} scenarios: ${c.total - failing} ok, ${failing} failing (${c.failed} replay, ${c.badAgainstTools} tool mismatch${inFile}); ${c.replayed} reference solutions replayed${derived}${without}`;
}

interface CheckCounts {
  total: number;
  replayed: number;
  failed: number;
  unconfirmed: number;
  badAgainstTools: number;
  /** lines of the file with a problem of their own (never replayed); default 0 */
  badInFile?: number;
}

/** The error line `check --server` exits 2 with: the same failing count as the summary, by reason. */
export function failingLine(c: CheckCounts): string {
  const bad = c.badInFile ?? 0;
  const failing = c.failed + c.badAgainstTools + bad;
  const reasons = [
    bad ? `${bad} invalid in the file` : "",
    c.badAgainstTools ? `${c.badAgainstTools} naming a tool the server does not have, or arguments it refuses` : "",
    c.failed ? `${c.failed} not reproduced by replaying ${c.failed === 1 ? "its" : "their"} reference solution` : "",
  ].filter(Boolean);
  return `${failing} of ${c.total} scenarios failing: ${reasons.join("; ")}`;
}

export function register(program: Command): void {
  const scenarios = program.command("scenarios").description("generate, check and show (summarize) scenario files (JSONL)");

  addTargetOptions(scenarios.command("generate").description("write N verified or LLM-written scenarios for a server's tools"))
    .addOption(new Option("-g, --generator <kind>", "verified: offline, execution-checked; llm: written by an OpenAI-compatible model").choices(["verified", "llm"]).default("verified"))
    .option("-n, --n <count>", "number of scenarios", "200")
    .requiredOption("-o, --out <file>", "scenario file to write (JSONL; written atomically, only on success; an existing file only with --force)")
    .option("--force", "replace --out when it already exists")
    .option("--seed <s>", "random seed (verified: same seed, server and --concurrency, same file; llm: a whole number, sent as the request seed)", "1")
    .option("--test-fraction <f>", "share of held-out test scenarios", "0.25")
    .option("--id-prefix <p>", "scenario id prefix (default: the fixture name, or s / llm)")
    .option("--concurrency <k>", "verified: scenarios built at once (default 4)")
    .option("--accept-fewer", "verified: write the scenarios built when the server's tools offer fewer than --n distinct ones (as train --scenarios auto does), instead of refusing")
    .option("--no-verify", "verified: skip replaying every reference solution on a fresh server")
    .option("--stateful", "verified: build state-changing tasks on fresh server instances (default: detected from tool names)")
    .option("--no-stateful", "verified: treat the server as stateless")
    .option("--allow-writes", "also call tools that change the server's state (verified: to build tasks; llm: to replay solutions), always on for fixture: servers; best with --template-dir, against a copy of the server's data")
    .option("--value <name=value>", "verified: a value for tools' arguments of that name, for what no tool's result shows (a page to fetch, a repository path, a project key); repeatable", (v: string, prev: string[] = []) => [...prev, v])
    .option("--llm-base-url <url>", "llm: OpenAI-compatible endpoint, e.g. https://api.openai.com/v1 (key from OPENAI_API_KEY)")
    .option("--llm-model <name>", "llm: model name (checked first against the endpoint's GET /models, where it answers)")
    .option("--llm-max-requests <k>", "llm: requests allowed in all, retries included (default 2 × batches + 4)")
    .action(async (flags: GenerateFlags) => {
      const n = intFlag("--n", flags.n, 1);
      const testFraction = numberFlag("--test-fraction", flags.testFraction, 0, 1);
      // a hand-edited or long-generated file is not replaced by a mistyped --out: asked before any tool runs
      // (before the minutes of generating: a folder is never replaced, --force or not)
      if (existsSync(flags.out) && statSync(flags.out).isDirectory()) throw new TrainMcpError("ConfigInvalid", `--out ${flags.out} is a folder: name a file (.jsonl) to write`);
      if (existsSync(flags.out) && !flags.force) throw new TrainMcpError("ConfigInvalid", `--out ${flags.out} already exists: pass --force to replace it, or choose another file`);
      const { target, options } = connectArgs(flags);
      const fixture = /^fixture:(.+)$/.exec(target.trim())?.[1];
      // Ctrl-C quits at once, saying so (the servers end with the process); --out is written in
      // one piece at the end, so before that nothing was
      let written = false;
      const release = quitOnSignal((sig) => generateInterruptText(sig, flags.out, written));
      try {
        const toolbox = await connect(target, options);
        // what the tool list itself says (a name listed twice, annotations that say nothing, tools left out)
        for (const note of toolbox.toolNotes) process.stderr.write(`note: ${note}\n`);
        if (flags.value && flags.generator === "llm") throw new TrainMcpError("ConfigInvalid", "--value is for the verified generator (--generator verified): the llm generator's model picks its own arguments");
        const values = flags.value ? parseGivenValues(flags.value, toolbox.tools) : undefined;
        // --allow-writes on the server's real data: say so before the first write
        const writers = toolbox.tools.filter((t) => !isReadOnlyTool(t)).map((t) => t.name);
        if (!fixture && flags.allowWrites && !options.templateDir && writers.length > 0) process.stderr.write(`${writesWarning(target, writers, "the generator (--allow-writes)")}\n`);
        const linksWarning = flags.allowWrites && options.templateDir && writers.length > 0 ? await templateLinksWarning(options.templateDir) : undefined;
        if (linksWarning) process.stderr.write(`${linksWarning}\n`);
        const bar = progressBar(`scenarios (${flags.generator})`, flags.generator === "verified");
        try {
          let result;
          if (flags.generator === "llm") {
            if (!flags.llmBaseUrl || !flags.llmModel) throw new TrainMcpError("ConfigInvalid", "--generator llm needs --llm-base-url and --llm-model");
            const seed = intFlag("--seed", flags.seed, 0);
            // the model's answers, checked as they come by replaying its solution calls on the
            // server: a contradicted task is replaced by another, not written
            const checker = new LlmTaskChecker(toolbox, { allowWrites: fixture !== undefined || flags.allowWrites === true, timeoutMs: options.timeoutMs });
            const dropped: string[] = [];
            const r = await generateWithLlm(toolbox.tools, {
              baseUrl: flags.llmBaseUrl,
              model: flags.llmModel,
              apiKey: process.env.OPENAI_API_KEY,
              maxRequests: flags.llmMaxRequests ? intFlag("--llm-max-requests", flags.llmMaxRequests, 1) : undefined,
              n,
              seed,
              testFraction,
              server: target,
              idPrefix: flags.idPrefix ?? (fixture ? `${fixture}-llm` : "llm"),
              onProgress: bar.update,
              vet: async (draft, solution) => {
                const c = await checker.check(draft, solution);
                if (c.kind !== "dropped") return c.scenario;
                dropped.push(`"${draft.task.length > 60 ? `${draft.task.slice(0, 60)}…` : draft.task}": ${c.detail}`);
                return undefined;
              },
              // a line of its own, also when a progress bar is drawn on the terminal
              log: (line) => process.stderr.write(`${process.stderr.isTTY ? "\n" : ""}${line}\n`),
            }).catch((e: unknown) => {
              // the requests ran out with too few tasks: say when the server's results were why
              if (checker.report.scenarios.length === 0 && dropped.length > 0)
                throw new TrainMcpError("ScenarioInvalid", `every task the model wrote was contradicted by the server's results (${dropped.length}, e.g. ${dropped[0]}); nothing written to ${flags.out}`, true, { cause: e });
              throw e;
            });
            const confirmed = r.scenarios.filter((x) => x.tags.includes("verified:replay")).length;
            const unreplayed = checker.report.unreplayed.length;
            process.stderr.write(
              `checked on the server: ${confirmed} of ${r.scenarios.length} tasks confirmed by replaying their solution calls (tag verified:replay); ` +
                `${dropped.length} more dropped and replaced (no result states their expected answer${dropped.length ? `: ${dropped[0]}` : ""}); ` +
                `${r.scenarios.length - confirmed} kept unverified${unreplayed ? ` (${unreplayed} with a solution that could not be replayed, e.g. ${checker.report.unreplayed[0].why})` : ""}\n`,
            );
            result = r.scenarios;
          } else {
            // the generator calls the tools for real, and can take minutes: say so before it does
            process.stderr.write(`building ${n} verified scenarios by calling the tools of ${redactTargetCredentials(target)} ...\n`);
            const r = await generateVerified(toolbox, {
              n,
              seed: flags.seed,
              testFraction,
              server: target,
              idPrefix: flags.idPrefix ?? fixture ?? "s",
              concurrency: flags.concurrency ? intFlag("--concurrency", flags.concurrency, 1) : undefined,
              verify: flags.verify,
              acceptFewer: flags.acceptFewer === true,
              fewer: "lower --n, pass --accept-fewer to write the ones built",
              stateful: flags.stateful,
              allowWrites: fixture !== undefined || flags.allowWrites === true,
              writesAdvice: writesAdviceFor(target, options.templateDir),
              isolation: { templateDir: options.templateDir !== undefined, sandbox: options.sandbox !== undefined },
              onProgress: bar.update,
              onNote: (line) => process.stderr.write(`note: ${line}\n`),
              values,
            });
            result = r.scenarios;
          }
          bar.stop();
          writeScenarioFile(flags.out, result);
          written = true;
          const c = countScenarios(result);
          process.stdout.write(`wrote ${result.length} scenarios to ${flags.out} (train ${c.split.train ?? 0}, test ${c.split.test ?? 0})\n`);
          // tools no task calls get no practice: say which
          const used = new Set(result.flatMap((x) => x.tags.filter((t) => t.startsWith("tool:")).map((t) => t.slice(5))));
          const unused = toolbox.tools.map((t) => t.name).filter((name) => !used.has(name));
          if (flags.generator !== "llm" && unused.length > 0) process.stderr.write(`note: no scenario calls ${unused.join(", ")}: write tasks for ${unused.length === 1 ? "it" : "them"} by hand if the model should learn ${unused.length === 1 ? "it" : "them"}\n`);
        } finally {
          bar.stop();
          await toolbox.close();
        }
      } finally {
        release();
      }
    });

  const check = addConnectOptions(
    scenarios
      .command("check")
      .description("validate a scenario file: every bad line with its line number and field (exit 2); --server also replays reference solutions")
      .argument("<file>", "scenario file (JSONL)")
      .option("-s, --server <target>", "replay every reference solution against this server (a fresh instance for each scenario that changes state)")
      .option("--fresh", "replay every scenario on a fresh server instance, also those whose tools only read (for a server whose read-only tools are not)"),
  ).action(async (file: string, flags: Partial<TargetFlags> & { fresh?: boolean }) => {
      let text: string;
      try {
        text = readFileSync(file, "utf8");
      } catch (e) {
        throw new TrainMcpError("IoFailed", `cannot read ${file}: ${(e as Error).message}`);
      }
      const { scenarios: list, problems, lines } = parseScenarioText(text);
      // lines with a problem are listed first; with --server the well-formed ones are still
      // checked against the server, so one run shows every problem there is to fix
      for (const p of problems) process.stderr.write(`${formatProblem(file, p)}\n`);
      const badLines = new Set(problems.map((p) => p.line)).size;
      const fileProblems = `${problems.length} problem${problems.length === 1 ? "" : "s"} in ${badLines} line${badLines === 1 ? "" : "s"}`;
      if (problems.length > 0 && (!flags.server || list.length === 0))
        throw new TrainMcpError("ScenarioInvalid", `${file}: ${fileProblems} (${list.length} well-formed scenario${list.length === 1 ? "" : "s"})`);
      if (list.length === 0) throw new TrainMcpError("ScenarioInvalid", `${file}: no scenarios`);
      const c = countScenarios(list);
      // "well-formed", not "valid": the replay below may still find some failing
      process.stdout.write(`${file}: ${list.length} well-formed scenario${list.length === 1 ? "" : "s"} (train ${c.split.train ?? 0}, test ${c.split.test ?? 0})${problems.length ? `, ${badLines} line${badLines === 1 ? "" : "s"} with problems` : ""}\n`);
      const leak = sameTaskWarning(sameTaskAcrossSplits(list));
      if (leak) process.stderr.write(`${leak}\n`);
      if (!flags.server) {
        if (flags.fresh) throw new TrainMcpError("ConfigInvalid", "--fresh replays on fresh server instances: it needs --server");
        return;
      }
      const { target, options } = connectArgs({ ...flags, server: flags.server });
      const toolbox = await connect(target, options);
      const otherServer = otherServerWarning(list, target, "checked against", toolbox.serverName);
      if (otherServer) process.stderr.write(`${otherServer}\n`);
      const bar = progressBar("replay");
      let failed = 0;
      let unconfirmed = 0;
      let replayed = 0;
      let badAgainstTools = 0;
      try {
        // every tool a scenario names (reference calls, state checks) must be one the server has,
        // with arguments it takes, also in scenarios without a reference solution to replay
        const validator = new ArgumentValidator();
        const refused = new Set<number>(); // indices in list
        list.forEach((s, i) => {
          const found = problemsAgainstTools(s, toolbox.tools, validator, toolbox.leftOutTools);
          if (found.length > 0) {
            badAgainstTools++;
            refused.add(i);
          }
          for (const p of found) process.stderr.write(`\n${formatProblem(file, { line: lines[i], ...p })}\n`);
        });
        const stateful = detectStateful(toolbox.tools);
        for (const [i, s] of list.entries()) {
          if (!s.reference || refused.has(i)) continue; // refused above: replaying says it again
          const mutates = replayMutates(s, toolbox.tools);
          const box: Toolbox = flags.fresh || s.setup !== undefined || (stateful && mutates) ? await toolbox.isolated() : toolbox;
          const where = `${file}:${lines[i]}: ${s.id}`;
          try {
            const r = await replayScenario(box, s);
            replayed++;
            if (!r.pass) {
              failed++;
              // only a server with a tool that changes state (by annotation or name) is likely to
              // carry state between scenarios; a calculator is not told to try --fresh
              const carried = !flags.fresh && !mutates && stateful && /no replayed result reproduces it/.test(r.detail) ? " (or state left by an earlier scenario: try --fresh)" : "";
              process.stderr.write(`\n${where}: ${r.detail}${carried}\n`);
            } else if (r.unconfirmed) {
              unconfirmed++;
              process.stderr.write(`\nnote: ${where}: no replayed result states ${r.unconfirmed.join(", ")}: checked on the derived reference answer only\n`);
            }
          } finally {
            if (box !== toolbox) await box.close();
          }
          bar.update(replayed, c.withReference);
        }
      } finally {
        bar.stop();
        await toolbox.close();
      }
      const counts = { total: list.length + badLines, replayed, failed, unconfirmed, badAgainstTools, badInFile: badLines };
      process.stdout.write(`${checkSummary(counts)}\n`);
      // file problems and tool mismatches are the user's to fix (exit 2); the message counts as the summary does
      if (badAgainstTools > 0 || badLines > 0) throw new TrainMcpError("ScenarioInvalid", `${file}: ${failingLine(counts)}`);
      if (failed > 0) process.exitCode = 1;
    });
  void check;

  scenarios
    .command("show")
    .alias("summarize")
    .description("summarize a scenario file: counts per split, difficulty and tool")
    .argument("<file>", "scenario file (JSONL)")
    .action((file: string) => {
      const list = readScenarioFile(file);
      process.stdout.write(`${file}\n\n${formatCounts(countScenarios(list))}\n`);
    });
}

/** What `scenarios generate` says when a signal stops it. */
export function generateInterruptText(sig: NodeJS.Signals, out: string, written: boolean): string {
  return written ? `interrupted (${sig}): ${out} was already written` : `interrupted (${sig}): nothing written (${out} is written only once every scenario is built)`;
}
