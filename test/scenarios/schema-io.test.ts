/**
 * The scenario file format: the bundled files pass the zod schema; every kind of bad line is
 * reported with its line number and the field at fault; writes are atomic and validated.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BUNDLED_SETS, bundledPath } from "../../src/scenarios/bundled.js";
import { formatProblem, parseScenarioText, readScenarioFile, ScenarioFileError, writeScenarioFile } from "../../src/scenarios/io.js";
import type { ScenarioInput } from "../../src/scenarios/schema.js";

const good = (over: Record<string, unknown> = {}) => JSON.stringify({ id: "a", task: "What is 2 + 2?", difficulty: 1, split: "train", ...over });

function messages(lines: string[]): string[] {
  return parseScenarioText(lines.join("\n")).problems.map((p) => formatProblem("x.jsonl", p));
}

describe("bundled scenario files", () => {
  for (const set of BUNDLED_SETS) {
    it(`scenarios/${set.fixture}.jsonl passes the schema with a train and a test split`, () => {
      const list = readScenarioFile(bundledPath(set.fixture));
      expect(list.length).toBe(set.n);
      const test = list.filter((s) => s.split === "test").length;
      expect(test).toBe(Math.round(set.n * set.testFraction));
      for (const s of list) {
        expect(s.reference?.calls.length).toBeGreaterThan(0);
        expect(s.expected?.length).toBeGreaterThan(0);
        expect(s.server).toBe(`fixture:${set.fixture}`);
      }
    });
  }

  it("the sets the demo trains on have hundreds of scenarios, ≥ 100 held out, mostly easy", () => {
    for (const name of ["calculator", "knowledge", "shop"] as const) {
      const list = readScenarioFile(bundledPath(name));
      expect(list.length).toBeGreaterThanOrEqual(300);
      expect(list.filter((s) => s.split === "test").length).toBeGreaterThanOrEqual(75);
      expect(list.filter((s) => s.difficulty <= 2).length / list.length).toBeGreaterThan(0.5);
      expect(list.some((s) => (s.reference?.calls.length ?? 0) > 1)).toBe(true);
    }
  });
});

describe("bad lines", () => {
  it("names the line and field for a value out of range", () => {
    expect(messages([good(), good({ id: "b", difficulty: 7 })])).toEqual(['x.jsonl:2: field "difficulty": expected number ≤ 5, got 7']);
  });

  it("refuses checks that every answer passes, and blank ids and tasks, naming line and field", () => {
    const out = messages([
      good({ id: "a", expected: [{ kind: "contains", value: " " }] }),
      good({ id: "b", expected: [{ kind: "regex", pattern: "" }] }),
      good({ id: "c", expected: [{ kind: "regex", pattern: "x*" }] }),
      good({ id: "d", expected: [{ kind: "json_subset", value: {} }] }),
      good({ id: "e", expected: [{ kind: "exact", value: "  " }] }),
      good({ id: " " }),
      good({ id: "g", task: "\t" }),
      good({ id: "h", expected: [{ kind: "state", tool: "t", expect: { kind: "contains", value: "" } }] }),
      good({ id: "i", expected: [{ kind: "json_subset" }] }),
    ]);
    expect(out).toEqual([
      'x.jsonl:1: field "expected[0].value": an empty value is in every answer, so every answer would pass, got " "',
      'x.jsonl:2: field "expected[0].pattern": matches the empty string, so every answer would pass, got ""',
      'x.jsonl:3: field "expected[0].pattern": matches the empty string, so every answer would pass, got "x*"',
      'x.jsonl:4: field "expected[0].value": an empty object is in every JSON object answer, so every such answer would pass, got an object',
      'x.jsonl:5: field "expected[0].value": expected a non-empty string, got "  "',
      'x.jsonl:6: field "id": expected a non-empty string, got " "',
      'x.jsonl:7: field "task": expected a non-empty string, got "\\t"',
      'x.jsonl:8: field "expected[0].expect.value": an empty value is in every answer, so every answer would pass, got ""',
      'x.jsonl:9: field "expected[0].value": required: the JSON the answer must contain, got nothing (missing)',
    ]);
    // an ordinary pattern and subset still load
    expect(messages([good({ expected: [{ kind: "regex", pattern: "\\d+" }, { kind: "regex", pattern: "^\\d*$" }, { kind: "json_subset", value: { ok: true } }] })])).toEqual([]);
  });

  it("takes not_contains, in a state check and as an answer check, beside a check of something that must be there", () => {
    const gone = { kind: "state", tool: "read_graph", expect: { kind: "not_contains", value: "Ada Lovelace" } };
    const kept = { kind: "state", tool: "read_graph", expect: { kind: "contains", value: "Acme Robotics" } };
    const parsed = parseScenarioText([good({ expected: [gone, kept] }), good({ id: "b", expected: [{ kind: "contains", value: "4" }, { kind: "not_contains", value: "5" }], reference: { calls: [], answer: "4" } })].join("\n"));
    expect(parsed.problems).toEqual([]);
    expect(parsed.scenarios[0].expected?.[0]).toEqual({ ...gone, arguments: {}, expect: { ...gone.expect, caseSensitive: false } });
    const out = messages([
      good({ id: "a", expected: [{ ...gone, expect: { kind: "not_contains", value: " " } }, kept] }),
      good({ id: "b", expected: [gone] }),
      good({ id: "c", expected: [{ kind: "not_contains", value: "5" }, gone] }),
      good({ id: "d", expected: [{ kind: "not_contains", value: "x", case_sensitive: true }, kept] }),
      good({ id: "e", expected: [{ kind: "contains", value: "4" }, { kind: "not_contains", value: "5" }], reference: { calls: [], answer: "4 or 5" } }),
    ]);
    expect(out).toEqual([
      'x.jsonl:1: field "expected[0].expect.value": an empty value is in every answer, so no answer would pass, got " "',
      'x.jsonl:2: field "expected": not_contains checks alone pass for an empty answer or an emptied server: add a check of something that must be there, got an array',
      'x.jsonl:3: field "expected": not_contains checks alone pass for an empty answer or an emptied server: add a check of something that must be there, got an array',
      'x.jsonl:4: field "expected[0].case_sensitive": unknown field',
      'x.jsonl:5: field "reference.answer": fails its own check expected[1]: expected not to contain "5", found it in "4 or 5"',
    ]);
  });

  it("refuses an empty expected list (it would pass every answer), naming the line", () => {
    const out = messages([good(), good({ id: "b", expected: [] })]);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^x\.jsonl:2: field "expected": .*an empty list checks nothing/);
  });

  it("reports every bad line, not just the first", () => {
    const out = messages([
      good({ difficulty: 2.5 }),
      good({ id: "b", split: "dev" }),
      good({ id: "c", task: "" }),
      "{not json",
      "[1, 2]",
      good({ id: "d", expected: [{ kind: "numerc", value: 3 }] }),
      good({ id: "e", expected: [{ kind: "numeric", value: "3" }] }),
      good({ id: "f", expected: [{ kind: "state", tool: "get_order", expect: { kind: "regex" } }] }),
      good({ id: "g", reference: { calls: [{ name: 1, arguments: {} }], answer: "x" } }),
      good({ id: "h", expect: [] }),
      JSON.stringify({ task: "no id", difficulty: 1, split: "train" }),
      good({ id: "b" }),
    ]);
    expect(out).toEqual([
      'x.jsonl:1: field "difficulty": expected integer, got 2.5',
      'x.jsonl:2: field "split": expected one of "train" | "test", got "dev"',
      'x.jsonl:3: field "task": expected a non-empty string, got ""',
      expect.stringMatching(/^x\.jsonl:4: invalid JSON: /),
      "x.jsonl:5: expected a JSON object, got an array",
      'x.jsonl:6: field "expected[0].kind": expected one of "exact" | "numeric" | "contains" | "not_contains" | "regex" | "json_subset" | "state", got "numerc"',
      'x.jsonl:7: field "expected[0].value": expected number, got "3"',
      'x.jsonl:8: field "expected[0].expect.pattern": required string is missing',
      'x.jsonl:9: field "reference.calls[0].name": expected string, got 1',
      expect.stringMatching(/^x\.jsonl:10: field "expect": unknown field/),
      'x.jsonl:11: field "id": required string is missing',
      'x.jsonl:12: field "id": duplicate id "b" (first on line 2)',
    ]);
  });

  it("names a misspelt key inside a check and a regex that does not compile", () => {
    const out = messages([
      good({ expected: [{ kind: "exact", value: "x", case_sensitive: true }] }),
      good({ id: "b", expected: [{ kind: "regex", pattern: "(" }] }),
      good({ id: "c", expected: [{ kind: "regex", pattern: "a", flags: "zz" }] }),
      good({ id: "d", reference: { calls: [{ name: "f", arguments: {}, args: {} }], answer: "x" } }),
    ]);
    expect(out).toHaveLength(4);
    expect(out[0]).toBe('x.jsonl:1: field "expected[0].case_sensitive": unknown field');
    expect(out[1]).toMatch(/^x\.jsonl:2: field "expected\[0\]\.pattern": Invalid regular expression/);
    expect(out[2]).toMatch(/^x\.jsonl:3: field "expected\[0\]\.flags": Invalid flags/);
    expect(out[3]).toBe('x.jsonl:4: field "reference.calls[0].args": unknown field');
  });

  it("skips blank lines but keeps counting them", () => {
    expect(messages(["", good(), "   ", good({ id: "z", difficulty: 0 })])).toEqual(['x.jsonl:4: field "difficulty": expected number ≥ 1, got 0']);
  });

  it("readScenarioFile throws one error listing every problem", () => {
    const dir = mkdtempSync(join(tmpdir(), "scen-"));
    const file = join(dir, "bad.jsonl");
    writeFileSync(file, [good(), good({ id: "b", difficulty: 9 }), "oops"].join("\n"));
    let err: unknown;
    try {
      readScenarioFile(file);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ScenarioFileError);
    const e = err as ScenarioFileError;
    expect(e.code).toBe("ScenarioInvalid");
    expect(e.problems.map((p) => p.line)).toEqual([2, 3]);
    expect(e.message).toContain(`${file}:2: field "difficulty"`);
    // one problem: the message is its one line
    writeFileSync(file, [good(), "oops"].join("\n"));
    expect(() => readScenarioFile(file)).toThrow(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:2: invalid JSON: [^\n]*$`));
  });
});

describe("writeScenarioFile", () => {
  const scenarios: ScenarioInput[] = [
    { id: "a", task: "What is 2 + 2?", difficulty: 1, split: "train", expected: [{ kind: "numeric", value: 4 }], reference: { calls: [{ name: "calculate", arguments: { expression: "2 + 2" } }], answer: "4" } },
    { id: "b", task: "What is 3 + 3?", difficulty: 1, split: "test" },
  ];

  it("round-trips, with defaults filled in", () => {
    const dir = mkdtempSync(join(tmpdir(), "scen-"));
    const file = join(dir, "sub", "out.jsonl");
    writeScenarioFile(file, scenarios);
    const back = readScenarioFile(file);
    expect(back.map((s) => s.id)).toEqual(["a", "b"]);
    expect(back[0].expected?.[0]).toEqual({ kind: "numeric", value: 4, tolerance: 1e-6, relTolerance: 0 });
    expect(back[1].tags).toEqual([]);
    expect(readdirSync(join(dir, "sub"))).toEqual(["out.jsonl"]); // no temp file left behind
  });

  it("refuses invalid scenarios and leaves an existing file untouched", () => {
    const dir = mkdtempSync(join(tmpdir(), "scen-"));
    const file = join(dir, "out.jsonl");
    writeScenarioFile(file, scenarios);
    const before = readFileSync(file, "utf8");
    expect(() => writeScenarioFile(file, [...scenarios, { ...scenarios[0] }])).toThrow(/duplicate id "a"/);
    expect(() => writeScenarioFile(join(dir, "new.jsonl"), [{ id: "x", task: "t", difficulty: 9, split: "train" }])).toThrow();
    expect(readFileSync(file, "utf8")).toBe(before);
    expect(existsSync(join(dir, "new.jsonl"))).toBe(false);
    expect(readdirSync(dir)).toEqual(["out.jsonl"]);
  });
});
