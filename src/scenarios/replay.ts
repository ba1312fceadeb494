/**
 * Replaying a scenario's reference solution on a real server: the proof that a scenario is
 * solvable and that its expected outcome is right.
 *
 * A scenario's setup calls run first (none may fail); then the reference calls run in order on
 * the given toolbox (a fresh instance for stateful servers, and for any scenario with setup
 * calls); none may fail (but one marked `error: true` must). Then every answer check must
 * pass on the reference answer text, and on the text of at least one replayed result (an exact
 * check there as "contains"), so the answer really came from the server and is not just a string
 * someone wrote (a not_contains check, an absence, holds on the reference answer alone). A
 * reference marked `derived` (a sum of two results, a yes/no worked out from one) is checked on
 * its answer only; `unconfirmed` then says which check no result states.
 * State checks run last on the same instance. Used by the verified generator (which keeps only
 * confirmed scenarios), `scenarios check --server`, and the tests.
 */
import type { Toolbox, ToolSpec } from "../mcp/types.js";
import { checkAnswer, isStateCheck, runStateCheck, type CheckResult } from "./check.js";
import type { AnswerCheck, Scenario } from "./schema.js";
import { runSetup } from "./setup.js";
import { isReadOnlyTool } from "./verified/generic.js";

export interface ReplayResult extends CheckResult {
  /** the replayed results' texts, in call order */
  resultTexts: string[];
  /** a `derived` reference's answer checks that no replayed result states */
  unconfirmed?: string[];
}

export async function replayScenario(
  toolbox: Pick<Toolbox, "call">,
  scenario: Pick<Scenario, "expected" | "reference"> & Partial<Pick<Scenario, "setup" | "task">>,
  options: { timeoutMs?: number } = {},
): Promise<ReplayResult> {
  const ref = scenario.reference;
  if (!ref) return { pass: false, detail: "no reference solution to replay", resultTexts: [] };
  const resultTexts: string[] = [];
  // the starting state the task was written for (its results are no part of the solution)
  const setupFailed = await runSetup(toolbox, scenario.setup ?? [], { timeoutMs: options.timeoutMs, task: scenario.task });
  if (setupFailed) return { pass: false, detail: setupFailed, resultTexts };
  for (let i = 0; i < ref.calls.length; i++) {
    const call = ref.calls[i];
    const r = await toolbox.call(call.name, call.arguments, { timeoutMs: options.timeoutMs, task: scenario.task });
    resultTexts.push(r.text);
    // a call marked `error: true` must come back as the tool's own error, any other must not
    // with error: true, a JSON-RPC error (fault "protocol") is the tool's own answer too
    const ownError = r.isError && (!r.fault || (call.error === true && r.fault === "protocol"));
    if ((r.isError && !ownError) || (ownError && !call.error)) {
      return { pass: false, detail: `reference call ${i + 1} ${call.name} failed: ${oneLine(r.text)}`, resultTexts };
    }
    if (!r.isError && call.error) return { pass: false, detail: `reference call ${i + 1} ${call.name} answered without the error expected: ${oneLine(r.text)}`, resultTexts };
  }
  const details: string[] = [];
  const unconfirmed: string[] = [];
  for (const e of scenario.expected ?? []) {
    if (isStateCheck(e)) {
      const r = await runStateCheck(toolbox, e, { timeoutMs: options.timeoutMs });
      if (!r.pass) return { pass: false, detail: r.detail, resultTexts };
      details.push(r.detail);
      continue;
    }
    const onAnswer = checkAnswer(e, ref.answer);
    if (!onAnswer.pass) return { pass: false, detail: `reference answer: ${onAnswer.detail}`, resultTexts };
    // what an answer must not say is no thing a result states: the reference answer is its proof
    if (e.kind === "not_contains") {
      details.push(onAnswer.detail);
      continue;
    }
    // An exact answer ("India") is reproduced when a result contains it; other kinds as they are.
    const onResult: AnswerCheck = e.kind === "exact" ? { kind: "contains", value: e.value, caseSensitive: e.caseSensitive } : e;
    if (resultTexts.length > 0 && !resultTexts.some((t) => checkAnswer(onResult, t).pass)) {
      if (!ref.derived)
        return {
          pass: false,
          detail: `no replayed result reproduces it: ${checkAnswer(onResult, resultTexts[resultTexts.length - 1]).detail} (an answer worked out from the results, such as a sum, is marked "derived": true in the reference)`,
          resultTexts,
        };
      unconfirmed.push(describeCheck(e));
    }
    details.push(onAnswer.detail);
  }
  return { pass: true, detail: details.join("; ") || "calls replayed", resultTexts, ...(unconfirmed.length > 0 ? { unconfirmed } : {}) };
}

/**
 * True when replaying the scenario changes server state (a reference call to a tool whose
 * annotations or name say it mutates), so it needs its own fresh instance; read-only scenarios can share one.
 */
export function replayMutates(scenario: Pick<Scenario, "reference"> & Partial<Pick<Scenario, "setup">>, tools: readonly ToolSpec[] = []): boolean {
  if ((scenario.setup?.length ?? 0) > 0) return true; // its setup calls change the instance
  return (scenario.reference?.calls ?? []).some((c) => !isReadOnlyTool(tools.find((t) => t.name === c.name) ?? c.name));
}

/** A check as a person names it: `numeric 47`, `exact "no"`. */
function describeCheck(e: AnswerCheck): string {
  if (e.kind === "numeric") return `numeric ${e.value}`;
  if (e.kind === "regex") return `regex /${e.pattern}/`;
  if (e.kind === "json_subset") return `json_subset ${JSON.stringify(e.value)}`;
  return `${e.kind} ${JSON.stringify(e.value)}`;
}

/** A result as one short line for a message. */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}
