/**
 * `train-mcp scenarios generate|check|show` through the real CLI entry (main), on the real
 * calculator and shop fixtures: exit codes, every bad line listed, replay with --server.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/main.js";
import { startFixtureHttp } from "../../src/mcp/fixtures.js";
import { readScenarioFile } from "../../src/scenarios/io.js";
import { stdioTarget } from "../servers/launch.js";

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const o = vi.spyOn(process.stdout, "write").mockImplementation((c: string | Uint8Array) => (out.push(String(c)), true));
  const e = vi.spyOn(process.stderr, "write").mockImplementation((c: string | Uint8Array) => (err.push(String(c)), true));
  const before = process.exitCode;
  try {
    const code = await main(args);
    return { code, out: out.join(""), err: err.join("") };
  } finally {
    o.mockRestore();
    e.mockRestore();
    process.exitCode = before;
  }
}

describe("train-mcp scenarios", () => {
  const dir = mkdtempSync(join(tmpdir(), "scen-cli-"));

  it("generate → check → show on a real server", async () => {
    const file = join(dir, "calc.jsonl");
    const g = await run(["scenarios", "generate", "--server", "fixture:calculator", "--n", "12", "--seed", "4", "--out", file]);
    expect(g).toMatchObject({ code: 0 });
    expect(g.out).toContain(`wrote 12 scenarios to ${file} (train 9, test 3)`);
    const list = readScenarioFile(file);
    expect(list[0].id).toBe("calculator-0001");

    const c = await run(["scenarios", "check", file, "--server", "fixture:calculator"]);
    expect(c.code).toBe(0);
    expect(c.out).toContain("12 well-formed scenarios (train 9, test 3)");
    expect(c.out).toContain("12 scenarios: 12 ok, 0 failing (0 replay, 0 tool mismatch); 12 reference solutions replayed\n");

    const s = await run(["scenarios", "show", file]);
    expect(s.code).toBe(0);
    expect(s.out).toMatch(/SPLIT\s+train\s+test\s+total\nall\s+9\s+3\s+12/);
    expect(s.out).toMatch(/DIFFICULTY/);
    expect(s.out).toMatch(/TOOL/);
    // as the command's description says it
    expect((await run(["scenarios", "summarize", file])).out).toBe(s.out);
  });

  it("generate refuses fewer scenarios than --n, naming --accept-fewer, which writes the ones built", async () => {
    const dir = mkdtempSync(join(tmpdir(), "scen-fewer-"));
    const server = stdioTarget("sqlite");
    const refused = await run(["scenarios", "generate", "--server", server, "--n", "100", "--out", join(dir, "a.jsonl")]);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/could only build (\d+) distinct verified scenarios of the 100 asked for .*; lower --n, pass --accept-fewer to write the ones built, or write scenarios by hand/);
    const built = Number(/could only build (\d+)/.exec(refused.err)![1]);
    expect(existsSync(join(dir, "a.jsonl"))).toBe(false);
    const fewer = await run(["scenarios", "generate", "--server", server, "--n", "100", "--accept-fewer", "--out", join(dir, "b.jsonl")]);
    expect(fewer.code).toBe(0);
    expect(fewer.err).toContain(`note: built ${built} distinct verified scenarios of the 100 asked for: the server's tools offer no more`);
    expect(readScenarioFile(join(dir, "b.jsonl"))).toHaveLength(built);
  }, 60_000);

  it("generate names the tools no scenario calls", async () => {
    const g = await run(["scenarios", "generate", "--server", "fixture:shop", "--n", "2", "--seed", "1", "--out", join(dir, "shop2.jsonl")]);
    expect(g.code).toBe(0);
    const called = new Set(readScenarioFile(join(dir, "shop2.jsonl")).flatMap((x) => x.tags.filter((t) => t.startsWith("tool:")).map((t) => t.slice(5))));
    const missing = ["search_products", "get_product", "get_customer", "place_order", "get_order", "cancel_order", "list_orders"].filter((t) => !called.has(t));
    expect(missing.length).toBeGreaterThan(0);
    expect(g.err).toContain(`note: no scenario calls ${missing.join(", ")}: write tasks for them by hand`);
  });

  it("generate leaves a user's server's data alone: no state-changing tool is called unless --allow-writes, and a tool that answers differently each time is not used", async () => {
    const data = mkdtempSync(join(tmpdir(), "todo-data-"));
    const todo = stdioTarget("todo-file");
    const file = join(data, "..", `todo-${Date.now()}.jsonl`);
    // the server makes its three todos on its first start; the generator must not change them
    expect((await run(["call", "--server", todo, "--cwd", data, "list_todos", '{"tag":"home"}'])).code).toBe(0);
    const before = readFileSync(join(data, "todos.json"), "utf8");
    const g = await run(["scenarios", "generate", "--server", todo, "--cwd", data, "--n", "4", "--seed", "2", "--out", file]);
    expect(g.code).toBe(0);
    expect(g.err).toContain("note: not calling add_todo, spring_clean: they change the server's state");
    expect(g.err).toContain("--allow-writes calls them, best against a copy of the server's data (--template-dir)");
    expect(g.err).toContain("note: not using roll_dice: the same call answered differently twice");
    expect(readFileSync(join(data, "todos.json"), "utf8")).toBe(before);
    const tools = new Set(readScenarioFile(file).flatMap((x) => x.reference!.calls.map((c) => c.name)));
    expect([...tools].every((t) => t === "list_todos" || t === "get_todo")).toBe(true);
    // what the scenarios expect is what the untouched server answers
    expect((await run(["scenarios", "check", file, "--server", todo, "--cwd", data])).out).toContain("4 ok, 0 failing (0 replay, 0 tool mismatch)");
    // with --template-dir already given, the note does not ask for it again
    const t = await run(["scenarios", "generate", "--server", todo, "--template-dir", data, "--n", "2", "--seed", "2", "--out", `${file}.copy.jsonl`]);
    expect(t.err).toContain("--allow-writes calls them, each server instance on its own copy of the data (--template-dir, as given)");
    // --allow-writes against --template-dir: each server instance works on its own copy of the data
    const w = await run(["scenarios", "generate", "--server", todo, "--template-dir", data, "--allow-writes", "--n", "3", "--seed", "2", "--out", file, "--force"]);
    expect(w.err).not.toContain("not calling");
    expect(w.err).not.toContain("has tools that change state");
    expect(readFileSync(join(data, "todos.json"), "utf8")).toBe(before);
    // --allow-writes on the real data: said before the first write
    const live = mkdtempSync(join(tmpdir(), "todo-live-"));
    const l = await run(["scenarios", "generate", "--server", todo, "--cwd", live, "--allow-writes", "--n", "2", "--seed", "2", "--out", file, "--force"]);
    expect(l.err).toMatch(/warning: .*todo-file.* has tools that change state \(.*add_todo.*\), and the generator \(--allow-writes\) calls them for real/);
  });

  it("check exits 2 and lists every bad line", async () => {
    const file = join(dir, "bad.jsonl");
    writeFileSync(
      file,
      [
        JSON.stringify({ id: "a", task: "ok task", difficulty: 1, split: "train" }),
        JSON.stringify({ id: "b", task: "bad", difficulty: 6, split: "train" }),
        "{oops",
        JSON.stringify({ id: "a", task: "dup", difficulty: 1, split: "test" }),
      ].join("\n"),
    );
    const r = await run(["scenarios", "check", file]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${file}:2: field "difficulty": expected number ≤ 5, got 6`);
    expect(r.err).toMatch(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:3: invalid JSON`));
    expect(r.err).toContain(`${file}:4: field "id": duplicate id "a" (first on line 1)`);
    expect(r.err).toContain("3 problems in 3 lines (1 well-formed scenario)");
  });

  it("check refuses a reference answer its own checks fail, and warns of a held-out question asked in training", async () => {
    const file = join(dir, "self.jsonl");
    const line = (o: Record<string, unknown>) => JSON.stringify({ difficulty: 1, tags: [], ...o });
    writeFileSync(file, [line({ id: "five", task: "How many?", split: "train", expected: [{ kind: "numeric", value: 3 }], reference: { calls: [], answer: "five" } })].join("\n") + "\n");
    const bad = await run(["scenarios", "check", file]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain(`${file}:1: field "reference.answer": fails its own check expected[0]: `);
    writeFileSync(
      file,
      [
        line({ id: "t1", task: "What is the capital of Peru?", split: "train", expected: [{ kind: "contains", value: "Lima" }] }),
        line({ id: "h1", task: "what is the capital of peru", split: "test", expected: [{ kind: "contains", value: "Lima" }] }),
      ].join("\n") + "\n",
    );
    const leak = await run(["scenarios", "check", file]);
    expect(leak.code).toBe(0);
    expect(leak.err).toContain("warning: 1 training scenario asks a held-out scenario's question word for word (t1 = h1): held-out success would count answers learned in training");
  });

  it("check --server exits 1 when a reference solution does not reproduce", async () => {
    const file = join(dir, "wrong.jsonl");
    writeFileSync(
      file,
      JSON.stringify({
        id: "w",
        task: "What is 2 + 2?",
        difficulty: 1,
        split: "train",
        expected: [{ kind: "numeric", value: 5 }],
        reference: { calls: [{ name: "calculate", arguments: { expression: "2 + 2" } }], answer: "5" },
      }) + "\n",
    );
    const r = await run(["scenarios", "check", file, "--server", "fixture:calculator"]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/:1: w: no replayed result reproduces it: expected 5/);
    // the calculator has no tool that changes state: no earlier scenario can have left any
    expect(r.err).not.toContain("--fresh");
  });

  it("check --server names scenarios that call or check a tool the server does not have, or with arguments it refuses (exit 2, file:line: field)", async () => {
    const file = join(dir, "unknown-tools.jsonl");
    const line = (o: Record<string, unknown>) => JSON.stringify({ difficulty: 1, split: "train", ...o });
    writeFileSync(
      file,
      [
        line({ id: "ok", task: "What is 2 + 2?", expected: [{ kind: "numeric", value: 4 }], reference: { calls: [{ name: "calculate", arguments: { expression: "2 + 2" } }], answer: "4" } }),
        line({ id: "b3", task: "Is it stored?", expected: [{ kind: "state", tool: "nosuch", arguments: {}, expect: { kind: "contains", value: "x" } }] }),
        line({ id: "b4", task: "What is 10% of 5?", expected: [{ kind: "numeric", value: 0.5 }], reference: { calls: [{ name: "percentage", arguments: { operation: "tenth", a: 10, b: 5 } }], answer: "0.5" } }),
        line({ id: "wrong", task: "What is 3 + 3?", expected: [{ kind: "numeric", value: 7 }], reference: { calls: [{ name: "calculate", arguments: { expression: "3 + 3" } }], answer: "7" } }),
        line({ id: "noref", task: "What is 4 + 4?", expected: [{ kind: "numeric", value: 8 }] }),
      ].join("\n") + "\n",
    );
    const r = await run(["scenarios", "check", file, "--server", "fixture:calculator"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${file}:2: field "expected[0].tool": the server has no tool "nosuch" (its tools: calculate, percentage, compound_interest, statistics)`);
    expect(r.err).toMatch(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:3: field "reference.calls\\[0\\].arguments": percentage refuses these arguments: .*operation`));
    // refused lines are not replayed (that would report them twice)
    // one summary counts both kinds of failure; a tool mismatch still decides the exit code
    expect(r.out).toContain("5 scenarios: 2 ok, 3 failing (1 replay, 2 tool mismatch); 2 reference solutions replayed, 1 without a reference solution to replay\n");
    expect(r.err).toMatch(/:4: wrong: no replayed result reproduces it: expected 7/);
    // the exit line counts the failing scenarios as the summary does
    expect(r.err).toContain(`${file}: 3 of 5 scenarios failing: 2 naming a tool the server does not have, or arguments it refuses; 1 not reproduced by replaying its reference solution`);
  });

  it("check --server with bad lines in the file still checks the well-formed ones against the server: every problem in one pass", async () => {
    const file = join(dir, "mixed.jsonl");
    const line = (o: Record<string, unknown>) => JSON.stringify({ difficulty: 1, split: "train", ...o });
    writeFileSync(
      file,
      [
        line({ id: "ok", task: "What is 2 + 2?", expected: [{ kind: "numeric", value: 4 }], reference: { calls: [{ name: "calculate", arguments: { expression: "2 + 2" } }], answer: "4" } }),
        "not json",
        line({ id: "self", task: "How many?", expected: [{ kind: "numeric", value: 3 }], reference: { calls: [], answer: "five" } }),
        line({ id: "nt", task: "What is 1 + 1?", expected: [{ kind: "numeric", value: 2 }], reference: { calls: [{ name: "nosuch", arguments: {} }], answer: "2" } }),
        line({ id: "wrong", task: "What is 3 + 3?", expected: [{ kind: "numeric", value: 7 }], reference: { calls: [{ name: "calculate", arguments: { expression: "3 + 3" } }], answer: "7" } }),
      ].join("\n") + "\n",
    );
    const r = await run(["scenarios", "check", file, "--server", "fixture:calculator"]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/:2: invalid JSON/);
    expect(r.err).toContain(`${file}:3: field "reference.answer": fails its own check expected[0]: `);
    expect(r.err).toContain(`${file}:4: field "reference.calls[0].name": the server has no tool "nosuch"`);
    expect(r.err).toMatch(/:5: wrong: no replayed result reproduces it: expected 7/);
    expect(r.out).toContain(`${file}: 3 well-formed scenarios (train 3, test 0), 2 lines with problems\n`);
    expect(r.out).toContain("5 scenarios: 1 ok, 4 failing (1 replay, 1 tool mismatch, 2 invalid in the file); 2 reference solutions replayed\n");
    expect(r.err).toContain(`${file}: 4 of 5 scenarios failing: 2 invalid in the file; 1 naming a tool the server does not have, or arguments it refuses; 1 not reproduced by replaying its reference solution`);
  });

  it("generate refuses to replace an existing --out unless --force", async () => {
    const file = join(dir, "kept.jsonl");
    writeFileSync(file, "hand-written\n");
    const r = await run(["scenarios", "generate", "--server", "fixture:calculator", "--n", "2", "--out", file]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`--out ${file} already exists: pass --force to replace it`);
    expect(readFileSync(file, "utf8")).toBe("hand-written\n");
    const f = await run(["scenarios", "generate", "--server", "fixture:calculator", "--n", "2", "--out", file, "--force"]);
    expect(f.code, f.err).toBe(0);
    expect(readScenarioFile(file)).toHaveLength(2);
    // a folder, --force or not: refused before anything is generated
    const folder = await run(["scenarios", "generate", "--server", "fixture:calculator", "--n", "2", "--out", dir, "--force"]);
    expect([folder.code, folder.err]).toEqual([2, `train-mcp: --out ${dir} is a folder: name a file (.jsonl) to write\n`]);
  });

  it("check --server: a call or state check marked error: true must come back as the tool's error; a derived answer is checked on the reference alone", async () => {
    const file = join(dir, "errors-derived.jsonl");
    const line = (o: Record<string, unknown>) => JSON.stringify({ difficulty: 1, split: "train", ...o });
    const bad = { name: "calculate", arguments: { expression: "2 +" } };
    const stateOnBad = (error?: boolean) => ({ kind: "state", tool: "calculate", arguments: { expression: "2 +" }, expect: { kind: "contains", value: "could not evaluate" }, ...(error === undefined ? {} : { error }) });
    writeFileSync(
      file,
      [
        line({ id: "e-ok", task: "Evaluate 2 +.", expected: [{ kind: "contains", value: "Unexpected end" }, stateOnBad(true)], reference: { calls: [{ ...bad, error: true }], answer: "It fails: Unexpected end of expression." } }),
        line({ id: "e-unmarked", task: "Evaluate 2 + again.", expected: [{ kind: "contains", value: "Unexpected end" }], reference: { calls: [bad], answer: "Unexpected end of expression." } }),
        line({ id: "e-state", task: "Evaluate 3 + 4.", expected: [{ kind: "numeric", value: 7 }, stateOnBad()], reference: { calls: [{ name: "calculate", arguments: { expression: "3 + 4" } }], answer: "7" } }),
        line({ id: "e-none", task: "Evaluate 5 + 5.", expected: [{ kind: "numeric", value: 10 }], reference: { calls: [{ name: "calculate", arguments: { expression: "5 + 5" }, error: true }], answer: "10" } }),
        line({ id: "sum", task: "Add 3 + 4 and 5 + 5.", expected: [{ kind: "numeric", value: 17 }], reference: { calls: [{ name: "calculate", arguments: { expression: "3 + 4" } }, { name: "calculate", arguments: { expression: "5 + 5" } }], answer: "17", derived: true } }),
      ].join("\n") + "\n",
    );
    const r = await run(["scenarios", "check", file, "--server", "fixture:calculator"]);
    expect(r.code).toBe(1);
    expect(r.err).not.toMatch(/e-ok: /);
    expect(r.err).toMatch(/:2: e-unmarked: reference call 1 calculate failed: .*could not evaluate/);
    expect(r.err).toMatch(/:3: e-state: state calculate\(\{"expression":"2 \+"\}\) failed: /);
    expect(r.err).toMatch(/:4: e-none: reference call 1 calculate answered without the error expected: 10/);
    expect(r.err).toMatch(/note: .*:5: sum: no replayed result states numeric 17: checked on the derived reference answer only/);
    expect(r.out).toContain("5 scenarios: 2 ok, 3 failing (3 replay, 0 tool mismatch); 5 reference solutions replayed (1 derived, checked on the reference answer only)\n");
  });

  it("check takes a bundled fixture's scenarios as its own when that fixture is served over HTTP", async () => {
    // fixture:calculator's scenarios, on the calculator started by hand with --http: the same server
    const file = join(dir, "calc-over-http.jsonl");
    const lines = readFileSync(join(process.cwd(), "scenarios", "calculator.jsonl"), "utf8").split("\n").slice(0, 3);
    writeFileSync(file, lines.join("\n") + "\n");
    const calc = await startFixtureHttp("calculator");
    const knowledge = await startFixtureHttp("knowledge");
    try {
      const same = await run(["scenarios", "check", file, "--server", calc.url]);
      expect(same.code, same.err).toBe(0);
      expect(same.err).not.toContain("name another server");
      // another fixture over HTTP is still another server
      const other = await run(["scenarios", "check", file, "--server", knowledge.url]);
      expect(other.err).toContain(`warning: 3 of 3 scenarios name another server (fixture:calculator) and are checked against ${knowledge.url}`);
    } finally {
      await Promise.all([calc.close(), knowledge.close()]);
    }
  });

  it("check --server --fresh replays every scenario on its own instance (for a tool that reads but keeps state)", async () => {
    const file = join(dir, "counter.jsonl");
    const line = (id: string) => JSON.stringify({ id, task: `Count once (${id}).`, difficulty: 1, split: "train", expected: [{ kind: "numeric", value: 1 }], reference: { calls: [{ name: "counter_inc", arguments: {} }], answer: "1" } });
    writeFileSync(file, [JSON.stringify({ ...JSON.parse(line("c1")), server: "node elsewhere.mjs" }), line("c2")].join("\n") + "\n");
    const shared = await run(["scenarios", "check", file, "--server", stdioTarget("everything")]);
    expect(shared.err).toContain("warning: 1 of 2 scenarios name another server (node elsewhere.mjs) and are checked against ");
    expect(shared.code).toBe(1);
    expect(shared.err).toMatch(/:2: c2: no replayed result reproduces it: .*\(or state left by an earlier scenario: try --fresh\)/);
    const noServer = await run(["scenarios", "check", file, "--fresh"]);
    expect(noServer.code).toBe(2);
    expect(noServer.err).toContain("--fresh replays on fresh server instances: it needs --server");
    const fresh = await run(["scenarios", "check", file, "--server", stdioTarget("everything"), "--fresh"]);
    expect(fresh.code, fresh.err).toBe(0);
    expect(fresh.out).toContain("2 scenarios: 2 ok, 0 failing (0 replay, 0 tool mismatch); 2 reference solutions replayed\n");
  });

  it("check --server takes the connection flags (--env reaches the server the replay runs on)", async () => {
    const file = join(dir, "env.jsonl");
    const scenario = { id: "e1", task: "Read FLAVOUR.", difficulty: 1, split: "train", expected: [{ kind: "exact", value: "mint" }], reference: { calls: [{ name: "env", arguments: { name: "FLAVOUR" } }], answer: "mint" } };
    writeFileSync(file, JSON.stringify(scenario) + "\n");
    const target = stdioTarget("everything");
    const withEnv = await run(["scenarios", "check", file, "--server", target, "--env", "FLAVOUR=mint"]);
    expect(withEnv.code, withEnv.err).toBe(0);
    const without = await run(["scenarios", "check", file, "--server", target]);
    expect(without.code).not.toBe(0);
    expect(without.err).toMatch(/e1/);
  });

  it("generate stopped by Ctrl-C says so, and that nothing was written (exit 130)", async () => {
    const file = join(dir, "interrupted.jsonl");
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("VITEST") && k !== "NODE_OPTIONS"));
    const child = spawn(process.execPath, ["bin/train-mcp.mjs", "scenarios", "generate", "--server", "fixture:calculator", "--n", "5000", "--out", file], { stdio: ["ignore", "pipe", "pipe"], env });
    let stderr = "";
    // once generation is under way (its handler is in place by then)
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
      if (stderr.includes("building 5000 verified scenarios")) child.kill("SIGINT");
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code, stderr).toBe(130);
    expect(stderr.trim().split("\n").pop()).toBe(`interrupted (SIGINT): nothing written (${file} is written only once every scenario is built)`);
    expect(existsSync(file)).toBe(false);
  }, 60_000);

  it("usage errors exit 2 with one line; nothing is written", async () => {
    const file = join(dir, "never.jsonl");
    const r = await run(["scenarios", "generate", "--server", "fixture:calculator", "--n", "0", "--out", file]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("--n expects a whole number of at least 1");
    const r2 = await run(["scenarios", "generate", "--server", "fixture:calculator", "--generator", "llm", "--out", file]);
    expect(r2.code).toBe(2);
    expect(r2.err).toContain("--llm-base-url");
    expect(() => readFileSync(file)).toThrow();
  });
});
