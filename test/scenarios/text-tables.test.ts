/**
 * A catalogue that answers in text (@accesslint/mcp's shape, test/servers/rule-catalog.ts): its
 * listing is a Markdown table without outer pipes, and one rule's details are "Key: value"
 * lines. Before, neither gave a question (list_rules: 0 built of 16 attempts), nothing filed the
 * table's IDs, so explain_rule was called with made-up ones ("Unknown rule \"harbor\""), and
 * "No rules match the specified filters." was taken for an answer.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readScenarioFile } from "../../src/scenarios/io.js";
import { answerFields } from "../../src/scenarios/verified/generic.js";
import { ValuePool } from "../../src/scenarios/verified/harvest.js";
import { markdownTableCells, markdownTables } from "../../src/scenarios/verified/markdown-table.js";
import { answerSentence, isUseful, verbFor } from "../../src/scenarios/verified/recipe.js";
import { RULES } from "../servers/rule-catalog.js";
import { stdioTarget } from "../servers/launch.js";
import { cli } from "../train/helpers.js";

const SERVER = stdioTarget("rule-catalog");
const dir = mkdtempSync(join(tmpdir(), "rule-catalog-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const text = (t: string) => ({ text: t, isError: false, truncated: false });

describe("Markdown tables in a text reply", () => {
  it("reads pipe tables with and without outer pipes, aligned columns and escaped pipes", () => {
    expect(markdownTables("3 rules:\n  ID  |  Level\n  ---|---\n  a/b  |  AA\n  c/d  |  A")).toEqual([[["ID", "Level"], ["a/b", "AA"], ["c/d", "A"]]]);
    expect(markdownTables("| Name | Qty |\n|:-----|----:|\n| Rye \\| dark | 4 |\n\nAfter the table.")).toEqual([[["Name", "Qty"], ["Rye | dark", "4"]]]);
    // two tables, each its own
    expect(markdownTables("| a | b |\n|---|---|\n| 1 | 2 |\n\n| c | d |\n|---|---|\n| 3 | 4 |")).toHaveLength(2);
    // a rule under a line of text, a row of dashes of another width, a header alone: no table
    expect(markdownTables("Totals | so far\n---\nnext")).toEqual([]);
    expect(markdownTables("| a | b | c |\n|---|---|\n| 1 | 2 | 3 |")).toEqual([]);
    expect(markdownTables("| a | b |\n|---|---|")).toEqual([]);
  });

  it("asks each cell of a row named once, by its column, and never a label two tables answer differently", () => {
    const listing = "2 rules:\n  ID  |  Description  |  Level\n  ---|---|---\n  a/alt  |  Images need text.  |  AA\n  b/lang  |  Pages need a lang.  |  AAA";
    expect(markdownTableCells(listing).map((c) => `${c.column} for ${c.row}: ${c.value}`)).toEqual(["Description for a/alt: Images need text.", "Level for a/alt: AA", "Description for b/lang: Pages need a lang.", "Level for b/lang: AAA"]);
    expect(answerFields(text(listing)).map((f) => f.label)).toContain('Level for the ID "b/lang"');
    const twice = "| ID | Level |\n|---|---|\n| a | AA |\n\n| ID | Level |\n|---|---|\n| a | AAA |\n| b | AA |";
    expect(answerFields(text(twice)).map((f) => f.label)).toEqual(['Level for the ID "b"']);
  });

  it("files each row's cells by column, so a later call takes a real ID", () => {
    const pool = new ValuePool();
    pool.harvest("list_rules", text("2 rules:\n  ID  |  Level\n  ---|---\n  a/alt  |  AA\n  b/lang  |  A"));
    expect(pool.lookup("id")).toEqual(["a/alt", "b/lang"]);
    expect(pool.recordsWith(["ID", "Level"]).map((r) => r.fields.ID)).toEqual(["a/alt", "b/lang"]);
  });

  it("asks a record printed a field a line by its keys, acronyms kept, and takes 'No rules match' for an empty answer", () => {
    const details = "a/alt\n  Description: Images need text.\n  WCAG: 1.1.1\n  Level: AA\n  ACT rules: 23a2a8\n\n  Guidance: Write what the image shows, in a sentence or two, for a reader who cannot see it.";
    const fields = answerFields(text(details), { id: "a/alt" });
    expect(fields.map((f) => [f.label, f.value])).toEqual([["description", "Images need text."], ["WCAG", "1.1.1"], ["level", "AA"], ["ACT rules", "23a2a8"]]);
    expect(isUseful(text("No rules match the specified filters."))).toBe(false);
    expect(isUseful(text("No documents were found."))).toBe(false);
    expect(isUseful(text("3 rules match the filters."))).toBe(true);
  });

  it("says 'are' of a plural label, 'is' of the rest", () => {
    expect(answerSentence("ACT rules", "23a2a8")).toBe("The ACT rules are 23a2a8.");
    expect(answerSentence("tags", "page-level")).toBe("The tags are page-level.");
    for (const singular of ["status", "address", "analysis", "count of items", "Level for the ID \"a/alt\"", "WCAG", "total"]) expect(verbFor(singular)).toBe("is");
  });

  it("builds list and explain tasks on a catalogue that answers in text, each replayed on a fresh server", async () => {
    const out = join(dir, "rules.jsonl");
    const g = await cli(["scenarios", "generate", "--server", SERVER, "--n", "16", "--accept-fewer", "--out", out]);
    expect(g.code, g.stderr).toBe(0);
    const scenarios = readScenarioFile(out);
    expect(scenarios.length).toBeGreaterThanOrEqual(10);
    const explains = scenarios.filter((s) => s.reference!.calls.some((c) => c.name === "explain_rule"));
    const lists = scenarios.filter((s) => s.reference!.calls.some((c) => c.name === "list_rules"));
    expect(explains.length).toBeGreaterThanOrEqual(3);
    expect(lists.length).toBeGreaterThanOrEqual(3);
    for (const s of scenarios) {
      expect(JSON.stringify(s.expected)).not.toMatch(/No rules match|Unknown rule/);
      for (const c of s.reference!.calls.filter((c) => c.name === "explain_rule")) {
        // an ID the listing showed, and an answer the rule's own line holds
        const rule = RULES.find((r) => r.id === c.arguments.id);
        expect(rule, String(c.arguments.id)).toBeDefined();
        const answer = String((s.expected![0] as { value: unknown }).value);
        expect([rule!.description, rule!.wcag, rule!.level, rule!.fixability, rule!.act, rule!.tags]).toContain(answer);
      }
    }
    const check = await cli(["scenarios", "check", "--server", SERVER, "--fresh", out]);
    expect(check.code, check.stderr + check.stdout).toBe(0);
    expect(check.stdout + check.stderr).toContain(`${scenarios.length} ok, 0 failing`);
  }, 180_000);
});
