/**
 * The rule rubric, after the seed's layered AgentRewardSystem (format → tool use → task), read
 * from the structured trajectory rather than regexes over raw text. Five named components, each
 * its own logged score:
 *
 *   format        [0,1]  ½ for a final answer (finish "answer", non-empty, no stray tool-call
 *                        markup in it) + ½ × share of tool-call attempts that parsed
 *   tool_validity [0,1]  share of parsed calls naming a known tool with schema-valid arguments
 *   tool_errors   [0,1]  1 − share of executed calls whose result was an error
 *   efficiency    [0,1]  calls against the reference solution's length (1 at or under it, then
 *                        ref/calls), else turns against max turns; 0 without a final answer
 *   safety       [-1,0]  −1 when any call matches a dangerous pattern, else 0 (a penalty: its
 *                        weight stays out of the normalizer, so it only pulls totals down)
 *
 * Vacuous cases score 1 (no calls → no invalid calls), so a do-nothing answer is held back by
 * the verifier and efficiency's answer gate, not by these ratios.
 *
 * How a tool-call record is read: `error` holds a toolbox fault kind (maybe followed by ": …")
 * or, for anything else, a parse problem the rollout found (malformed). Faults of the
 * infrastructure (`connection`, `aborted`) are not the policy's doing and count nowhere.
 */
import type { ToolFaultKind } from "../mcp/types.js";
import type { ChatMessage, ToolCallRecord, Trajectory } from "../rollout/trajectory.js";
import { compileDangerous, type DangerousPatterns } from "./dangerous.js";
import type { TrajectoryComponent, TrajectoryScore } from "./types.js";

export type CallClass = "ok" | "malformed" | "unknown_tool" | "invalid_arguments" | "tool_error" | "infra";

const FAULTS: readonly ToolFaultKind[] = ["invalid_arguments", "unknown_tool", "timeout", "aborted", "connection", "protocol"];

function faultOf(error: string): ToolFaultKind | undefined {
  return FAULTS.find((f) => error === f || error.startsWith(`${f}:`) || error.startsWith(`${f} `));
}

/** Sorts one recorded call into the buckets the rubric counts. */
export function classifyCall(rec: ToolCallRecord, knownTools?: ReadonlySet<string>): CallClass {
  const err = rec.error?.trim();
  if (err) {
    const fault = faultOf(err);
    if (fault === undefined) return "malformed";
    if (fault === "unknown_tool" || fault === "invalid_arguments") return fault;
    if (fault === "connection" || fault === "aborted") return "infra";
    return "tool_error"; // timeout, protocol: the call reached the server and went wrong there
  }
  if (!rec.name || rec.args === null || typeof rec.args !== "object" || Array.isArray(rec.args)) return "malformed";
  if (knownTools && !knownTools.has(rec.name)) return "unknown_tool";
  return rec.isError ? "tool_error" : "ok";
}

/** Text that means the model tried to call a tool but the call never parsed. */
export const DEFAULT_TOOL_MARKERS = ["<tool_call>", "</tool_call>", "<|tool_call|>", "<function="];

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export interface CallCounts {
  attempts: number;
  malformed: number;
  unknown: number;
  invalid: number;
  executed: number;
  toolErrors: number;
  infra: number;
  /** the final answer carries tool-call markup: an attempt that did not parse */
  markupInAnswer: boolean;
}

/**
 * The rollout's own "I am done" tool (rollout/tool-env.ts COMPLETE_TASK_TOOL): how the answer is
 * given, not a tool use, so it is left out of every count and of the safety check.
 */
export const DEFAULT_COMPLETION_TOOL = "complete_task";

export interface CountOptions {
  knownTools?: ReadonlySet<string>;
  markers?: readonly string[];
  /** default DEFAULT_COMPLETION_TOOL */
  completionTool?: string;
}

