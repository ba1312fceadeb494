/**
 * The execution-verified scenario generator: no LLM, exact answers, deterministic for a seed.
 *
 * 1. Harvest: read-only tools are called with synthesized arguments on a fresh instance, and
 *    every id, name and email in their results is filed in a ValuePool (harvest.ts). A stateful
 *    server whose reads all come back empty is first given a starting state, whose calls become
 *    every task's setup (starting-state.ts), and harvested again.
 * 2. Plan: N slots; a seeded shuffle marks round(N × testFraction) of them "test"; slot i goes
 *    to tool i mod T (tools in seeded order), and to one of that tool's recipes by weight.
 *    A test scenario either uses a held-out phrasing of a question no training scenario asks,
 *    or expects an outcome no training scenario expects (values not seen in training):
 *    split-guard.ts.
 * 3. Build: each slot runs its recipe with its own random stream (derived from seed, slot and
 *    attempt) on a real server: the shared one for read-only recipes, a fresh isolated instance
 *    for recipes that change state. A draft whose checks fail on its own answer, or whose calls
 *    or task repeat an earlier scenario's, is retried with the next attempt's stream.
 * 4. Verify (default on): every reference solution is replayed on a fresh instance and must
 *    reproduce its expected outcome (replay.ts); the ones that do not are rebuilt. A read-only
 *    task is replayed on one more instance started for the purpose (the witness), never on the
 *    one it was built on: an answer that holds only there (state the harvest's calls left, a
 *    process id) would fail `scenarios check` and every rollout on a fresh server. State kept
 *    outside the server's own copy (a real folder or database without --template-dir) is shared
 *    by every instance, and no replay can tell it apart.
 * Slots are built in batches of `concurrency` and committed in slot order, so the output does
 * not depend on timing. Fewer than N distinct scenarios is an error: nothing partial.
 */
import { homedir } from "node:os";
import { TrainMcpError } from "../../errors.js";
import type { Toolbox, ToolResult, ToolSpec } from "../../mcp/types.js";
import { containsHeldSecret, redactedJson } from "../../mcp/command-credentials.js";
import { redactTargetCredentials } from "../../mcp/target.js";
import { checkExpected } from "../check.js";
import { replayScenario } from "../replay.js";
import { ScenarioSchema, type ReferenceCall, type Scenario } from "../schema.js";
import { genericRecipes, isReadOnlyTool, withoutClock } from "./generic.js";
import { givenPool } from "./given-values.js";
import { matchAllArgs, ValuePool } from "./harvest.js";
import { isUseful, reportsFailure, type BuiltDraft, type Recipe, type RecipeContext, type Split } from "./recipe.js";
import { applicableFixtureRecipes } from "./registry.js";
import { processToolsNote, signalsProcesses } from "./process-tools.js";
import { freshInState, makeStartingState } from "./starting-state.js";
import { fileRecipes } from "./files.js";
import { browserNeeds, browserRecipes } from "./browser.js";
import { detectShell, shellAdvice, shellFolderProblem, shellNeeds, shellRecipes } from "./shell.js";
import { runsCode, runsCommands } from "./shell-tool.js";
import { resourceRecipes } from "./resources.js";
import { sqlRecipes } from "./sql.js";
import { Rng } from "./rng.js";
import { SplitGuard } from "./split-guard.js";
import { synthesizeArgs } from "./schema-values.js";
import { sortKeys } from "../sort-keys.js";

export interface VerifiedOptions {
  /** how many scenarios */
  n: number;
  /** how the caller asks for fewer, for the message when too few can be built (default "lower --n") */
  fewer?: string;
  /** where else scenarios can come from, for the message when none can be built here (default:
   *  by hand, or `--generator llm`, a flag of `scenarios generate`) */
  otherSources?: string;
  /** aborted (Ctrl-C): generation stops between calls with an "Interrupted" error */
  signal?: AbortSignal;
  /** a read-only call slower than this leaves its tool out (default 10 000 ms) */
  slowToolMs?: number;
  /** default 1 */
  seed?: string | number;
  /** share of scenarios in the held-out "test" split; default 0.25 */
  testFraction?: number;
  /** share of test scenarios phrased with templates never used in training; default 0.4 */
  heldOutTemplateRate?: number;
  /** build mutating recipes on fresh instances; default: detected from the tools */
  stateful?: boolean;
  /** written to each scenario's `server` field */
  server?: string;
  /** id prefix; default "s" */
  idPrefix?: string;
  /** slots built at once; default 4 */
  concurrency?: number;
  /** replay every reference solution on a fresh instance; default true */
  verify?: boolean;
  /** use the bundled fixtures' natural phrasings where their tools are present; default true */
  fixtureRecipes?: boolean;
  /** fewer than `n` (but some) is a note, not an error: extra training tasks, where each one helps */
  acceptFewer?: boolean;
  /** attempts per slot before it is given to another recipe; default 10 */
  maxAttempts?: number;
  /** call tools that change the server's state (fresh instances do not help when that state
   *  lives in a file or database of the user's); default true, the CLI's default for a server
   *  that is not a bundled fixture is false */
  allowWrites?: boolean;
  /** where the note on the tools left out says --allow-writes is best used (default: "best against a copy of the server's data (--template-dir)") */
  writesAdvice?: string;
  /** values the user gives for arguments, by argument name (`--value url=http://127.0.0.1:8080/`):
   *  offered like the values the server's own results show, for what no result reveals (a page
   *  to fetch, a repository path, a project key) */
  values?: Readonly<Record<string, readonly string[]>>;
  /** how each server instance is kept apart (--template-dir, --sandbox), for the note a shell
   *  server gets on what it lacks (shell.ts); undefined: said as if neither were given */
  isolation?: { templateDir: boolean; sandbox: boolean };
  /** called after each batch of attempts: scenarios built so far, asked for, attempts made (a
   *  slow or unhelpful server shows as attempts without scenarios) */
  onProgress?: (done: number, total: number, tried: number) => void;
  /** each of the result's `notes` as soon as it is known (before the calls it concerns) */
  onNote?: (note: string) => void;
}

