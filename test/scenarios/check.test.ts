/**
 * Expected-outcome checks (shared with the rewards stage): every answer-check kind, the number
 * reader behind the numeric check, and near-duplicate detection.
 */
import { describe, expect, it } from "vitest";
import { checkAnswer, parseJsonLoose, runStateCheck } from "../../src/scenarios/check.js";
import type { ToolResult } from "../../src/mcp/types.js";
import { jaccard, NearDuplicateFilter, taskTokens } from "../../src/scenarios/dedupe.js";
import { extractNumbers } from "../../src/scenarios/numbers.js";

const numeric = (value: number, tolerance = 1e-6, relTolerance = 0) => ({ kind: "numeric" as const, value, tolerance, relTolerance });

describe("extractNumbers", () => {
  it("reads thousands separators, signs, decimals, exponents and scale words", () => {
    expect(extractNumbers("The total is $1,234,567.89.")).toEqual([1234567.89]);
    expect(extractNumbers("-3 and −7 and +2")).toEqual([-3, -7, 2]);
    expect(extractNumbers("1.5e-7, 2.5E+10, 6.02 × 10^23")).toEqual([1.5e-7, 2.5e10, 6.02e23]);
    expect(extractNumbers("about 34.4 million people")).toEqual([34.4, 34.4e6]);
    expect(extractNumbers(".5 and 45%")).toEqual([0.5, 45]);
  });

  it("does not read commas between short groups as thousands, nor hyphens as signs", () => {
    expect(extractNumbers("1,2,3")).toEqual([1, 2, 3]);
    expect(extractNumbers("12,34")).toEqual([12, 34]);
    expect(extractNumbers("COVID-19")).toEqual([19]);
    expect(extractNumbers("no numbers here")).toEqual([]);
  });

  it("does not read digits that belong to a name, but reads a product written with x", () => {
    expect(extractNumbers("SKU A100 has 40 left")).toEqual([40]);
    expect(extractNumbers("H2O, Q3 and v1.2")).toEqual([]);
    expect(extractNumbers("2x3 = 6")).toEqual([2, 3, 6]);
    expect(extractNumbers("答案是42, 合計は1500円です")).toEqual([42, 1500]); // scripts without spaces between words
    expect(checkAnswer(numeric(100), "A100 has 7 left").pass).toBe(false);
  });
});

