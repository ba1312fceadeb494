/**
 * LLM-written tasks checked on the server. A task's solution (the calls the model wrote) is
 * checked against the tools' schemas and replayed: when a result states the task's expected
 * answer, the calls become its reference solution (tag `verified:replay`); when the calls run but
 * no result states the answer, the task is dropped (the model's answer, or its reading of the
 * tools, is wrong). A task without a solution or an expected answer, or whose calls are invalid
 * or fail, stays as written: unverified. Tools that change state are replayed only with
 * `allowWrites` (each such task on its own server instance).
 */
import type { Toolbox } from "../../mcp/types.js";
import { ArgumentValidator } from "../../mcp/validate.js";
import { replayScenario } from "../replay.js";
import type { ReferenceCall, Scenario } from "../schema.js";
import { isReadOnlyTool } from "../verified/generic.js";
import type { LlmSolution } from "./generate.js";

export interface LlmCheckReport {
  /** the tasks kept, the confirmed ones with their reference solution */
  scenarios: Scenario[];
  confirmed: number;
  /** dropped: the calls ran, and no result states the expected answer */
  dropped: Array<{ id: string; detail: string }>;
  /** kept unverified: a solution that could not be replayed, and why */
  unreplayed: Array<{ id: string; why: string }>;
}

export async function checkLlmScenarios(
  scenarios: readonly Scenario[],
  solutions: ReadonlyMap<string, LlmSolution>,
  toolbox: Toolbox,
  o: { allowWrites?: boolean; timeoutMs?: number } = {},
): Promise<LlmCheckReport> {
  const validator = new ArgumentValidator();
  const report: LlmCheckReport = { scenarios: [], confirmed: 0, dropped: [], unreplayed: [] };
  for (const scenario of scenarios) {
    const solution = solutions.get(scenario.id);
    const keep = (why?: string) => {
      report.scenarios.push(scenario);
      if (why) report.unreplayed.push({ id: scenario.id, why });
    };
    if (!solution) {
      keep();
      continue;
    }
    if ("problem" in solution) {
      keep(solution.problem);
      continue;
    }
    const answerChecks = scenario.expected?.length ? scenario.expected : undefined;
    if (!answerChecks || !solution.answer) {
      keep("no expected answer to check");
      continue;
    }
    const problem = callProblem(solution.calls, toolbox, validator, o.allowWrites === true);
    if (problem) {
      keep(problem);
      continue;
    }
    const writes = solution.calls.some((c) => !isReadOnlyTool(toolbox.tools.find((t) => t.name === c.name)!));
    const box = writes ? await toolbox.isolated() : toolbox;
    try {
      const reference = { calls: solution.calls, answer: solution.answer };
      const r = await replayScenario(box, { expected: answerChecks, reference }, { timeoutMs: o.timeoutMs });
      if (r.pass) {
        report.confirmed++;
        report.scenarios.push({ ...scenario, tags: [...scenario.tags, "verified:replay"], reference });
      } else if (/^reference call \d+/.test(r.detail)) keep(r.detail);
      else report.dropped.push({ id: scenario.id, detail: r.detail });
    } finally {
      if (box !== toolbox) await box.close().catch(() => undefined);
    }
  }
  return report;
}

/** Why the calls cannot be replayed: a tool the server lacks, arguments its schema refuses, a
 *  tool that changes state (without allowWrites); undefined when they can. */
function callProblem(calls: readonly ReferenceCall[], toolbox: Toolbox, validator: ArgumentValidator, allowWrites: boolean): string | undefined {
  for (const [i, c] of calls.entries()) {
    const tool = toolbox.tools.find((t) => t.name === c.name);
    if (!tool) return `call ${i + 1}: the server has no tool ${c.name}`;
    const check = validator.check(c.name, tool.inputSchema, c.arguments);
    if (!check.ok) return `call ${i + 1} (${c.name}): ${check.message}`;
    if (!allowWrites && !isReadOnlyTool(tool)) return `call ${i + 1} (${c.name}) changes state: --allow-writes replays it`;
  }
  return undefined;
}
