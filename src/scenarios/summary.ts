/**
 * Counting a scenario set for `scenarios show` and `scenarios check`: per split, per
 * difficulty, per tool (from the reference calls, else the `tool:` tags), as small text tables.
 */
import type { Scenario } from "./schema.js";

export interface ScenarioCounts {
  total: number;
  split: Record<string, number>;
  difficulty: Record<string, Record<string, number>>; // difficulty → split → count
  tool: Record<string, Record<string, number>>; // tool → split → count
  withExpected: number;
  withReference: number;
  multiStep: number;
}

export function countScenarios(scenarios: readonly Scenario[]): ScenarioCounts {
  const c: ScenarioCounts = { total: scenarios.length, split: {}, difficulty: {}, tool: {}, withExpected: 0, withReference: 0, multiStep: 0 };
  const bump = (m: Record<string, Record<string, number>>, k: string, split: string) => {
    m[k] ??= {};
    m[k][split] = (m[k][split] ?? 0) + 1;
  };
  for (const s of scenarios) {
    c.split[s.split] = (c.split[s.split] ?? 0) + 1;
    bump(c.difficulty, String(s.difficulty), s.split);
    const tools = s.reference ? [...new Set(s.reference.calls.map((x) => x.name))] : s.tags.filter((t) => t.startsWith("tool:")).map((t) => t.slice(5));
    for (const t of tools.length ? tools : ["(none)"]) bump(c.tool, t, s.split);
    if (s.expected?.length) c.withExpected++;
    if (s.reference) c.withReference++;
    if ((s.reference?.calls.length ?? 0) > 1) c.multiStep++;
  }
  return c;
}

function table(title: string, rows: Array<[string, Record<string, number>]>): string {
  const w = Math.max(title.length, ...rows.map(([k]) => k.length));
  const line = (k: string, train: string | number, test: string | number, total: string | number) =>
    `${k.padEnd(w)}  ${String(train).padStart(6)}  ${String(test).padStart(6)}  ${String(total).padStart(6)}`;
  return [
    line(title.toUpperCase(), "train", "test", "total"),
    ...rows.map(([k, v]) => line(k, v.train ?? 0, v.test ?? 0, (v.train ?? 0) + (v.test ?? 0))),
  ].join("\n");
}

export function formatCounts(c: ScenarioCounts): string {
  const parts = [
    table("split", [["all", c.split]]),
    table("difficulty", Object.entries(c.difficulty).sort(([a], [b]) => Number(a) - Number(b))),
    table("tool", Object.entries(c.tool).sort(([a], [b]) => a.localeCompare(b))),
    `${c.total} scenarios: ${c.withExpected} with an expected outcome, ${c.withReference} with a reference solution, ${c.multiStep} multi-step`,
  ];
  return parts.join("\n\n");
}