/** Counts of what the calls in a trajectory were; shared by the rubric components. */
export function countCalls(t: Trajectory, options: CountOptions = {}): CallCounts {
  const c: CallCounts = { attempts: 0, malformed: 0, unknown: 0, invalid: 0, executed: 0, toolErrors: 0, infra: 0, markupInAnswer: false };
  const done = options.completionTool ?? DEFAULT_COMPLETION_TOOL;
  const records = t.toolCalls.filter((r) => !(r.name === done && !r.error));
  for (const rec of records) {
    const k = classifyCall(rec, options.knownTools);
    if (k === "malformed") c.malformed++;
    else if (k === "unknown_tool") c.unknown++;
    else if (k === "invalid_arguments") c.invalid++;
    else if (k === "infra") c.infra++;
    else {
      c.executed++;
      if (k === "tool_error") c.toolErrors++;
    }
  }
  // Calls whose JSON arguments did not parse may show only in the messages; take the larger count.
  const assistant = t.messages.filter((m: ChatMessage) => m.role === "assistant");
  const inMessages = assistant.flatMap((m) => m.tool_calls ?? []).filter((tc) => tc.function.name !== done);
  const badInMessages = inMessages.filter((tc) => !parsesAsJson(tc.function.arguments)).length;
  c.malformed = Math.max(c.malformed, badInMessages);
  c.attempts = Math.max(records.length, inMessages.length, c.malformed);
  const markers = options.markers ?? DEFAULT_TOOL_MARKERS;
  const last = assistant.at(-1);
  const answerText = [t.finalAnswer, last && !(last.tool_calls?.length) ? last.content : ""].join("\n");
  c.markupInAnswer = markers.some((m) => answerText.includes(m));
  if (c.markupInAnswer) {
    c.malformed++;
    c.attempts++;
  }
  return c;
}

export interface RubricComponentOptions {
  weight?: number;
  /** the rollout's completion tool, not counted as a call (default DEFAULT_COMPLETION_TOOL) */
  completionTool?: string;
  /** tool names the server offers; calls naming others count as unknown (default: trust the toolbox's fault) */
  knownTools?: Iterable<string>;
  /** markup that, left in the final answer, means an unparsed tool call (default DEFAULT_TOOL_MARKERS) */
  markers?: readonly string[];
}

function known(o: RubricComponentOptions): ReadonlySet<string> | undefined {
  return o.knownTools ? new Set(o.knownTools) : undefined;
}

function hasAnswer(t: Trajectory, c: CallCounts): boolean {
  return t.finish === "answer" && t.finalAnswer.trim() !== "" && !c.markupInAnswer;
}

/** format: a final answer, and tool calls that parse. Default weight 0.5. */
export function formatReward(o: RubricComponentOptions = {}): TrajectoryComponent {
  const knownTools = known(o);
  return {
    name: "format",
    weight: o.weight ?? 0.5,
    kind: "trajectory",
    score(t): TrajectoryScore {
      const c = countCalls(t, { knownTools, markers: o.markers, completionTool: o.completionTool });
      const answer = hasAnswer(t, c) ? 1 : 0;
      const parsed = c.attempts === 0 ? 1 : 1 - c.malformed / c.attempts;
      const why = [answer ? "final answer" : `no final answer (finish ${t.finish})`, `${c.malformed}/${c.attempts} calls malformed`];
      return { score: 0.5 * answer + 0.5 * parsed, detail: why.join(", ") };
    },
  };
}

/** tool_validity: known tool, schema-valid arguments (the toolbox's faults). Default weight 0.5. */
export function toolValidityReward(o: RubricComponentOptions = {}): TrajectoryComponent {
  const knownTools = known(o);
  return {
    name: "tool_validity",
    weight: o.weight ?? 0.5,
    kind: "trajectory",
    score(t): TrajectoryScore {
      const c = countCalls(t, { knownTools, markers: o.markers, completionTool: o.completionTool });
      const parsed = c.attempts - c.malformed;
      const bad = c.unknown + c.invalid;
      // no attempt: nothing to fault; attempts of which none parsed: no valid call (else a
      // malformed call would score above a well-formed one naming a wrong tool)
      return {
        score: c.attempts === 0 ? 1 : parsed <= 0 ? 0 : Math.max(0, 1 - bad / parsed),
        detail: `${c.unknown} unknown tool, ${c.invalid} invalid arguments of ${Math.max(parsed, 0)} parsed calls`,
      };
    },
  };
}

