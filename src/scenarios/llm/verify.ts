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

/** What one task's check found: confirmed (with its reference), kept unverified (and why), or contradicted. */
export type LlmTaskCheck =
  | { kind: "confirmed"; scenario: Scenario }
  | { kind: "kept"; scenario: Scenario; why?: string }
  | { kind: "dropped"; detail: string };

export interface LlmCheckOptions {
  allowWrites?: boolean;
  timeoutMs?: number;
}

export async function checkLlmScenarios(
  scenarios: readonly Scenario[],
  solutions: ReadonlyMap<string, LlmSolution>,
  toolbox: Toolbox,
  o: LlmCheckOptions = {},
): Promise<LlmCheckReport> {
  const checker = new LlmTaskChecker(toolbox, o);
  for (const scenario of scenarios) await checker.check(scenario, solutions.get(scenario.id));
  return checker.report;
}

/** Checks tasks one at a time (the generator asks for more when one is contradicted), keeping the tally. */
export class LlmTaskChecker {
  readonly report: LlmCheckReport = { scenarios: [], confirmed: 0, dropped: [], unreplayed: [] };
  private readonly validator = new ArgumentValidator();

  constructor(
    private readonly toolbox: Toolbox,
    private readonly o: LlmCheckOptions = {},
  ) {}

  async check(scenario: Scenario, solution: LlmSolution | undefined): Promise<LlmTaskCheck> {
    const r = await this.checkOne(scenario, solution);
    if (r.kind === "dropped") this.report.dropped.push({ id: scenario.id, detail: r.detail });
    else {
      this.report.scenarios.push(r.scenario);
      if (r.kind === "confirmed") this.report.confirmed++;
      else if (r.why) this.report.unreplayed.push({ id: scenario.id, why: r.why });
    }
    return r;
  }

  private async checkOne(scenario: Scenario, solution: LlmSolution | undefined): Promise<LlmTaskCheck> {
    if (!solution) return { kind: "kept", scenario };
    if ("problem" in solution) return { kind: "kept", scenario, why: solution.problem };
    const answerChecks = scenario.expected?.length ? scenario.expected : undefined;
    if (!answerChecks || !solution.answer) return { kind: "kept", scenario, why: "no expected answer to check" };
    const problem = callProblem(solution.calls, this.toolbox, this.validator, this.o.allowWrites === true);
    if (problem) return { kind: "kept", scenario, why: problem };
    const writes = solution.calls.some((c) => !isReadOnlyTool(this.toolbox.tools.find((t) => t.name === c.name)!));
    const box = writes ? await this.toolbox.isolated() : this.toolbox;
    try {
      const reference = { calls: solution.calls, answer: solution.answer };
      const r = await replayScenario(box, { expected: answerChecks, reference }, { timeoutMs: this.o.timeoutMs });
      if (r.pass) return { kind: "confirmed", scenario: { ...scenario, tags: [...scenario.tags, "verified:replay"], reference } };
      if (/^reference call \d+/.test(r.detail)) return { kind: "kept", scenario, why: r.detail };
      return { kind: "dropped", detail: r.detail };
    } finally {
      if (box !== this.toolbox) await box.close().catch(() => undefined);
    }
  }
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
