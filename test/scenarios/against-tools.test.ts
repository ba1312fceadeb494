/**
 * A scenario read against its server's tools: a reference call's arguments are checked by the
 * tool's schema, and an undeclared argument one typo away from a declared one is named, also
 * where the schema lets undeclared arguments through.
 */
import { describe, expect, it } from "vitest";
import type { ToolSpec } from "../../src/mcp/types.js";
import { problemsAgainstTools } from "../../src/scenarios/against-tools.js";
import { ScenarioSchema, type Scenario } from "../../src/scenarios/schema.js";

const calc: ToolSpec = { name: "calculate", description: "", inputSchema: { type: "object", properties: { expression: { type: "string" }, precision: { type: "integer" } }, required: [] } } as ToolSpec;
const scenario = (args: Record<string, unknown>): Scenario =>
  ({ id: "s", task: "t", difficulty: 1, split: "train", tags: [], reference: { calls: [{ name: "calculate", arguments: args }], answer: "4" } }) as Scenario;

describe("problemsAgainstTools", () => {
  it("names an argument one typo from a declared one, not other undeclared ones", () => {
    expect(problemsAgainstTools(scenario({ expresion: "2+2" }), [calc])).toEqual([
      { field: "reference.calls[0].arguments.expresion", message: 'calculate takes no argument "expresion" (did you mean "expression"?)' },
    ]);
    expect(problemsAgainstTools(scenario({ expression: "2+2", trace_id: "abc" }), [calc])).toEqual([]);
    expect(problemsAgainstTools(scenario({ expression: "2+2", precision: 3 }), [calc])).toEqual([]);
  });

  it("checks setup calls like reference calls; an empty or failing setup is no setup", () => {
    const withSetup = { ...scenario({ expression: "2+2" }), setup: [{ name: "calcuate", arguments: {} }, { name: "calculate", arguments: { precision: "two" } }] } as Scenario;
    const problems = problemsAgainstTools(withSetup, [calc]);
    expect(problems.map((p) => p.field)).toEqual(["setup[0].name", "setup[1].arguments"]);
    expect(problems[0].message).toMatch(/the server has no tool "calcuate"/);
    const base = { id: "s", task: "t", difficulty: 1, split: "train" };
    expect(ScenarioSchema.safeParse({ ...base, setup: [] }).error?.issues[0]).toMatchObject({ path: ["setup"], message: expect.stringContaining("sets nothing up") });
    expect(ScenarioSchema.safeParse({ ...base, setup: [{ name: "calculate", arguments: {}, error: true }] }).error?.issues[0].message).toMatch(/must succeed/);
    expect(ScenarioSchema.parse({ ...base, setup: [{ name: "calculate", arguments: { expression: "1" } }] }).setup).toHaveLength(1);
  });
});
