/**
 * A scenario read against its server's tools: a reference call's arguments are checked by the
 * tool's schema, and an undeclared argument one typo away from a declared one is named, also
 * where the schema lets undeclared arguments through.
 */
import { describe, expect, it } from "vitest";
import type { ToolSpec } from "../../src/mcp/types.js";
import { problemsAgainstTools } from "../../src/scenarios/against-tools.js";
import type { Scenario } from "../../src/scenarios/schema.js";

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
});
