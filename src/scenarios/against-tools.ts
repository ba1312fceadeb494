/**
 * A scenario read against the tools of the server it plays on: a state check or reference call
 * that names a tool the server does not have, or arguments its input schema refuses, can never
 * work — the state check fails on every rollout, the reference teaches a call that fails — so
 * it is bad input, reported like a bad field (file:line: field "expected[1].tool": …).
 */
import { resourceToolHint } from "../mcp/resource-tools.js";
import type { ToolSpec } from "../mcp/types.js";
import { ArgumentValidator } from "../mcp/validate.js";
import { closestName } from "../closest-name.js";
import type { Scenario } from "./schema.js";

export interface ToolProblem {
  field: string;
  message: string;
}

export function problemsAgainstTools(s: Scenario, tools: readonly ToolSpec[], validator = new ArgumentValidator(), leftOut: readonly string[] = []): ToolProblem[] {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const problems: ToolProblem[] = [];
  const check = (field: string, name: string, args: unknown) => {
    const tool = byName.get(name);
    if (!tool && leftOut.includes(name)) {
      problems.push({ field: `${field}.${field.startsWith("expected") ? "tool" : "name"}`, message: `the server has ${JSON.stringify(name)}, but --tools / --exclude-tools leave it out of this run` });
      return;
    }
    if (!tool) {
      const known = tools.map((t) => t.name);
      problems.push({ field: `${field}.${field.startsWith("expected") ? "tool" : "name"}`, message: `the server has no tool ${JSON.stringify(name)} (its tools: ${known.slice(0, 12).join(", ")}${known.length > 12 ? ", …" : ""})${resourceToolHint(name, false)}` });
      return;
    }
    const r = validator.check(name, tool.inputSchema, args);
    if (!r.ok) {
      problems.push({ field: `${field}.arguments`, message: `${name} refuses these arguments: ${r.message}` });
      return;
    }
    // a schema that lets undeclared arguments through still names the ones it takes: a near miss
    // ("expresion") is a typo the server would ignore or refuse in its own words
    const declared = Object.keys((tool.inputSchema.properties as Record<string, unknown> | undefined) ?? {});
    for (const key of Object.keys(r.args)) {
      if (declared.includes(key)) continue;
      const near = closestName(key, declared);
      if (near) problems.push({ field: `${field}.arguments.${key}`, message: `${name} takes no argument ${JSON.stringify(key)} (did you mean ${JSON.stringify(near)}?)` });
    }
  };
  (s.setup ?? []).forEach((c, i) => check(`setup[${i}]`, c.name, c.arguments));
  (s.expected ?? []).forEach((e, i) => {
    if (e.kind === "state") check(`expected[${i}]`, e.tool, e.arguments);
  });
  (s.reference?.calls ?? []).forEach((c, i) => check(`reference.calls[${i}]`, c.name, c.arguments));
  return problems;
}

/** every tool a scenario has called: its setup, state checks and reference calls */
export function toolsNamedBy(s: Scenario): string[] {
  const names = [...(s.setup ?? []).map((c) => c.name), ...(s.expected ?? []).flatMap((e) => (e.kind === "state" ? [e.tool] : [])), ...(s.reference?.calls ?? []).map((c) => c.name)];
  return [...new Set(names)];
}