export interface VerifiedResult {
  scenarios: Scenario[];
  /** scenarios per recipe id, and failed attempts per recipe id */
  perRecipe: Record<string, number>;
  /** what a user should know: tools left out because they change state or answer differently
   *  each time */
  notes: string[];
  failedAttempts: Record<string, number>;
}

/** Where the note on left-out writers says --allow-writes is best used: --template-dir already
 *  gives each instance a copy; an HTTP server's data is its own to copy. */
export function writesAdviceFor(target: string, templateDir: string | undefined): string | undefined {
  if (templateDir) return "each server instance on its own copy of the data (--template-dir, as given)";
  if (/^https?:\/\//i.test(target.trim())) return "best against a server that runs on a copy of its data (--template-dir copies a folder for a server this command starts)";
  return undefined;
}

/** A server is treated as stateful when some tool's name says it changes things. */
export function detectStateful(tools: readonly ToolSpec[]): boolean {
  return tools.some((t) => !isReadOnlyTool(t));
}

export async function generateVerified(toolbox: Toolbox, options: VerifiedOptions): Promise<VerifiedResult> {
  const n = options.n;
  if (!Number.isInteger(n) || n < 1) throw new TrainMcpError("ConfigInvalid", `--n must be a positive integer, got ${n}`);
  const testFraction = options.testFraction ?? 0.25;
  if (!(testFraction >= 0 && testFraction <= 1)) throw new TrainMcpError("ConfigInvalid", `--test-fraction must be within 0..1, got ${testFraction}`);
  const seed = String(options.seed ?? 1);
  const notes: string[] = [];
  const note = (line: string) => {
    notes.push(line);
    options.onNote?.(line);
  };
  const writers = toolbox.tools.filter((t) => !isReadOnlyTool(t)).map((t) => t.name);
  // a tool that signals any process of the machine by its id is called only inside a sandbox
  // (whatever its annotations say: a kill tool marked read-only is called with the pids a listing shows)
  const signalling = options.isolation?.sandbox ? [] : toolbox.tools.filter(signalsProcesses);
  const usable = toolbox.tools.filter((t) => (options.allowWrites !== false || isReadOnlyTool(t)) && !signalling.includes(t));
  if (signalling.some((t) => options.allowWrites !== false || isReadOnlyTool(t))) note(processToolsNote(signalling.map((t) => t.name)));
  if (options.allowWrites === false && writers.length > 0)
    note(
      `not calling ${writers.join(", ")}: ${writers.length === 1 ? "it changes" : "they change"} the server's state (by ${writers.length === 1 ? "its" : "their"} annotations, name, operations or description, or by running what it is given), and a fresh server process does not undo changes kept in files or databases; ` +
        `--allow-writes calls ${writers.length === 1 ? "it" : "them"}, ${options.writesAdvice ?? "best against a copy of the server's data (--template-dir)"}`,
    );
  const stateful = options.allowWrites === false ? false : (options.stateful ?? detectStateful(toolbox.tools));
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const maxAttempts = options.maxAttempts ?? 10;
  const tools = new Map(usable.map((t) => [t.name, t]));
  const otherSources = options.otherSources ?? OTHER_SOURCES;
  // what the server answered when a call failed: when nothing can be built, its own words say why
  const calls: CallTally = { made: 0, failed: 0, errors: new Map<string, number>(), lostInARow: 0, passedUntouched: 0, outputProblems: new Map() };

  // A pristine instance for read-only work on a stateful server: it never sees a mutating call.
  let pristine = stateful ? await toolbox.isolated() : toolbox;
  // every task's setup calls: none, unless the server starts empty (starting-state.ts)
  let setup: ReferenceCall[] = [];
  // a fresh instance as each task starts: in the starting state its setup calls make
  const fresh = () => (setup.length > 0 ? freshInState(toolbox, setup) : toolbox.isolated());
  // The witness: read-only tasks are replayed there; started at the first replay, one per run.
  let witness: Promise<Toolbox> | undefined;
  const witnessBox = () =>
    (witness ??= fresh().catch((e: unknown) => {
      note(`replaying read-only tasks on the instance they were built on: a second one would not start (${(e as Error).message})`);
      return pristine;
    }));
  try {
    const browserProblem = browserNeeds(toolbox.tools, usable, givenPool(options.values));
    if (browserProblem) throw new TrainMcpError("ConfigInvalid", `${browserProblem}; ${otherSources}`);
    let recipes = selectRecipes(usable, options.fixtureRecipes ?? true, toolbox.serverName);
    // a shell tool is a writer by its shape (shell-tool.ts): without --allow-writes, say what it
    // would give, and refuse at once where nothing else would (a harvest has nothing to call)
    const shellProblem = shellNeeds(toolbox.tools, usable);
    if (shellProblem && recipes.length === 0) throw new TrainMcpError("ConfigInvalid", `${shellProblem}; ${otherSources}`);
    if (shellProblem) note(shellProblem);
    const shell = recipes.some((r) => r.id.startsWith("shell.")) ? detectShell(usable) : undefined;
    const advice = shell && shellAdvice(shell, options.isolation);
    if (advice) note(advice);
    const emptyFolder = shell && (await shellFolderProblem(pristine, shell));
    if (emptyFolder && recipes.every((r) => r.id.startsWith("shell."))) throw new TrainMcpError("ConfigInvalid", `${emptyFolder}; ${otherSources}`);
    if (emptyFolder) {
      recipes = recipes.filter((r) => !r.id.startsWith("shell."));
      note(emptyFolder);
    }
    // Only generic recipes draw on harvested values; fixture recipes look things up themselves.
    // The SQL recipes' tool gets their SELECTs only: a made-up query string only fails.
    const takesSql = new Set(recipes.filter((r) => r.id.startsWith("generic.sql.")).map((r) => r.primary ?? r.tools[0]));
    const harvestOn = (box: Toolbox) => harvest(box, usable.filter((t) => !takesSql.has(t.name)), seed, options.signal, options.slowToolMs ?? SLOW_TOOL_MS, givenPool(options.values), calls.outputProblems);
    let harvested = recipes.some((r) => r.id.startsWith("generic."))
      ? await harvestOn(pristine)
      : { pool: givenPool(options.values), unstable: new Set<string>(), slow: new Map<string, number>(), useful: 0 };
    // an empty server (every read answered with nothing): tasks start from a few entries made first
    const state = stateful && harvested.useful === 0 && recipes.some((r) => r.id.startsWith("generic.")) ? await makeStartingState(toolbox, usable.filter((t) => !runsCommands(t) && !runsCode(t)), harvested.pool, seed) : undefined;
    if (state) {
      await pristine.close();
      pristine = state.box;
      setup = state.setup;
      harvested = await harvestOn(pristine);
      note(
        `the server held nothing to ask about, so every task starts from ${setup.length} setup call${setup.length === 1 ? "" : "s"} (${[...new Set(setup.map((c) => c.name))].join(", ")}), ` +
          `which each rollout's fresh server instance runs before the model's first turn`,
      );
    }
    const pool = harvested.pool;
    if (harvested.slow.size > 0) {
      recipes = recipes.filter((r) => !r.tools.some((t) => harvested.slow.has(t)));
      note(`not using ${[...harvested.slow].map(([t, ms]) => `${t} (one call took ${(ms / 1000).toFixed(1)} s)`).join(", ")}: a tool this slow would stall every rollout that calls it`);
    }
    if (harvested.unstable.size > 0) {
      // a task whose answer changes from call to call cannot be verified (dice, clocks, live data)
      recipes = recipes.filter((r) => !r.tools.some((t) => harvested.unstable.has(t)));
      note(`not using ${[...harvested.unstable].join(", ")}: the same call answered differently twice, so no answer can be checked`);
    }
    if (recipes.length === 0)
      throw new TrainMcpError(
        "ConfigInvalid",
        `the server has no tools to build verified scenarios from${notes.length ? ` (${notes.join("; ")})` : ""}; ${otherSources}`,
      );
    const byTool = groupByPrimary(recipes);
    const toolOrder = new Rng(`${seed}/tools`).shuffle([...byTool.keys()].sort());

    const splitRng = new Rng(`${seed}/split`);
    const testSlots = new Set(splitRng.sample([...Array(n).keys()], Math.round(n * testFraction)));

    const committed: Array<{ slot: number; built: BuiltDraft; split: Split }> = [];
    const seen = new Set<string>();
    // a generic tool's tasks that all come to one answer whatever their arguments (git_changelog_analyze's
    // commit count, whatever review types it is given) teach that answer: a few of each, no more
    const sameAnswer = new Map<string, number>();
    const sameAnswerCap = Math.max(SAME_ANSWER_MIN, Math.ceil(n * SAME_ANSWER_SHARE));
    const splitGuard = new SplitGuard();
    const failStreak = new Map<string, number>();
    const exhausted = new Set<string>();
    const perRecipe: Record<string, number> = {};
    const failedAttempts: Record<string, number> = {};
    // Pending slots with their next attempt number; slot numbers past n are replacements, which
    // keep the split of the slot they replace (so the split sizes are exact).
    let pending: Array<{ slot: number; attempt: number; split: Split }> = [...Array(n).keys()].map((slot) => ({ slot, attempt: 0, split: testSlots.has(slot) ? "test" : "train" }));
    let nextSpare = n;
    const maxSlots = n * 3 + 20;
    let credentialSeen = false;
    const changes = new Set(recipes.filter((r) => r.mutates).map((r) => r.id));
    let sharedData = false;
    let tried = 0;

    // every recipe failing again and again: more attempts would only take time
    while (pending.length > 0 && committed.length < n && exhausted.size < recipes.length) {
      throwIfInterrupted(options.signal);
      const batch = pending.slice(0, concurrency);
      pending = pending.slice(concurrency);
      const results = await Promise.all(
        batch.map(async ({ slot, attempt, split }) => {
          const rng = Rng.derive(seed, "slot", slot, "attempt", attempt);
          const recipe = chooseRecipe(rng, byTool, toolOrder, slot, attempt, maxAttempts, exhausted);
          const built = await buildOne(recipe, { rng, split, pool, tools, toolbox, fresh, pristine, stateful, heldOutRate: options.heldOutTemplateRate ?? 0.4, calls });
          // a task whose answer is a credential the server printed (a `get-env` tool): never written to a file
          if (built && (built.sawSecret || redactedJson(built, toolbox.secrets ?? []).changed)) {
            if (!credentialSeen) note("left out tasks whose answer or calls hold a credential (an API key or token the server printed, or a secret it was given): a scenario file is no place for one");
            credentialSeen = true;
            return { slot, attempt, split, recipe, built: undefined };
          }
          if (built && (options.verify ?? true)) {
            const replay = await replayOnFresh(fresh, witnessBox, stateful && (recipe.mutates ?? false), built);
            if (!replay) return { slot, attempt, split, recipe, built: undefined };
          }
          return { slot, attempt, split, recipe, built };
        }),
      );
      if (calls.lostInARow >= LOST_IN_A_ROW && committed.length === 0) {
        // a server that exits on every call (a refused database login) restarts for each one
        throw new TrainMcpError("ServerUnreachable", `the server lost the connection on ${calls.lostInARow} calls in a row and answered none${errorsSeen(calls, toolbox.secrets ?? [])}`);
      }
      for (const r of results) {
        const key = r.built ? dedupeKey(r.built) : undefined;
        const candidate = r.built && key ? { split: r.split, heldOutTemplate: r.built.heldOutTemplate, expected: key.expected, calls: r.built.calls } : undefined;
        const answerKey = r.built && key && r.recipe.id.startsWith("generic.") ? `${r.recipe.id}\u0000${key.expected}` : undefined;
        const answerTaken = answerKey !== undefined && (sameAnswer.get(answerKey) ?? 0) >= sameAnswerCap;
        if (r.built && key && candidate && !seen.has(key.calls) && !seen.has(key.task) && !answerTaken && !splitGuard.clashes(candidate) && committed.length < n) {
          seen.add(key.calls);
          seen.add(key.task);
          if (answerKey) sameAnswer.set(answerKey, (sameAnswer.get(answerKey) ?? 0) + 1);
          splitGuard.add(candidate);
          failStreak.set(r.recipe.id, 0);
          committed.push({ slot: r.slot, built: r.built, split: r.split });
          perRecipe[r.recipe.id] = (perRecipe[r.recipe.id] ?? 0) + 1;
        } else {
          failedAttempts[r.recipe.id] = (failedAttempts[r.recipe.id] ?? 0) + 1;
          const streak = (failStreak.get(r.recipe.id) ?? 0) + 1;
          failStreak.set(r.recipe.id, streak);
          if (streak >= EXHAUSTED_AFTER) exhausted.add(r.recipe.id);
          if (r.attempt + 1 < maxAttempts * 2) pending.push({ slot: r.slot, attempt: r.attempt + 1, split: r.split });
          else if (nextSpare < maxSlots) pending.push({ slot: nextSpare++, attempt: 0, split: r.split });
        }
      }
      tried += results.length;
      options.onProgress?.(committed.length, n, tried);
      if (!sharedData && calls.passedUntouched >= SHARED_AFTER && !committed.some((c) => changes.has(c.built.recipe))) {
        // every change showed on the untouched instance too: one database behind every server
        // process, which each further change would alter for everyone
        sharedData = true;
        for (const id of changes) exhausted.add(id);
      }
    }
    if (sharedData) {
      // the changes made so far may have altered what earlier read-only tasks were built on
      let stale = 0;
      for (let i = committed.length - 1; i >= 0; i--) {
        if (await replayOnFresh(fresh, witnessBox, false, committed[i].built)) continue;
        committed.splice(i, 1);
        stale++;
      }
      note(
        `no change task built: the checks of ${calls.passedUntouched} changes already passed on a server instance nothing was changed on, so the instances share their data (a database or folder outside the server process) and each change altered it for everyone` +
          `${stale > 0 ? `; ${stale} read-only task${stale === 1 ? "" : "s"} built before that no longer replayed and ${stale === 1 ? "was" : "were"} left out` : ""}; run the server on a throwaway copy of its data (--template-dir, or a database of its own)`,
      );
    } else if (calls.passedUntouched > 0) note(`left out ${calls.passedUntouched} change task${calls.passedUntouched === 1 ? "" : "s"} whose checks already passed on a server instance nothing was changed on: a model doing nothing would pass them`);
    if (committed.length < n) {
      // a server whose writes were left out may have had nothing to read until they ran
      const leftOut = options.allowWrites === false && writers.length > 0 ? `--allow-writes would also call ${writers.join(", ")}, or ` : "";
      const tried = Object.entries(failedAttempts)
        .sort((a, b) => b[1] - a[1])
        .map(([id, k]) => `${id} ${perRecipe[id] ?? 0} built / ${k} failed`)
        .join(", ");
      if (options.acceptFewer && committed.length > 0) note(`built ${committed.length} distinct verified scenarios of the ${n} asked for: the server's tools offer no more (${tried})`);
      else throw new TrainMcpError(
        "ConfigInvalid",
        committed.length === 0
          ? `could not build any verified scenario: no call to the server's tools gave a result to check a task against (${tried})${errorsSeen(calls, toolbox.secrets ?? [], options.isolation?.sandbox)}; ${leftOut}${otherSources}`
          : `could only build ${committed.length} distinct verified scenarios of the ${n} asked for (the server's tools offer too few distinct tasks: ${tried}); ` +
            `${options.fewer ?? "lower --n"}, or ${otherSources}`,
      );
    }
    committed.sort((a, b) => a.slot - b.slot);
    // fewer than asked: test slots fail more often (the split guard), or training ones do (a
    // recipe ran out), so the held-out share may be off testFraction: scenarios move over until
    // it is met
    if (committed.length < n) balanceHeldOut(committed, Math.round(committed.length * testFraction), new Rng(`${seed}/top-up`));
    const prefix = options.idPrefix ?? "s";
    const width = Math.max(4, String(n).length);
    const scenarios = committed.map((c, i) =>
      ScenarioSchema.parse({
        id: `${prefix}-${String(i + 1).padStart(width, "0")}`,
        task: c.built.task,
        difficulty: c.built.difficulty,
        split: c.split,
        tags: [
          `template:${c.built.recipe}`,
          ...[...new Set(c.built.calls.map((call) => `tool:${call.name}`))],
          ...(c.split === "test" ? [c.built.heldOutTemplate ? "heldout:template" : "heldout:values"] : []),
          ...(c.built.calls.length > 1 ? ["multi-step"] : []),
          ...(c.built.tags ?? []),
        ],
        // scenario files get shared; a URL's credentials stay on the command line (targetKey matches either)
        ...(options.server ? { server: redactTargetCredentials(options.server) } : {}),
        ...(setup.length > 0 ? { setup } : {}),
        expected: c.built.expected,
        reference: { calls: c.built.calls, answer: c.built.answer },
      }),
    );
    const constant = constantAnswerNote(scenarios);
    if (constant) note(constant);
    const lopsided = lopsidedNote(perRecipe, recipes, exhausted, committed.length, options.fewer);
    if (lopsided) note(lopsided);
    // a server's author wants to know; the tasks stand, built on what the model will see
    for (const [name, p] of calls.outputProblems)
      note(`${p.first.startsWith(`${name}: `) ? p.first : `${name}: ${p.first}`} (${p.n} result${p.n === 1 ? "" : "s"} while generating; rollouts show the model what the server sent)`);
    return { scenarios, perRecipe, failedAttempts, notes };
  } finally {
    if (pristine !== toolbox) await pristine.close();
    const w = await witness;
    if (w && w !== pristine) await w.close();
  }
}

/** A note when most tasks expect one answer (a server whose lookups all say "person"): a model
 *  that always gives it scores well without using the tools. */
export function constantAnswerNote(scenarios: readonly Scenario[]): string | undefined {
  const counts = new Map<string, number>();
  for (const s of scenarios) {
    // a change the server must show (a state check) is no answer a model can give without the tools
    if (!s.expected?.length || s.expected.some((e) => e.kind === "state")) continue;
    const key = s.expected.map((e) => ("value" in e ? JSON.stringify(e.value) : e.kind)).join(" + ");
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const ranked = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const [answer, count] = ranked[0] ?? ["", 0];
  const advice = "the server's tools offer few distinct answers here: add hand-written scenarios, or train on more servers";
  if (count >= 4 && count > scenarios.length / 2)
    return `${count} of ${scenarios.length} tasks expect the same answer (${answer}): a model that always gives it scores ${Math.round((100 * count) / scenarios.length)}% without the tools; ${advice}`;
  // a few answers shared by nearly all (a git repository's "main", its commit count, "HEAD@{0}")
  const top = ranked.slice(0, 3);
  const covered = top.reduce((sum, [, k]) => sum + k, 0);
  if (top.length === 3 && top[2][1] >= 2 && scenarios.length >= 8 && covered >= 0.75 * scenarios.length)
    return (
      `${covered} of ${scenarios.length} tasks expect one of three answers (${top.map(([a]) => a).join(", ")}): a model that always gives ${answer} scores ${Math.round((100 * count) / scenarios.length)}% without the tools, ` +
      `and one that guesses among the three more; ${advice}`
    );
  return undefined;
}

/**
 * Slots are shared out over the tools, but a tool whose distinct tasks ran out (a listing with no
 * arguments, a lookup of four ids) hands its slots to the others: on a small server one tool may
 * end up with most of the set, and a model trained on it learns mostly that tool.
 */
export function lopsidedNote(perRecipe: Readonly<Record<string, number>>, recipes: readonly Recipe[], exhausted: ReadonlySet<string>, total: number, fewer = "lower --n"): string | undefined {
  const byTool = new Map<string, { built: number; spent: boolean }>();
  for (const r of recipes) {
    const tool = r.primary ?? r.tools[0];
    const t = byTool.get(tool) ?? { built: 0, spent: true };
    t.built += perRecipe[r.id] ?? 0;
    t.spent &&= exhausted.has(r.id);
    byTool.set(tool, t);
  }
  const ranked = [...byTool].sort((a, b) => b[1].built - a[1].built);
  const [top, others] = [ranked[0], ranked.slice(1)];
  if (!top || others.length === 0 || total < 10 || top[1].built <= total / 2) return undefined;
  const spent = others.filter(([, t]) => t.spent);
  if (spent.length === 0) return undefined;
  return (
    `${top[1].built} of ${total} scenarios call ${top[0]}: ${spent.map(([tool, t]) => `${tool} (${t.built})`).join(", ")} gave every distinct task ${spent.length === 1 ? "it" : "they"} could, ` +
    `so a model trained on this set learns mostly one tool: ${fewer}, or add hand-written scenarios for the others`
  );
}

/** consecutive failed attempts after which a recipe is set aside for the rest of the run */
const EXHAUSTED_AFTER = 15;

/** At most this many of a generic recipe's tasks expect one answer (or this share of the set, when larger). */
const SAME_ANSWER_MIN = 3;
const SAME_ANSWER_SHARE = 0.05;

/**
 * Two scenarios are the same when their normalized task texts are equal, or when they make the
 * same calls to reach the same expected outcome (two phrasings of one question).
 */
function dedupeKey(b: BuiltDraft): { calls: string; task: string; expected: string } {
  return {
    expected: JSON.stringify(sortKeys(b.expected)),
    calls: `calls:${JSON.stringify([b.calls.map((c) => [c.name, sortKeys(c.arguments)]), sortKeys(b.expected)])}`,
    task: `task:${b.task.toLowerCase().replace(/[^a-z0-9]+/g, " ").trim()}`,
  };
}


function selectRecipes(tools: readonly ToolSpec[], useFixtures: boolean, serverName: string | undefined): Recipe[] {
  const specific = useFixtures ? applicableFixtureRecipes(tools, serverName) : [];
  // a browser's other tools act on the page open, and a fresh instance has none: single calls
  // with made-up arguments only fail, read about:blank or wait (browser.ts)
  const browser = browserRecipes(tools);
  if (browser.length > 0) return browser;
  const covered = new Set(specific.map((r) => r.primary ?? r.tools[0]));
  // a tool that runs command lines gets the read-only commands shell.ts composes, and no other
  // recipe's: a synthesized string run as a command is anything at all (shell-tool.ts); nor does
  // a tool that runs code (a made-up snippet is no task, and on the host it runs for real)
  const others = tools.filter((t) => !runsCommands(t) && !runsCode(t));
  const shaped = [...shellRecipes(tools), ...resourceRecipes(others), ...fileRecipes(others), ...sqlRecipes(others)];
  // a tool that takes a path or a query gets tasks from the recipes that know how to fill them
  // in: a single call with synthesized arguments (a made-up path, a made-up SQL) only fails
  const knownShape = new Set(shaped.map((r) => r.primary ?? r.tools[0]));
  const generic = genericRecipes(others).filter((r) => !(r.id.startsWith("generic.single.") && knownShape.has(r.tools[0])));
  return [...specific, ...[...generic, ...shaped].filter((r) => !covered.has(r.primary ?? r.tools[0]))];
}

function groupByPrimary(recipes: Recipe[]): Map<string, Recipe[]> {
  const m = new Map<string, Recipe[]>();
  for (const r of recipes) {
    const k = r.primary ?? r.tools[0];
    m.set(k, [...(m.get(k) ?? []), r]);
  }
  return m;
}

/**
 * Balanced over tools: slot i belongs to tool i mod T. A recipe that keeps failing (its distinct
 * tasks are used up: there are only so many seeded orders) is set aside, and after
 * `maxAttempts` a slot may go to any recipe that still works.
 */
/** Moves scenarios between the splits until `want` are held out, in a seeded order: training ones
 *  to the test split (as held-out values) whose expected outcome no remaining training scenario
 *  expects, or held-out values to training whose outcome no other held-out scenario expects. */
export function balanceHeldOut(committed: Array<{ built: Pick<BuiltDraft, "expected" | "heldOutTemplate">; split: Split }>, want: number, rng: Rng): void {
  let have = committed.filter((c) => c.split === "test").length;
  const expectedOf = (c: { built: Pick<BuiltDraft, "expected"> }) => JSON.stringify(sortKeys(c.built.expected));
  // too many held out (training slots failed more often): held-out values phrased as training
  // tasks are, whose outcome no other held-out task shares, move to training
  for (const c of have > want ? rng.shuffle(committed.filter((x) => x.split === "test" && !x.built.heldOutTemplate)) : []) {
    if (have <= want) break;
    if (committed.some((x) => x.split === "test" && x !== c && expectedOf(x) === expectedOf(c))) continue;
    c.split = "train";
    have--;
  }
  for (const c of rng.shuffle(committed.filter((x) => x.split === "train"))) {
    if (have >= want) return;
    const trainLeft = committed.filter((x) => x.split === "train" && x !== c);
    // a training split left empty would leave nothing to learn from
    if (trainLeft.length === 0 || trainLeft.some((x) => expectedOf(x) === expectedOf(c))) continue;
    c.split = "test";
    c.built = { ...c.built, heldOutTemplate: false };
    have++;
  }
}

function chooseRecipe(rng: Rng, byTool: Map<string, Recipe[]>, toolOrder: string[], slot: number, attempt: number, maxAttempts: number, exhausted: ReadonlySet<string>): Recipe {
  const all = [...byTool.values()].flat();
  const live = all.filter((r) => !exhausted.has(r.id));
  const own = (byTool.get(toolOrder[slot % toolOrder.length]) ?? []).filter((r) => !exhausted.has(r.id));
  const list = attempt < maxAttempts && own.length > 0 ? own : live.length > 0 ? live : all;
  return list[rng.weighted(list.map((r) => r.weight ?? 1))];
}

interface BuildEnv {
  rng: Rng;
  split: Split;
  pool: ValuePool;
  tools: ReadonlyMap<string, ToolSpec>;
  toolbox: Toolbox;
  /** a fresh instance in the tasks' starting state */
  fresh: () => Promise<Toolbox>;
  pristine: Toolbox;
  stateful: boolean;
  heldOutRate: number;
  /** every call made while building, those that failed, their errors' first lines, and how many
   *  calls in a row lost the connection to the server */
  calls: CallTally;
}

async function buildOne(recipe: Recipe, env: BuildEnv): Promise<BuiltDraft | undefined> {
  const own = env.stateful && (recipe.mutates ?? false) ? await env.fresh() : undefined;
  const box = own ?? env.pristine;
  const calls: ReferenceCall[] = [];
  let heldOutTemplate = false;
  let sawSecret = false;
  const secrets = env.toolbox.secrets ?? [];
  // A per-scenario copy of the pool, so values this scenario's own calls return are usable
  // (chains) without leaking into other slots (which would make output depend on timing).
  const pool = env.pool.clone();
  const failed = (name: string, text: string) => {
    env.calls.failed++;
    // the whole text is checked for a credential: a cut line may hold only a piece of one
    const line = containsHeldSecret(text, secrets) ? `${name}: (withheld: it holds a credential the server was given)` : `${name}: ${errorLineOf(text) || "(no text)"}`;
    env.calls.errors.set(line, (env.calls.errors.get(line) ?? 0) + 1);
  };
  /** whether the call lost the connection, counted among those in a row */
  const tallyOutput = (name: string, r: ToolResult) => tallyOutputProblem(env.calls.outputProblems, name, r);
  const countLost = (r: ToolResult): boolean => {
    const lost = r.fault === "connection";
    env.calls.lostInARow = lost ? env.calls.lostInARow + 1 : 0;
    return lost;
  };
  const ctx: RecipeContext = {
    rng: env.rng,
    split: env.split,
    pool,
    tools: env.tools,
    async call(name, args) {
      calls.push({ name, arguments: args });
      const r = await box.call(name, args);
      env.calls.made++;
      countLost(r);
      tallyOutput(name, r);
      if (r.isError || reportsFailure(r)) failed(name, r.text);
      if (containsHeldSecret(r.text, secrets)) sawSecret = true;
      pool.harvest(name, r, args);
      return r;
    },
    async probe(name, args) {
      const r = await box.call(name, args);
      tallyOutput(name, r);
      // a probe's error answer may be expected (a dialect test); a lost connection never is, and
      // the server's last words say why (a refused database login)
      if (countLost(r)) {
        env.calls.made++;
        failed(name, r.text);
      }
      return r;
    },
    phrase(train, test, vars = {}) {
      let templates = train;
      if (env.split === "test" && test.length > 0 && env.rng.bool(env.heldOutRate)) {
        templates = test;
        heldOutTemplate = true;
      }
      return fill(env.rng.pick(templates), vars);
    },
  };
  try {
    const draft = await recipe.build(ctx);
    if (!draft || calls.length === 0) return undefined;
    // The draft must satisfy its own checks: answer checks on the answer, state checks here.
    const check = await checkExpected(draft.expected, draft.answer, box);
    if (!check.pass) return undefined;
    // A change's checks must fail where nothing was changed, or doing nothing passes: on the
    // untouched instance they do, unless the instances share their data (one database behind
    // every server process), in which case the change was made there too.
    const stateChecks = draft.expected.filter((e) => e.kind === "state");
    if (own && stateChecks.length > 0 && (await checkExpected(stateChecks, "", env.pristine)).pass) {
      env.calls.passedUntouched++;
      return undefined;
    }
    return { ...draft, calls, recipe: recipe.id, heldOutTemplate, ...(sawSecret ? { sawSecret } : {}) };
  } catch {
    return undefined; // a recipe's bad luck (unexpected result shape) is a failed attempt
  } finally {
    await own?.close();
  }
}

async function replayOnFresh(freshBox: () => Promise<Toolbox>, witness: () => Promise<Toolbox>, fresh: boolean, built: BuiltDraft): Promise<boolean> {
  const box = fresh ? await freshBox() : await witness();
  try {
    const r = await replayScenario(box, { expected: built.expected, reference: { calls: built.calls, answer: built.answer } });
    // a verified task's answer is one the server stated
    return r.pass && !r.unconfirmed;
  } finally {
    if (fresh) await box.close();
  }
}

/** The line of an error's text that says what went wrong: not a markdown heading over it
 *  (@playwright/mcp's "### Error\nError: No open pages available…"). */
export function errorLineOf(text: string): string {
  // a lost connection: why the server went (its exit and last stderr words) says more than "Connection closed"
  const lost = /^connection to the server lost during [^:]*: [^\n]*? \((server [^\n]*)\); the next call reconnects$/.exec(text.trim());
  if (lost) return `connection lost: ${lost[1]}`.replace(/\s+/g, " ").slice(0, 200);
  const lines = text.split("\n").map((l) => l.trim()).filter(Boolean);
  const said = lines.find((l) => !/^#{1,6}(\s|$)/.test(l)) ?? lines[0] ?? "";
  return said.replace(/^#{1,6}\s*/, "").replace(/\s+/g, " ").slice(0, 160);
}

/** Counts a result that broke its tool's outputSchema, keeping the first problem's words. */
function tallyOutputProblem(tally: CallTally["outputProblems"], name: string, r: ToolResult): void {
  if (!r.outputProblem) return;
  const seen = tally.get(name);
  tally.set(name, { n: (seen?.n ?? 0) + 1, first: seen?.first ?? r.outputProblem });
}

interface CallTally {
  made: number;
  failed: number;
  errors: Map<string, number>;
  lostInARow: number;
  /** changes whose checks passed on an instance nothing was changed on, left out */
  passedUntouched: number;
  /** per tool, results that broke its own outputSchema: how many, and the first problem */
  outputProblems: Map<string, { n: number; first: string }>;
}

/** Changes whose checks pass where nothing was changed, with none kept, before the instances are taken to share their data. */
const SHARED_AFTER = 3;

/** Calls in a row that lost the connection, with nothing built yet, before generation gives up. */
const LOST_IN_A_ROW = 12;

/** "; 15 of 15 calls answered with an error, most often git_log: No session working directory set…":
 *  the server's own words on why nothing could be built (a credential in them is held back). */
function errorsSeen(calls: CallTally, secrets: readonly string[], sandboxed = false): string {
  if (calls.failed === 0) return "";
  const [line] = [...calls.errors].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  const quoted = containsHeldSecret(line, secrets) ? "(withheld: it holds a credential the server was given)" : JSON.stringify(line);
  // @playwright/mcp writes into ~/.cache/ms-playwright, which the sandbox's home holds read-only
  const home = homedir();
  const readOnly =
    !sandboxed || !/EROFS|read-only file system/i.test(line)
      ? ""
      : line.includes(`${home}/`)
        ? ` (in the --sandbox only the working copy, /tmp and new files in the home take writes: a server that writes into a folder its home already holds needs a home of its own, --env 'HOME=\${cwd}')`
        : " (in the --sandbox only the working copy and /tmp take writes: give the server its data folder with --template-dir)";
  return `; ${calls.failed} of ${calls.made} calls answered with an error, most often ${quoted}${readOnly}`;
}

/** `{name}` placeholders from vars; a missing one is a bug in a recipe, so it throws. */
export function fill(template: string, vars: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (_, k: string) => {
    if (!(k in vars)) throw new Error(`template placeholder {${k}} has no value`);
    return String(vars[k]);
  });
}

/**
 * Calls read-only tools with synthesized arguments on a fresh instance, filing every value. The
 * first call of each tool that answers is made twice more: a tool that answers differently is
 * `unstable` (random, time or live data) and no task can be verified against it.
 */
/** Where scenarios come from when the tools cannot give verified ones. */
const OTHER_SOURCES = "write scenarios by hand (scenarios/README.md) or with an LLM (--generator llm)";

function throwIfInterrupted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new TrainMcpError("Interrupted", "interrupted while generating scenarios: nothing was written", false);
}

/** A read-only call slower than this leaves its tool out of the generated tasks. */
const SLOW_TOOL_MS = 10_000;

async function harvest(
  box: Toolbox,
  tools: readonly ToolSpec[],
  seed: string,
  signal: AbortSignal | undefined,
  slowMs: number,
  pool: ValuePool,
  outputProblems: CallTally["outputProblems"],
): Promise<{ pool: ValuePool; unstable: Set<string>; slow: Map<string, number>; useful: number }> {
  const slow = new Map<string, number>();
  const called = new Set<string>();
  const unstable = new Set<string>();
  const compared = new Set<string>();
  let useful = 0; // results that held something (not an error, not an empty list)
  const readOnly = [...tools].filter((t) => isReadOnlyTool(t)).sort((a, b) => a.name.localeCompare(b.name));
  // Three rounds: later ones fill arguments with values earlier ones found (ids from a list).
  for (let round = 0; round < 3; round++) {
    for (const tool of readOnly) {
      const rng = Rng.derive(seed, "harvest", round, tool.name);
      const tries: Array<Record<string, unknown>> = [];
      // a search for nothing in particular lists what there is, where no tool lists it
      if (round === 0) tries.push({}, ...matchAllArgs(tool));
      for (let i = 0; i < 6; i++) {
        const args = synthesizeArgs(tool.inputSchema, rng, pool, { optionalRate: 0.2, readsOnly: true });
        if (args) tries.push(args);
      }
      for (const args of tries) {
        const key = `${tool.name}:${JSON.stringify(args)}`;
        if (called.has(key)) continue; // the same call twice teaches nothing (and may be slow)
        called.add(key);
        throwIfInterrupted(signal);
        if (slow.has(tool.name)) break;
        let r: ToolResult;
        const t0 = Date.now();
        try {
          r = await box.call(tool.name, args);
        } catch {
          continue;
        }
        // a tool that takes this long once (a long-running operation) would stall every rollout
        // that calls it: no more probing, and no tasks for it
        if (Date.now() - t0 > slowMs || r.fault === "timeout") {
          slow.set(tool.name, Date.now() - t0);
          continue;
        }
        if (!r.isError && !compared.has(tool.name)) {
          compared.add(tool.name);
          // two more calls: dice agree twice by chance far more often than three times
          for (let k = 0; k < 2 && !unstable.has(tool.name); k++) {
            const again = await box.call(tool.name, args).catch(() => undefined);
            // (a reply stamped with the time it was made is the same reply)
            if (again && !again.isError && withoutClock(again.text) !== withoutClock(r.text)) unstable.add(tool.name);
          }
        }
        tallyOutputProblem(outputProblems, tool.name, r);
        if (!r.isError && isUseful(r)) useful++;
        pool.harvest(tool.name, r, args);
      }
    }
  }
  return { pool, unstable, slow, useful };
}
