/**
 * Reference-call match: how much of a scenario's reference solution the rollout's tool calls
 * reproduce (the seed's `expected_tool` / `expected_params`, scored per argument). Partial credit
 * for the step before the answer: the right tool with two of three arguments right scores
 * higher than the wrong tool, where the verifier sees only "failed".
 *
 * For each reference call: 0 when no call named the same tool; otherwise the best match over the
 * rollout's calls of that tool: argument leaves equal in both over the leaves in either (numbers
 * equal within 1e-9 relative, strings equal ignoring whitespace, list items by position). The
 * score is the mean over reference calls. A scenario without reference calls has no score.
 *
 * It rewards one way of solving the task: a different but valid call (`"(2+3)*4"` for
 * `"4 * (2 + 3)"`) gets partial credit only. So its default weight is 0 (logged as a metric, the
 * "argument accuracy" of a run); give it weight where reference solutions are the only way.
 */
import type { Trajectory } from "../rollout/trajectory.js";
import type { MissingScore, TrajectoryComponent, TrajectoryScore } from "./types.js";

type Leaves = Map<string, unknown>;

/** Argument leaves by path: `{"a": [1, {"b": "x"}]}` → `a.0` = 1, `a.1.b` = "x". */
function leavesOf(value: unknown, prefix = "", out: Leaves = new Map()): Leaves {
  if (Array.isArray(value)) {
    if (value.length === 0) out.set(prefix, "[]");
    value.forEach((v, i) => leavesOf(v, `${prefix}.${i}`, out));
  } else if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    if (entries.length === 0) out.set(prefix, "{}");
    for (const [k, v] of entries) leavesOf(v, `${prefix}.${k}`, out);
  } else {
    out.set(prefix, value);
  }
  return out;
}

function sameLeaf(want: unknown, got: unknown): boolean {
  if (typeof want === "number" && typeof got === "number") return Math.abs(want - got) <= 1e-9 * Math.max(1, Math.abs(want));
  if (typeof want === "string" && typeof got === "string") return want.replace(/\s+/g, "") === got.replace(/\s+/g, "");
  return want === got;
}

/**
 * Leaves equal in both, over the leaves in either: an extra list item or an extra optional
 * argument counts against the match as a missing one does (both change what the call does).
 */
export function argumentMatch(reference: unknown, args: unknown): number {
  const want = leavesOf(reference ?? {});
  const got = leavesOf(args ?? {});
  let hit = 0;
  for (const [path, v] of want) if (got.has(path) && sameLeaf(v, got.get(path))) hit++;
  const union = new Set([...want.keys(), ...got.keys()]).size;
  return union === 0 ? 1 : hit / union;
}

export interface ReferenceCallsOptions {
  /** default 0: a metric only (see the module comment) */
  weight?: number;
}

/** The component, named "reference_calls". */
export function referenceCallsReward(o: ReferenceCallsOptions = {}): TrajectoryComponent {
  return {
    name: "reference_calls",
    weight: o.weight ?? 0,
    kind: "trajectory",
    score(t: Trajectory, ctx): TrajectoryScore | MissingScore {
      const reference = ctx.scenario.reference?.calls ?? [];
      if (reference.length === 0) return { missing: `scenario ${ctx.scenario.id} has no reference calls` };
      const perCall = reference.map((ref) => {
        const same = t.toolCalls.filter((c) => c.name === ref.name);
        return same.length === 0 ? 0 : Math.max(...same.map((c) => argumentMatch(ref.arguments, c.args)));
      });
      const score = perCall.reduce((a, b) => a + b, 0) / perCall.length;
      const detail = reference.map((ref, i) => `${ref.name} ${(perCall[i] * 100).toFixed(0)}%`).join(", ");
      return { score, detail };
    },
  };
}
