/** The per-template lines the training summary prints under "held-out success". */
import { describe, expect, it } from "vitest";
import { summaryText, templateTable, toolUseLine } from "../../src/cli/commands/train.js";

describe("templateTable", () => {
  it("one aligned row per template, the most common first, ties by name", () => {
    const text = templateTable({
      "calculator.statistics": { n: 14, before: 0, after: 0.0714 },
      "calculator.compound": { n: 25, before: 0.04, after: 0.08 },
      "calculator.arith.power": { n: 14, before: 0.25, after: 0.5 },
    });
    const lines = text.trimEnd().split("\n");
    expect(lines.map((l) => l.trim().split(/\s+/)[0])).toEqual(["template", "calculator.compound", "calculator.arith.power", "calculator.statistics"]);
    expect(lines[1].trim().split(/\s+/)).toEqual(["calculator.compound", "25", "4.0%", "8.0%"]);
    expect(lines[3].trim().split(/\s+/)).toEqual(["calculator.statistics", "14", "0.0%", "7.1%"]);
    expect(new Set(lines.map((l) => l.length)).size).toBe(1);
  });

  it("prints nothing for a single template (the headline already says it all)", () => {
    expect(templateTable({ "calculator.compound": { n: 3, before: 0, after: 1 } })).toBe("");
    expect(templateTable({})).toBe("");
  });
});

describe("summaryText", () => {
  it("counts steps and scenarios in the singular and the plural", () => {
    const s = { run_dir: "/r", heldout_before: 0.5, heldout_after: 0.75, heldout_n: 4, steps: 1, sft_steps: 1, wall_s: 8.3, engine: "ort", interrupted: false, report: "/r/report.html" };
    expect(summaryText(s)).toBe("\nheld-out success (4 scenarios): before RL 50.0% → after RL 75.0%  (1 GRPO step, 1 warm-start step, 8.3 s)\nreport: /r/report.html\nrun directory: /r\n");
    expect(summaryText({ ...s, steps: 2, sft_steps: 0 })).toContain("(2 GRPO steps, 8.3 s)");
    expect(summaryText({ ...s, heldout_n: 1 })).toContain("held-out success (1 scenario): ");
  });
});

describe("toolUseLine", () => {
  const before = { rollouts: 100, without_tool: 33, calls: 70, failed: 3, malformed_calls: 0 };
  const after = { rollouts: 100, without_tool: 1, calls: 104, failed: 2, malformed_calls: 0 };
  it("says how the held-out rollouts' tool use moved, malformed calls only when there were some", () => {
    expect(toolUseLine({ before, after })).toBe("tool use (held-out rollouts): answered without a tool 33% → 1%; tool calls 70 → 104 (failed 3 → 2)\n");
    expect(toolUseLine({ before: { ...before, malformed_calls: 4 }, after })).toContain("(failed 3 → 2); tool calls that did not parse 4 → 0\n");
  });
  it("is empty without both measurements, and the summary carries it", () => {
    expect(toolUseLine(undefined)).toBe("");
    expect(toolUseLine({ before })).toBe("");
    const s = { run_dir: "/r", heldout_before: 0.4, heldout_after: 0.65, heldout_n: 100, steps: 40, sft_steps: 0, wall_s: 400, engine: "ort", interrupted: false, report: "/r/report.html", heldout_tool_use: { before, after } };
    expect(summaryText(s)).toContain("\ntool use (held-out rollouts): answered without a tool 33% → 1%;");
  });
});
