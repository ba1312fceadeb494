/**
 * The verifier: checks a scenario's expected outcomes after a rollout (answer checks on the final
 * answer; state checks by a tool call on the rollout's own server instance) with the shared
 * checks in scenarios/check.ts, and sets `success` when all pass (the RLVR reward of the
 * DeepSeek-R1 recipe: correctness, verified by rule, not judged).
 *
 * Score: mode "all" (default) gives 1 when every check passes, else 0; mode "fraction" gives the
 * share that passed (partial credit, denser but easier to game; absence checks count only while
 * every other check passes). A scenario without expectations
 * has no verifier score (missing), and `success` is then left as it was. A rollout that failed
 * (finish "error") still gets its checks run: its answer is empty, and its server may be gone, in
 * which case the state check fails.
 */
import { checkAnswer, runStateCheck, type CheckResult } from "../scenarios/check.js";
import { extractNumbers, withinTolerance } from "../scenarios/numbers.js";
import { isAbsenceCheck, type Expected } from "../scenarios/schema.js";
import type { Trajectory } from "../rollout/trajectory.js";
import type { MissingScore, TrajectoryComponent, TrajectoryScore } from "./types.js";

export interface VerifierOptions {
  /** "all": 1 only when every check passes (default); "fraction": the share that passed */
  mode?: "all" | "fraction";
  /** default 4: task completion outweighs the four rubric components at 0.5 each together */
  weight?: number;
  /** limit for each state-check tool call, in ms; default 30 000 */
  stateTimeoutMs?: number;
}

/** The verifier component, named "verifier". */
export function verifierReward(o: VerifierOptions = {}): TrajectoryComponent {
  const mode = o.mode ?? "all";
  return {
    name: "verifier",
    weight: o.weight ?? 4,
    kind: "trajectory",
    async score(t, ctx): Promise<TrajectoryScore | MissingScore> {
      const expected: readonly Expected[] = ctx.scenario.expected ?? [];
      if (expected.length === 0) return { missing: `scenario ${ctx.scenario.id} has no expected outcomes` };
      const results: CheckResult[] = [];
      for (const e of expected) {
        if (e.kind === "state") {
          const target = ctx.stateTarget?.(ctx.index, t);
          if (!target) {
            // A configuration fault of the caller, not of the policy: fail loudly (scored 0, counted).
            throw new Error(`state check ${e.tool} needs the rollout's server, and no stateTarget was given for trajectory ${ctx.index}`);
          }
          results.push(await runStateCheck(target, e, { signal: ctx.signal, timeoutMs: o.stateTimeoutMs ?? 30_000 }));
        } else {
          const r = checkAnswer(e, t.finalAnswer);
          results.push(r.pass && e.kind === "numeric" ? (hedgeOf(t, ctx.scenario.task, expected) ?? r) : r);
        }
      }
      const passed = results.filter((r) => r.pass).length;
      const success = passed === results.length;
      // partial credit: an absence (a deleted item gone) counts only while everything that must be
      // there is, or a server wiped clean would earn every "gone" check's share
      const presentHold = results.every((r, i) => r.pass || isAbsenceCheck(expected[i]));
      const credited = results.filter((r, i) => r.pass && (presentHold || !isAbsenceCheck(expected[i]))).length;
      const score = mode === "all" ? (success ? 1 : 0) : credited / results.length;
      const uncredited = mode === "fraction" && !presentHold;
      const mark = (r: CheckResult, i: number) => (!r.pass ? "✗" : uncredited && isAbsenceCheck(expected[i]) ? "✓ (no credit while a present value is missing)" : "✓");
      const detail = `${passed}/${results.length} passed: ${results.map((r, i) => `${mark(r, i)} ${r.detail}`).join("; ")}`;
      return { score, detail, success };
    },
  };
}

/** numbers of its own an answer may offer besides the expected ones before it reads as a list of guesses */
const MAX_OWN_NUMBERS = 2;

/**
 * A numeric check passes on any number of the answer that is close enough, so "0, 1, 2, … or 9"
 * would pass for 3: a policy could learn to list guesses. An answer that offers more than two
 * numbers of its own (not in the task, not in a tool's result, not an expected value) fails.
 * Restating the task or what the tools said is fine.
 */
function hedgeOf(t: Pick<Trajectory, "finalAnswer" | "toolCalls">, task: string, expected: readonly Expected[]): CheckResult | undefined {
  const known = [...extractNumbers(task), ...t.toolCalls.flatMap((c) => extractNumbers(c.result))];
  const wanted = expected.flatMap((e) => (e.kind === "numeric" ? [e] : []));
  const own = [
    ...new Set(
      extractNumbers(t.finalAnswer).filter(
        // (a rounded restatement, 2.16 for 2.1602, counts as the tool's number)
        (n) => !known.some((k) => Math.abs(k - n) <= Math.max(0.005, 1e-3 * Math.abs(k))) && !wanted.some((w) => withinTolerance(n, w.value, w.tolerance ?? 1e-6, w.relTolerance ?? 0)),
      ),
    ),
  ];
  if (own.length <= MAX_OWN_NUMBERS) return undefined;
  return { pass: false, detail: `the answer offers ${own.length} other numbers of its own (${own.slice(0, 5).join(", ")}${own.length > 5 ? ", …" : ""}): a list of guesses is not an answer` };
}
