/**
 * How a set of rollouts used the server's tools: per tool, how many rollouts called it, how
 * many calls failed and why, how many of its results broke its own outputSchema; and how many
 * rollouts answered without any tool or wrote tool-call markup that did not parse. An
 * evaluation keeps this beside its success rate (eval.jsonl's `tool_use`), so the report and
 * `train-mcp eval` show what RL changed in the way the model works, not only how often it is
 * right — and a server's author sees which tools fail under a model's calls.
 */
import { z } from "zod";
import type { Trajectory } from "./trajectory.js";

export const ToolStatsSchema = z.object({
  rollouts: z.number().int().min(0).describe("rollouts that called the tool at least once"),
  calls: z.number().int().min(0),
  failed: z.number().int().min(0).describe("calls whose result was an error (the tool's own, or a fault below)"),
  faults: z.record(z.string(), z.number().int().min(0)).describe("failed calls by why, where the call failed before or outside the tool (invalid_arguments, unknown_tool, timeout, ...)"),
  output_problems: z.number().int().min(0).describe("results that broke the tool's outputSchema"),
  successes: z.number().int().min(0).describe("rollouts that called the tool and passed"),
  mean_ms: z.number().min(0).describe("mean time of the calls that reached the server"),
});
export type ToolStats = z.infer<typeof ToolStatsSchema>;

export const ToolUseSchema = z.object({
  rollouts: z.number().int().min(0),
  without_tool: z.number().int().min(0).describe("rollouts that made no tool call (a malformed one does not count as a call)"),
  malformed_calls: z.number().int().min(0).describe("tool-call markup that did not parse"),
  tools: z.record(z.string(), ToolStatsSchema).describe("by tool name, tools the model called that the server lacks included"),
});
export type ToolUse = z.infer<typeof ToolUseSchema>;

type Played = Pick<Trajectory, "toolCalls" | "success">;

/** A call that went to the server: not the model's malformed call (parse error), nor one refused
 *  before sending (unknown tool, arguments against the schema, aborted). */
export function wasSent(call: { error?: string }): boolean {
  return !call.error || !(call.error.startsWith("parse:") || call.error === "unknown_tool" || call.error === "invalid_arguments" || call.error === "aborted");
}

export function toolUse(trajectories: readonly Played[]): ToolUse {
  const tools: Record<string, ToolStats> = {};
  const msSum = new Map<string, { ms: number; n: number }>();
  let withoutTool = 0;
  let malformed = 0;
  for (const t of trajectories) {
    const called = new Set<string>();
    for (const c of t.toolCalls) {
      if (c.error?.startsWith("parse:")) {
        malformed++;
        continue;
      }
      const s = (tools[c.name] ??= { rollouts: 0, calls: 0, failed: 0, faults: {}, output_problems: 0, successes: 0, mean_ms: 0 });
      s.calls++;
      if (c.isError) s.failed++;
      if (c.error) s.faults[c.error] = (s.faults[c.error] ?? 0) + 1;
      if (c.outputProblem) s.output_problems++;
      // calls refused before sending take no time worth averaging
      if (wasSent(c)) {
        const m = msSum.get(c.name) ?? { ms: 0, n: 0 };
        msSum.set(c.name, { ms: m.ms + c.ms, n: m.n + 1 });
      }
      called.add(c.name);
    }
    if (called.size === 0) withoutTool++;
    for (const name of called) {
      tools[name].rollouts++;
      if (t.success) tools[name].successes++;
    }
  }
  for (const [name, m] of msSum) tools[name].mean_ms = Math.round(m.ms / m.n);
  return { rollouts: trajectories.length, without_tool: withoutTool, malformed_calls: malformed, tools };
}

/** Tool names of one or more ToolUse, most called first (over all of them), then by name. */
export function toolsByUse(uses: ReadonlyArray<ToolUse | undefined>): string[] {
  const calls = new Map<string, number>();
  for (const u of uses) for (const [name, s] of Object.entries(u?.tools ?? {})) calls.set(name, (calls.get(name) ?? 0) + s.calls);
  return [...calls].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([name]) => name);
}

/** The whole of a ToolUse in five numbers (a run's summary line). */
export interface ToolUseTotals {
  rollouts: number;
  without_tool: number;
  calls: number;
  failed: number;
  malformed_calls: number;
}

export function toolUseTotals(u: ToolUse): ToolUseTotals {
  const all = Object.values(u.tools);
  return {
    rollouts: u.rollouts,
    without_tool: u.without_tool,
    calls: all.reduce((n, s) => n + s.calls, 0),
    failed: all.reduce((n, s) => n + s.failed, 0),
    malformed_calls: u.malformed_calls,
  };
}
