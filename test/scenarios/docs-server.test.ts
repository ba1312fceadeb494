/**
 * A documentation server (@primevue/mcp's shape, test/servers/component-docs.ts). Before, its
 * `search {query, limit}` matched the knowledge fixture's signature, so the knowledge recipes
 * took the tool from the generic ones and failed on every attempt: 100 tasks, none searching.
 * And a batch read given names where it takes objects answered item by item with an error,
 * which became tasks asking for "the first result status" ("error") or the "total" (the number
 * of names the task itself gave).
 * And a reader of documents in batches (@sylphx/pdf-reader-mcp's read_pdf {sources: [{path?,
 * url?}]}, test/servers/pdf-batch.ts): its sources' items require nothing, so one was often `{}`,
 * whose failed item ("unknown source") was the only thing asked about; a source read well held
 * its fields too deep to be asked (results → item → data → info → Title).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ToolSpec } from "../../src/mcp/types.js";
import { readScenarioFile } from "../../src/scenarios/io.js";
import { answerFields } from "../../src/scenarios/verified/generic.js";
import { oneOfBatch, reportsFailure } from "../../src/scenarios/verified/recipe.js";
import { applicableFixtureRecipes } from "../../src/scenarios/verified/registry.js";
import { stdioTarget } from "../servers/launch.js";
import { cli } from "../train/helpers.js";

const SERVER = stdioTarget("component-docs");
const dir = mkdtempSync(join(tmpdir(), "component-docs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const json = (o: object) => ({ text: JSON.stringify(o), structuredContent: o as Record<string, unknown>, isError: false, truncated: false });

describe("a documentation server", () => {
  it("gets a fixture's recipes only when it is that fixture (by the name it gives itself)", () => {
    const search: ToolSpec = { name: "search", description: "Search the docs.", inputSchema: { type: "object", properties: { query: { type: "string" }, limit: { type: "integer" } } } };
    const getFact: ToolSpec = { name: "get_fact", description: "", inputSchema: { type: "object", properties: { id: { type: "string" } } } };
    const knowledge = (name?: string) => applicableFixtureRecipes([search, getFact], name).filter((r) => r.id.startsWith("knowledge."));
    expect(knowledge("knowledge").length).toBeGreaterThan(0);
    expect(knowledge(undefined).length).toBeGreaterThan(0);
    expect(knowledge("component-docs")).toEqual([]);
  });

  it("takes a batch reply in which every item failed for a failure, and one with a success for an answer", () => {
    const failed = { total: 1, succeeded: 0, failed: 1, results: [{ index: 0, status: "error", error: "Invalid component item" }] };
    expect(reportsFailure(json(failed))).toBe(true);
    expect(reportsFailure(json({ ...failed, results: [...failed.results, { index: 1, status: "success", component: { name: "Tag" } }] }))).toBe(false);
    // a list of builds that failed is data: a status among a thing's fields, no error beside it
    expect(reportsFailure(json({ builds: [{ id: 7, status: "failed", branch: "main", reason: "tests" }] }))).toBe(false);
    expect(reportsFailure(json({ items: [{ success: false, error: "x" }, { ok: false, error: "y", path: "a" }] }))).toBe(true);
    // a health check's failed services, a validator's invalid files: what was asked, not a failed call
    expect(reportsFailure(json({ checks: [{ name: "db", status: "error", error: "connection refused" }] }))).toBe(false);
    expect(reportsFailure(json({ results: [{ file: "a.json", valid: false, status: "invalid", errors: ["x"] }] }))).toBe(false);
  });

  it("asks no count of the things the call was given", () => {
    const reply = json({ total: 2, items: [{ title: "Tag", route: "tag-page" }, { title: "Toast", route: "toast-page" }] });
    expect(answerFields(reply, { components: ["Tag", "Toast"] }).map((f) => f.label)).not.toContain("total");
    expect(answerFields(reply, { components: ["Tag", "Toast"] }).map((f) => f.value)).toContain("tag-page");
    // the same count, when the call asked for no list, is the server's to tell
    expect(answerFields(reply, { kind: "components" }).find((f) => f.label === "total")?.value).toBe(2);
  });

  it("builds search tasks on what the server lists, and none on a failed batch or a count the task gives", async () => {
    const out = join(dir, "docs.jsonl");
    const g = await cli(["scenarios", "generate", "--server", SERVER, "--n", "24", "--accept-fewer", "--out", out]);
    expect(g.code, g.stderr).toBe(0);
    expect(g.stderr).not.toMatch(/knowledge\./);
    const scenarios = readScenarioFile(out);
    expect(scenarios.length).toBeGreaterThanOrEqual(12);
    const searches = scenarios.filter((s) => s.reference!.calls.some((c) => c.name === "search"));
    expect(searches.length).toBeGreaterThanOrEqual(3);
    // searched for something the server holds: a component's name, or everything
    for (const s of searches) expect(String(s.reference!.calls[0].arguments.query)).toMatch(/^(\*|Accordion|Dialog|ConfirmDialog|Toast|Tag|FileUpload|Installation)$/);
    for (const s of scenarios) {
      expect(JSON.stringify(s.expected)).not.toMatch(/"error"|Invalid component/);
      const given = s.reference!.calls.flatMap((c) => Object.values(c.arguments).filter(Array.isArray).map((l) => l.length));
      for (const e of s.expected ?? []) if (e.kind === "numeric" && /\btotal\b/.test(s.task)) expect(given).not.toContain(e.value);
    }
    const check = await cli(["scenarios", "check", "--server", SERVER, "--fresh", out]);
    expect(check.code, check.stderr + check.stdout).toBe(0);
    expect(check.stdout + check.stderr).toContain(`${scenarios.length} ok, 0 failing`);
  }, 180_000);
});

describe("a reader of documents in batches", () => {
  const PDF = stdioTarget("pdf-batch");

  it("reads one item's data out of a batch of one, and nothing out of a failed one", () => {
    const one = { results: [{ source: "inv.pdf", success: true, data: { num_pages: 1, info: { Title: "Invoice 2291" } } }] };
    expect(oneOfBatch(one)).toEqual({ num_pages: 1, info: { Title: "Invoice 2291" } });
    const two = { results: [...one.results, { source: "rep.pdf", success: true, data: { num_pages: 2 } }] };
    expect(oneOfBatch(two)).toBe(two);
    const failed = { results: [{ source: "unknown source", success: false, error: "missing 'path'" }] };
    expect(oneOfBatch(failed)).toBe(failed);
    expect(answerFields(json({ results: [{ source: "unknown source", success: false, error: "x" }, { source: "rep.pdf", success: true, data: { num_pages: 2 } }] }), { sources: [{}, { path: "rep.pdf" }] })).toEqual([]);
    expect(answerFields(json(one), { sources: [{ path: "inv.pdf" }] }).map((f) => [f.label, f.value])).toContainEqual(["info title", "Invoice 2291"]);
  });

  it("names a document in every source, and asks what the documents hold", async () => {
    const docs = join(dir, "pdfs");
    mkdirSync(docs);
    writeFileSync(join(docs, "inv.pdf"), "Invoice 2291\nBilled to: Harbor Tea Company\nTotal due: 450.50 EUR\n");
    writeFileSync(join(docs, "rep.pdf"), "Field report: Marsh survey\nSurveyor: Lena Okafor\fWeather: light rain\n");
    const out = join(dir, "pdf.jsonl");
    const g = await cli(["scenarios", "generate", "--server", PDF, "--template-dir", docs, "--value", "path=inv.pdf", "--value", "path=rep.pdf", "--n", "8", "--accept-fewer", "--out", out]);
    expect(g.code, g.stderr).toBe(0);
    const scenarios = readScenarioFile(out);
    expect(scenarios.length).toBeGreaterThanOrEqual(6);
    for (const s of scenarios) {
      const sources = s.reference!.calls[0].arguments.sources as Array<Record<string, unknown>>;
      for (const source of sources) expect(Object.keys(source).length, s.task).toBeGreaterThan(0);
      expect(JSON.stringify(s.expected)).not.toMatch(/unknown source|Failed to process/);
    }
    const values = scenarios.flatMap((s) => (s.expected ?? []).map((e) => ("value" in e ? e.value : undefined)));
    expect(values.some((v) => v === "Invoice 2291" || v === "Field report: Marsh survey" || v === 2)).toBe(true);
    const check = await cli(["scenarios", "check", "--server", PDF, "--template-dir", docs, "--fresh", out]);
    expect(check.code, check.stderr + check.stdout).toBe(0);
    expect(check.stdout + check.stderr).toContain(`${scenarios.length} ok, 0 failing`);
  });
});