describe("checkAnswer", () => {
  it("numeric: any stated number within tolerance", () => {
    expect(checkAnswer(numeric(391), "17 * 23 = 391.").pass).toBe(true);
    expect(checkAnswer(numeric(1234567), "It is 1,234,567").pass).toBe(true);
    expect(checkAnswer(numeric(1157.625, 0.01), "$1,157.63").pass).toBe(true);
    expect(checkAnswer(numeric(0.3333333, 1e-6, 1e-4), "about 0.33333").pass).toBe(true);
    expect(checkAnswer(numeric(-4), "minus: -4").pass).toBe(true);
    const miss = checkAnswer(numeric(392), "17 * 23 = 391");
    expect(miss.pass).toBe(false);
    expect(miss.detail).toBe("expected 392 (±0.000001), found numbers 17, 23, 391");
    expect(checkAnswer(numeric(5), "five").detail).toContain("no number");
    // a relative tolerance is shown without floating-point noise (0.008150000000000001)
    expect(checkAnswer(numeric(81.5, 1e-6, 1e-4), "80.5").detail).toBe("expected 81.5 (±0.00815), found numbers 80.5");
  });

  it("exact: trimmed, case-insensitive by default, a final full stop ignored", () => {
    expect(checkAnswer({ kind: "exact", value: "Lima", caseSensitive: false }, "  lima. ").pass).toBe(true);
    expect(checkAnswer({ kind: "exact", value: "Lima", caseSensitive: true }, "lima").pass).toBe(false);
    expect(checkAnswer({ kind: "exact", value: "Lima", caseSensitive: false }, "The capital is Lima").pass).toBe(false);
  });

  it("contains and exact: dashes and quotes of any typography are the same", () => {
    expect(checkAnswer({ kind: "contains", value: "Everything Server \u2013 Architecture", caseSensitive: false }, "It is the Everything Server - Architecture doc.").pass).toBe(true);
    expect(checkAnswer({ kind: "exact", value: "it's", caseSensitive: false }, "It\u2019s").pass).toBe(true);
    expect(checkAnswer({ kind: "contains", value: "a-b", caseSensitive: false }, "a b").pass).toBe(false);
  });
  it("contains and regex", () => {
    expect(checkAnswer({ kind: "contains", value: "new  delhi", caseSensitive: false }, "The capital is New Delhi.").pass).toBe(true);
    expect(checkAnswer({ kind: "contains", value: "Paris", caseSensitive: false }, "London").pass).toBe(false);
    // a whole word or number, not part of a longer one
    const has = (value: string, text: string) => checkAnswer({ kind: "contains", value, caseSensitive: false }, text).pass;
    expect(has("total 7", "The total 73 came up.")).toBe(false);
    expect(has("total 7", "I rolled total 7.")).toBe(true);
    expect(has("Paris", "a Parisian cafe")).toBe(false);
    expect(has("Paris", "It is (Paris), of course")).toBe(true);
    expect(has("3", "about 3.5")).toBe(false);
    expect(has("3", "3, then 4")).toBe(true);
    expect(has("8 16 24", "x: 8 16 24 and 8 16 245")).toBe(true);
    expect(has("-5 °C", "it was x-5 °C today")).toBe(true);
    expect(has("cairo", "Cairo's weather")).toBe(true);
    expect(checkAnswer({ kind: "regex", pattern: "\\bFe\\b", flags: "" }, "Iron is Fe.").pass).toBe(true);
    expect(checkAnswer({ kind: "regex", pattern: "\\bFe\\b", flags: "" }, "iron fell").pass).toBe(false);
    const bad = checkAnswer({ kind: "regex", pattern: "(", flags: "" }, "x");
    expect(bad).toMatchObject({ pass: false });
    expect(bad.detail).toMatch(/invalid regex/);
  });

  it("not_contains on a state read cut at the output limit fails: past the cut, anything reads as gone", async () => {
    const read = (truncated: boolean) => ({ call: async (): Promise<ToolResult> => ({ text: `${"x".repeat(50)} Grace Hopper`, isError: false, truncated, content: [] }) as unknown as ToolResult });
    const check = { kind: "state" as const, tool: "read_graph", arguments: {}, expect: { kind: "not_contains" as const, value: "Ada Lovelace", caseSensitive: false } };
    expect((await runStateCheck(read(false), check)).pass).toBe(true);
    const cut = await runStateCheck(read(true), check);
    expect(cut.pass).toBe(false);
    expect(cut.detail).toContain("cut at the output limit");
  });

  it("not_contains: contains' opposite, read the same way (whole words, case and typography aside)", () => {
    const lacks = (value: string, text: string, caseSensitive = false) => checkAnswer({ kind: "not_contains", value, caseSensitive }, text);
    for (const [value, text] of [["total 7", "The total 73 came up."], ["Paris", "a Parisian cafe"], ["3", "about 3.5"], ["Paris", "London"]] as const) {
      expect(lacks(value, text).pass, `${value} in ${text}`).toBe(true);
      expect(checkAnswer({ kind: "contains", value, caseSensitive: false }, text).pass).toBe(false);
    }
    for (const [value, text] of [["total 7", "I rolled total 7."], ["cairo", "Cairo's weather"], ["new  delhi", "New\nDelhi"], ["Server \u2013 Architecture", "Server - Architecture"]] as const) {
      expect(lacks(value, text).pass, `${value} in ${text}`).toBe(false);
      expect(checkAnswer({ kind: "contains", value, caseSensitive: false }, text).pass).toBe(true);
    }
    expect(lacks("Cairo", "cairo", true).pass).toBe(true);
    expect(lacks("Ada Lovelace", '{"entities":[{"name":"Acme Robotics"}]}').detail).toBe('does not contain "Ada Lovelace"');
    // the detail shows where it was found, even far down a long listing
    const listing = `{"entities":[${Array.from({ length: 20 }, (_, i) => `{"name":"entity ${i}"}`).join(",")},{"name":"Ada Lovelace"}]}`;
    const found = lacks("ada lovelace", listing);
    expect(found.pass).toBe(false);
    expect(found.detail).toMatch(/^expected not to contain "ada lovelace", found it in "….*entity 19.*Ada Lovelace/);
  });

  it("json_subset: keys must match, arrays by membership, JSON found inside prose or fences", () => {
    const check = { kind: "json_subset" as const, value: { status: "placed", items: [{ product_id: 501 }] } };
    expect(checkAnswer(check, '{"order_id": 5, "status": "placed", "items": [{"product_id": 7}, {"product_id": 501, "quantity": 2}]}').pass).toBe(true);
    expect(checkAnswer(check, 'Done:\n```json\n{"status": "placed", "items": [{"product_id": 501}]}\n```').pass).toBe(true);
    expect(checkAnswer(check, 'Result {"status": "placed", "items": [{"product_id": 501}]} ok').pass).toBe(true);
    const wrong = checkAnswer(check, '{"status": "cancelled", "items": [{"product_id": 501}]}');
    expect(wrong).toEqual({ pass: false, detail: '$.status: expected "placed", got "cancelled"' });
    expect(checkAnswer(check, '{"status": "placed"}').detail).toBe("$.items: missing");
    expect(checkAnswer(check, "no json").detail).toMatch(/found no JSON/);
  });

  it("parseJsonLoose skips braces that are not JSON", () => {
    expect(parseJsonLoose("f(x) { return 1 } then {\"a\": 1}")).toEqual({ value: { a: 1 } });
    expect(parseJsonLoose("nothing")).toBeUndefined();
  });
});

describe("near-duplicates", () => {
  it("token Jaccard ≥ 0.8 is a duplicate; different numbers are not", () => {
    expect(jaccard(taskTokens("What is the capital of Peru?"), taskTokens("what is the capital of peru"))).toBe(1);
    const f = new NearDuplicateFilter(0.8);
    expect(f.add("What is the capital city of Peru?")).toBe(true);
    expect(f.add("What's the capital city of Peru?")).toBe(true); // "what's" vs "what is": 6/8 < 0.8
    expect(f.add("What is the capital city of Peru")).toBe(false);
    expect(f.add("What is 17 * 23?")).toBe(true);
    expect(f.add("What is 17 * 24?")).toBe(true);
    expect(f.size).toBe(4);
  });
});