/** tool_errors: executed calls whose result was an error. Default weight 0.5. */
export function toolErrorsReward(o: RubricComponentOptions = {}): TrajectoryComponent {
  const knownTools = known(o);
  return {
    name: "tool_errors",
    weight: o.weight ?? 0.5,
    kind: "trajectory",
    score(t): TrajectoryScore {
      const c = countCalls(t, { knownTools, markers: o.markers, completionTool: o.completionTool });
      return {
        score: c.executed === 0 ? 1 : 1 - c.toolErrors / c.executed,
        detail: `${c.toolErrors}/${c.executed} executed calls returned errors`,
      };
    },
  };
}

export interface EfficiencyOptions extends RubricComponentOptions {
  /** the rollout's turn limit, the budget when a scenario has no reference solution; default 10 */
  maxTurns?: number;
}

/** efficiency: calls vs the reference solution, else turns vs max turns. Default weight 0.5. */
export function efficiencyReward(o: EfficiencyOptions = {}): TrajectoryComponent {
  const maxTurns = Math.max(1, o.maxTurns ?? 10);
  const knownTools = known(o);
  return {
    name: "efficiency",
    weight: o.weight ?? 0.5,
    kind: "trajectory",
    score(t, ctx): TrajectoryScore {
      const c = countCalls(t, { knownTools, markers: o.markers, completionTool: o.completionTool });
      if (!hasAnswer(t, c)) return { score: 0, detail: `no final answer (finish ${t.finish})` };
      const ref = ctx.scenario.reference?.calls.length;
      if (ref !== undefined) {
        const used = c.attempts;
        const score = used <= ref ? 1 : ref === 0 ? 1 / (1 + used) : ref / used;
        return { score, detail: `${used} calls vs ${ref} in the reference` };
      }
      // No reference: the first turn is free, each further turn costs 1/maxTurns.
      const score = Math.min(1, Math.max(0, 1 - (t.turns - 1) / maxTurns));
      return { score, detail: `${t.turns} turns of at most ${maxTurns}` };
    },
  };
}

export interface SafetyOptions {
  dangerous: Partial<DangerousPatterns>;
  /** not checked: its arguments are the answer text (default DEFAULT_COMPLETION_TOOL) */
  completionTool?: string;
  /** default 2: one dangerous call costs as much as failing four [0,1] components at weight 0.5 */
  weight?: number;
}

/** safety: −1 when any call (attempted, even if rejected) matches a dangerous pattern. */
export function safetyReward(o: SafetyOptions): TrajectoryComponent {
  const matcher = compileDangerous(o.dangerous);
  const done = o.completionTool ?? DEFAULT_COMPLETION_TOOL;
  return {
    name: "safety",
    weight: o.weight ?? 2,
    kind: "trajectory",
    penalty: true,
    score(t): TrajectoryScore {
      const hits = t.toolCalls
        .filter((r) => r.name !== done)
        .map((r) => matcher.match(r.name, r.args))
        .filter((h): h is string => h !== undefined);
      return hits.length === 0 ? { score: 0, detail: "no dangerous calls" } : { score: -1, detail: hits.join("; ") };
    },
  };
}

export interface RubricOptions extends EfficiencyOptions {
  dangerous?: Partial<DangerousPatterns>;
  /** per-component weights by name; unspecified ones keep their defaults */
  weights?: Partial<Record<"format" | "tool_validity" | "tool_errors" | "efficiency" | "safety", number>>;
}

/** The whole rubric; `safety` only when dangerous patterns are given. */
export function rubricRewards(o: RubricOptions = {}): TrajectoryComponent[] {
  const w = o.weights ?? {};
  const base = { knownTools: o.knownTools ? [...o.knownTools] : undefined, markers: o.markers, completionTool: o.completionTool };
  const out = [
    formatReward({ ...base, weight: w.format }),
    toolValidityReward({ ...base, weight: w.tool_validity }),
    toolErrorsReward({ ...base, weight: w.tool_errors }),
    efficiencyReward({ ...base, maxTurns: o.maxTurns, weight: w.efficiency }),
  ];
  const d = o.dangerous;
  if (d && ((d.tools?.length ?? 0) > 0 || (d.args?.length ?? 0) > 0)) {
    out.push(safetyReward({ dangerous: d, weight: w.safety, completionTool: o.completionTool }));
  }
  return out;
}
