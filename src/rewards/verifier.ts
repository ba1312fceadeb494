/**
 * The verifier: checks a scenario's expected outcomes after a rollout (answer checks on the final
 * answer; state checks by a tool call on the rollout's own server instance) with the shared
 * checks in scenarios/check.ts, and sets `success` when all pass (the RLVR reward of the
 * DeepSeek-R1 recipe: correctness, verified by rule, not judged).
 *
 * Score: mode "all" (default) gives 1 when every check passes, else 0; mode "fraction" gives the
 * share that passed (partial credit, denser but easier to game). A scenario without expectations
 * has no verifier score (missing), and `success` is then left as it was. A rollout that failed
 * (finish "error") still gets its checks run: its answer is empty, and its server may be gone, in
 * which case the state check fails.
 */
import { checkAnswer, runStateCheck, type CheckResult } from "../scenarios/check.js";
import type { Expected } from "../scenarios/schema.js";
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
          results.push(checkAnswer(e, t.finalAnswer));
        }
      }
      const passed = results.filter((r) => r.pass).length;
      const success = passed === results.length;
      const score = mode === "all" ? (success ? 1 : 0) : passed / results.length;
      const detail = `${passed}/${results.length} passed: ${results.map((r) => `${r.pass ? "✓" : "✗"} ${r.detail}`).join("; ")}`;
      return { score, detail, success };
    },
  };
}
