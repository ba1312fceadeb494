import { describe, expect, it } from "vitest";
import { toolsByUse, toolUse, toolUseTotals } from "../../src/rollout/tool-use.js";
import type { ToolCallRecord } from "../../src/rollout/trajectory.js";

const call = (name: string, extra: Partial<ToolCallRecord> = {}): ToolCallRecord => ({ name, args: {}, result: "", isError: false, ms: 10, ...extra });

describe("toolUse", () => {
  const rollouts = [
    // two calls of one tool in one rollout: one rollout, two calls
    { success: true, toolCalls: [call("add", { ms: 20 }), call("add", { ms: 40 })] },
    // refused before sending: counted as failed, not timed
    { success: false, toolCalls: [call("add", { isError: true, error: "invalid_arguments", ms: 0 }), call("mul", { outputProblem: "mul: missing product" })] },
    // malformed markup only: no tool call at all
    { success: false, toolCalls: [call("", { isError: true, error: "parse:invalid_json", ms: 0 })] },
    // answered at once
    { success: true, toolCalls: [] },
    // a tool the server lacks, and the tool's own error
    { success: false, toolCalls: [call("divide", { isError: true, error: "unknown_tool", ms: 0 }), call("mul", { isError: true, ms: 30 })] },
  ];

  it("counts rollouts, calls, failures by why, schema breaks and passes per tool", () => {
    const u = toolUse(rollouts);
    expect(u.rollouts).toBe(5);
    expect(u.without_tool).toBe(2);
    expect(u.malformed_calls).toBe(1);
    expect(u.tools.add).toEqual({ rollouts: 2, calls: 3, failed: 1, faults: { invalid_arguments: 1 }, output_problems: 0, successes: 1, mean_ms: 30 });
    expect(u.tools.mul).toEqual({ rollouts: 2, calls: 2, failed: 1, faults: {}, output_problems: 1, successes: 0, mean_ms: 20 });
    expect(u.tools.divide).toMatchObject({ rollouts: 1, calls: 1, failed: 1, faults: { unknown_tool: 1 }, mean_ms: 0 });
    expect(Object.keys(u.tools)).not.toContain("");
  });

  it("sums to totals and orders tools by calls over several measurements", () => {
    const u = toolUse(rollouts);
    expect(toolUseTotals(u)).toEqual({ rollouts: 5, without_tool: 2, calls: 6, failed: 3, malformed_calls: 1 });
    const later = toolUse([{ success: true, toolCalls: [call("mul"), call("mul"), call("mul")] }]);
    expect(toolsByUse([u, later])).toEqual(["mul", "add", "divide"]);
    expect(toolsByUse([u, undefined])).toEqual(["add", "mul", "divide"]);
  });

  it("is empty for no rollouts", () => {
    expect(toolUse([])).toEqual({ rollouts: 0, without_tool: 0, malformed_calls: 0, tools: {} });
  });
});
