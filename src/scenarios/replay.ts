/**
 * Replaying a scenario's reference solution on a real server: the proof that a scenario is
 * solvable and that its expected outcome is right.
 *
 * The reference calls run in order on the given toolbox (a fresh instance for stateful
 * servers); none may fail. Then every answer check must pass twice: on the reference answer
 * text, and on the text of at least one replayed result (an exact check there as "contains"), so the answer really came from the
 * server and is not just a string the generator wrote. State checks run last on the same
 * instance. Used by the verified generator, `scenarios check --server`, and the tests.
 */
import type { Toolbox, ToolSpec } from "../mcp/types.js";
import { checkAnswer, isStateCheck, runStateCheck, type CheckResult } from "./check.js";
import type { AnswerCheck, Scenario } from "./schema.js";
import { isReadOnlyTool } from "./verified/generic.js";

export interface ReplayResult extends CheckResult {
  /** the replayed results' texts, in call order */
  resultTexts: string[];
}

export async function replayScenario(
  toolbox: Pick<Toolbox, "call">,
  scenario: Pick<Scenario, "expected" | "reference">,
  options: { timeoutMs?: number } = {},
): Promise<ReplayResult> {
  const ref = scenario.reference;
  if (!ref) return { pass: false, detail: "no reference solution to replay", resultTexts: [] };
  const resultTexts: string[] = [];
  for (let i = 0; i < ref.calls.length; i++) {
    const call = ref.calls[i];
    const r = await toolbox.call(call.name, call.arguments, { timeoutMs: options.timeoutMs });
    resultTexts.push(r.text);
    if (r.isError) {
      return { pass: false, detail: `reference call ${i + 1} ${call.name} failed: ${r.text.slice(0, 200)}`, resultTexts };
    }
  }
  const details: string[] = [];
  for (const e of scenario.expected ?? []) {
    if (isStateCheck(e)) {
      const r = await runStateCheck(toolbox, e, { timeoutMs: options.timeoutMs });
      if (!r.pass) return { pass: false, detail: r.detail, resultTexts };
      details.push(r.detail);
      continue;
    }
    const onAnswer = checkAnswer(e, ref.answer);
    if (!onAnswer.pass) return { pass: false, detail: `reference answer: ${onAnswer.detail}`, resultTexts };
    // An exact answer ("India") is reproduced when a result contains it; other kinds as they are.
    const onResult: AnswerCheck = e.kind === "exact" ? { kind: "contains", value: e.value, caseSensitive: e.caseSensitive } : e;
    if (resultTexts.length > 0 && !resultTexts.some((t) => checkAnswer(onResult, t).pass)) {
      return { pass: false, detail: `no replayed result reproduces it: ${checkAnswer(onResult, resultTexts[resultTexts.length - 1]).detail}`, resultTexts };
    }
    details.push(onAnswer.detail);
  }
  return { pass: true, detail: details.join("; ") || "calls replayed", resultTexts };
}

/**
 * True when replaying the scenario changes server state (a reference call to a tool whose
 * annotations or name say it mutates), so it needs its own fresh instance; read-only scenarios can share one.
 */
export function replayMutates(scenario: Pick<Scenario, "reference">, tools: readonly ToolSpec[] = []): boolean {
  return (scenario.reference?.calls ?? []).some((c) => !isReadOnlyTool(tools.find((t) => t.name === c.name) ?? c.name));
}
