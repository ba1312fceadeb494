/**
 * `eval`'s second table: how each model's rollouts used each tool, side by side. One row per
 * tool (most called first), one column per model: "rollouts calling it, calls, failed calls",
 * with the rollouts that called no tool first and malformed tool-call markup last.
 */
import { toolsByUse, type ToolUse } from "../rollout/tool-use.js";

export function toolUseTable(columns: ReadonlyArray<{ model: string; use: ToolUse }>): string {
  if (columns.length === 0) return "";
  const uses = columns.map((c) => c.use);
  const rows: string[][] = [["tool", ...columns.map((c) => c.model)]];
  rows.push(["(no tool call)", ...uses.map((u) => `${u.without_tool} of ${u.rollouts} rollouts`)]);
  for (const name of toolsByUse(uses))
    rows.push([
      name,
      ...uses.map((u) => {
        const s = u.tools[name];
        if (!s) return "–";
        const why = Object.entries(s.faults).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k.replace(/_/g, " ")} ${n}`);
        return `${s.rollouts} of ${u.rollouts} rollouts, ${s.calls} call${s.calls === 1 ? "" : "s"}, ${s.failed} failed${why.length ? ` (${why.join(", ")})` : ""}${s.output_problems ? `, ${s.output_problems} breaking its outputSchema` : ""}`;
      }),
    ]);
  if (uses.some((u) => u.malformed_calls > 0)) rows.push(["(malformed calls)", ...uses.map((u) => String(u.malformed_calls))]);
  const width = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return `\ntool use:\n${rows.map((r) => r.map((cell, i) => cell.padEnd(width[i])).join("  ").trimEnd()).join("\n")}\n`;
}
