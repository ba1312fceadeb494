/**
 * `--tools` / `--exclude-tools`: the pattern logic (tool-filter.ts) on plain lists, then on real
 * fixture servers through connect() and ServerSet.connect() (a pattern need match on one of
 * several servers), and the CLI's exit code 2 and messages.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { connect, type McpToolbox } from "../../src/mcp/connect.js";
import { applyToolFilter, globToRegExp, splitToolPatterns, toolFilterProblem } from "../../src/mcp/tool-filter.js";
import { ServerSet } from "../../src/train/servers.js";
import { loadScenarios } from "../../src/train/scenario-source.js";
import { problemsAgainstTools } from "../../src/scenarios/against-tools.js";
import { ScenarioSchema } from "../../src/scenarios/schema.js";

const tools = ["git_log", "git_show", "git_status", "git_commit", "git_reset", "git.blame"].map((name) => ({ name }));

describe("tool filter patterns", () => {
  it("keeps what --tools matches, then drops what --exclude-tools matches, in the server's order", () => {
    const f = applyToolFilter(tools, { include: ["git_s*", "git_log"], exclude: ["*_status"] });
    expect(f.kept.map((t) => t.name)).toEqual(["git_log", "git_show"]);
    expect(f.leftOut).toEqual(["git_status", "git_commit", "git_reset", "git.blame"]);
    expect(f.misses).toEqual({ include: [], exclude: [] });
    // no filter: everything; exclusions alone: everything else
    expect(applyToolFilter(tools, undefined).kept).toHaveLength(6);
    expect(applyToolFilter(tools, { exclude: ["git_commit", "git_reset"] }).kept.map((t) => t.name)).toEqual(["git_log", "git_show", "git_status", "git.blame"]);
  });

  it("reads a glob's dot literally and its case as written; ? is one character", () => {
    expect(globToRegExp("git.blame").test("gitXblame")).toBe(false);
    expect(globToRegExp("git.blame").test("git.blame")).toBe(true);
    expect(globToRegExp("GIT_*").test("git_log")).toBe(false);
    expect(globToRegExp("GIT_*", "i").test("git_log")).toBe(true);
    expect(globToRegExp("git_?og").test("git_log")).toBe(true);
    expect(globToRegExp("git_?og").test("git_blog")).toBe(false);
  });

  it("splits comma-separated flag values and drops blanks", () => {
    expect(splitToolPatterns(["a, b", "c*", ","])).toEqual(["a", "b", "c*"]);
    expect(splitToolPatterns(undefined)).toBeUndefined();
  });

  it("names a pattern no server matches, with the nearest name for a plain one, and none for a pattern only another server matches", () => {
    const one = applyToolFilter(tools, { include: ["git_log", "git_shwo"] });
    expect(toolFilterProblem([{ misses: one.misses, allTools: tools.map((t) => t.name) }])).toBe(
      '--tools "git_shwo": no tool of the server matches it (did you mean "git_show"?); its tools: git_log, git_show, git_status, git_commit, git_reset, git.blame',
    );
    const glob = applyToolFilter(tools, { exclude: ["delete_*"] });
    expect(toolFilterProblem([{ misses: glob.misses, allTools: tools.map((t) => t.name) }])).toMatch(/^--exclude-tools "delete_\*": no tool of the server matches it; its tools: /);
    // over two servers, a pattern matched by one of them is fine
    const other = [{ name: "read_file" }, { name: "write_file" }];
    const filter = { include: ["git_*", "read_file"] };
    const a = applyToolFilter(tools, filter);
    const b = applyToolFilter(other, filter);
    expect(a.misses.include).toEqual(["read_file"]);
    expect(b.misses.include).toEqual(["git_*"]);
    expect(toolFilterProblem([a, b].map((x, i) => ({ misses: x.misses, allTools: (i === 0 ? tools : other).map((t) => t.name) })))).toBeUndefined();
    const c = applyToolFilter(other, { include: ["git_*", "red_file"] });
    expect(toolFilterProblem([{ misses: applyToolFilter(tools, { include: ["git_*", "red_file"] }).misses, allTools: tools.map((t) => t.name) }, { misses: c.misses, allTools: other.map((t) => t.name) }])).toMatch(
      /^--tools "red_file": no tool of the servers matches it \(did you mean "read_file"\?\); their tools: /,
    );
  });

  it("applies SERVER:PATTERN to the server of that name only; one naming no server of the run is named", () => {
    const other = [{ name: "read_file" }, { name: "write_file" }];
    const filter = { include: ["git:git_log", "git:git_s*"] };
    const a = applyToolFilter(tools, filter, "git");
    const b = applyToolFilter(other, filter, "filesystem");
    expect(a.kept.map((t) => t.name)).toEqual(["git_log", "git_show", "git_status"]);
    // no pattern is for this server: it keeps every tool (a plain git_* would leave it none)
    expect(b.kept.map((t) => t.name)).toEqual(["read_file", "write_file"]);
    expect(applyToolFilter(other, { include: ["git_*"] }, "filesystem").kept).toEqual([]);
    const reports = [
      { misses: a.misses, allTools: tools.map((t) => t.name), serverName: "git" },
      { misses: b.misses, allTools: other.map((t) => t.name), serverName: "filesystem" },
    ];
    expect(toolFilterProblem(reports)).toBeUndefined();
    // an exclusion for one server, a fixture named as its target is
    expect(applyToolFilter(other, { exclude: ["fixture:filesystem:write_*"] }, "filesystem").kept.map((t) => t.name)).toEqual(["read_file"]);
    expect(applyToolFilter(tools, { exclude: ["filesystem:write_*"] }, "git").kept).toHaveLength(6);
    // a misspelt server, and a pattern for the right server that matches none of its tools
    const typo = { include: ["gti:git_log"] };
    expect(toolFilterProblem([{ misses: applyToolFilter(tools, typo, "git").misses, allTools: tools.map((t) => t.name), serverName: "git" }])).toBe(
      '--tools "gti:git_log": no server of the run is named "gti" (did you mean "git"?); SERVER:PATTERN names a server as it names itself (`train-mcp tools` prints it): "git"',
    );
    const scopeOfName = applyToolFilter(tools, { include: ["primevue:search"] }, "@primevue/mcp");
    expect(toolFilterProblem([{ misses: scopeOfName.misses, allTools: tools.map((t) => t.name), serverName: "@primevue/mcp" }])).toMatch(/no server of the run is named "primevue" \(did you mean "@primevue\/mcp"\?\)/);
    const miss = applyToolFilter(tools, { include: ["git:git_lg"] }, "git");
    expect(toolFilterProblem([{ misses: miss.misses, allTools: tools.map((t) => t.name), serverName: "git" }])).toMatch(/^--tools "git:git_lg": no tool of the server matches it; /);
    // a tool whose own name holds a colon is still matched whole
    const colon = applyToolFilter([{ name: "ns:read" }, { name: "ns:write" }], { include: ["ns:read"] }, "other");
    expect(colon.kept.map((t) => t.name)).toEqual(["ns:read"]);
  });
});

describe("on real fixture servers", () => {
  const open: McpToolbox[] = [];
  afterAll(async () => {
    await Promise.all(open.map((t) => t.close()));
  });

  it("offers, shows and calls only the tools kept; a left-out tool is an unknown tool that the server has", async () => {
    const tb = await connect("fixture:calculator", { tools: { include: ["calc*", "percentage"] } });
    open.push(tb);
    expect(tb.tools.map((t) => t.name)).toEqual(["calculate", "percentage"]);
    expect(tb.openAiTools().map((t) => t.function.name)).toEqual(["calculate", "percentage"]);
    expect(tb.leftOutTools).toEqual(["compound_interest", "statistics"]);
    expect(tb.toolNotes).toContain("offering 2 of the server's 4 tools (--tools): left out compound_interest, statistics");
    const ok = await tb.call("calculate", { expression: "6*7" });
    expect(ok.isError).toBe(false);
    expect(ok.text).toContain("42");
    const refused = await tb.call("statistics", { values: [1, 2, 3] });
    expect(refused.fault).toBe("unknown_tool");
    expect(refused.text).toContain('unknown tool "statistics" (the server has it, but this run does not offer it)');
    // an isolated instance offers the same tools
    const iso = await tb.isolated();
    expect(iso.tools.map((t) => t.name)).toEqual(["calculate", "percentage"]);
    expect((await iso.call("compound_interest", { principal: 100, rate_percent: 5, years: 1 })).fault).toBe("unknown_tool");
    await iso.close();
    // a scenario that needs a left-out tool is told so, not that the server lacks it
    const s = ScenarioSchema.parse({ id: "s1", task: "Mean of 1, 2, 3?", difficulty: 1, split: "test", reference: { calls: [{ name: "statistics", arguments: { values: [1, 2, 3] } }], answer: "2" } });
    expect(problemsAgainstTools(s, tb.tools, undefined, tb.leftOutTools)).toEqual([
      { field: "reference.calls[0].name", message: 'the server has "statistics", but --tools / --exclude-tools leave it out of this run' },
    ]);
  });

  it("refuses a pattern that matches nothing, and a filter that leaves no tool, before anything runs", async () => {
    await expect(connect("fixture:calculator", { tools: { exclude: ["statistic"] } })).rejects.toThrow(/--exclude-tools "statistic": no tool of the server matches it \(did you mean "statistics"\?\)/);
    await expect(connect("fixture:calculator", { tools: { include: ["calc*"], exclude: ["calc*"] } })).rejects.toThrow(
      "--tools and --exclude-tools leave none of the 4 tools of fixture:calculator (calculate, percentage, compound_interest, statistics)",
    );
  });

  it("over several servers, a pattern need match on one; a bundled set loses the tasks that need a tool left out", async () => {
    const set = await ServerSet.connect(["fixture:calculator", "fixture:shop"], "auto", { tools: { exclude: ["statistics", "place_order"] } });
    try {
      const [calc, shop] = set.entries;
      expect(calc.toolbox.tools.map((t) => t.name)).not.toContain("statistics");
      expect(shop.toolbox.tools.map((t) => t.name)).not.toContain("place_order");
      expect(shop.toolbox.tools.length).toBeGreaterThan(0);
    } finally {
      await Promise.all(set.entries.map((e) => e.toolbox.close()));
    }
    // a fixture's bundled set keeps only the tasks its offered tools can do
    const calc = await ServerSet.connect(["fixture:calculator"], "auto", { tools: { exclude: ["compound_*"] } });
    const runDir = mkdtempSync(join(tmpdir(), "tool-filter-run-"));
    try {
      const logs: string[] = [];
      const data = await loadScenarios(["auto"], calc, { seed: 0, runDir, log: (l) => logs.push(l) });
      const kept = [...data.train, ...data.test];
      expect(kept.length).toBe(300);
      expect(kept.flatMap((s) => s.reference?.calls.map((c) => c.name) ?? [])).not.toContain("compound_interest");
      expect(logs).toContain("note: fixture:calculator: 100 of the bundled set's 400 scenarios need a tool this run leaves out (--tools, --exclude-tools), and are left out too");
    } finally {
      await Promise.all(calc.entries.map((e) => e.toolbox.close()));
      rmSync(runDir, { recursive: true, force: true });
    }
    // --tools for one server of two: the other keeps all its tools
    const scoped = await ServerSet.connect(["fixture:calculator", "fixture:shop"], "auto", { tools: { include: ["calculator:calc*"] } });
    try {
      expect(scoped.entries[0].toolbox.tools.map((t) => t.name)).toEqual(["calculate"]);
      expect(scoped.entries[1].toolbox.tools.map((t) => t.name)).toContain("place_order");
    } finally {
      await Promise.all(scoped.entries.map((e) => e.toolbox.close()));
    }
    await expect(ServerSet.connect(["fixture:calculator", "fixture:shop"], "auto", { tools: { include: ["shopp:get_*"] } })).rejects.toThrow(
      /--tools "shopp:get_\*": no server of the run is named "shopp" \(did you mean "shop"\?\)/,
    );
    await expect(ServerSet.connect(["fixture:calculator", "fixture:shop"], "auto", { tools: { exclude: ["statistics", "place_ordr"] } })).rejects.toThrow(
      /--exclude-tools "place_ordr": no tool of the servers matches it \(did you mean "place_order"\?\)/,
    );
  });
});

describe("the CLI", () => {
  const run = (...args: string[]) => spawnSync(process.execPath, ["bin/train-mcp.mjs", ...args], { encoding: "utf8" });

  it("tools --tools lists the kept tools with a note; a typo or an empty list exits 2 with one line", () => {
    const ok = run("tools", "--server", "fixture:calculator", "--tools", "calculate", "--tools", "perc*");
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout.trim().split("\n").slice(1).map((l) => l.split(/\s+/)[0])).toEqual(["calculate", "percentage"]);
    expect(ok.stderr).toContain("note: offering 2 of the server's 4 tools (--tools): left out compound_interest, statistics");
    const typo = run("tools", "--server", "fixture:calculator", "--tools", "calculate,percntage");
    expect(typo.status).toBe(2);
    expect(typo.stderr).toBe('train-mcp: --tools "percntage": no tool of the server matches it (did you mean "percentage"?); its tools: calculate, percentage, compound_interest, statistics\n');
    const empty = run("tools", "--server", "fixture:calculator", "--exclude-tools", " , ");
    expect(empty.status).toBe(2);
    expect(empty.stderr).toBe("train-mcp: --exclude-tools expects tool names or globs (comma-separated), got none\n");
  });
});
