/**
 * A server in desktop-commander's shape (test/servers/desktop-files.ts): its read_file answers
 * after a status line and its description goes on to images and PDFs, its listings go two levels
 * deep, read_multiple_files marks each file "--- PATH contents: ---", kill_process takes any pid,
 * and it makes a config folder in the home folder before it starts. Through the CLI. And a server
 * in mcp-server-code-runner's shape (test/servers/code-snippets.ts), whose unannotated tool runs
 * any code it is given.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServerSet } from "../../src/train/servers.js";
import { firstLineOf } from "../../src/scenarios/verified/file-multi-read.js";
import { documentAnswer, withoutReadBanner } from "../../src/scenarios/verified/document-answer.js";
import { signalsProcesses } from "../../src/scenarios/verified/process-tools.js";
import { isReadOnlyTool } from "../../src/scenarios/verified/generic.js";
import { readScenarioFile } from "../../src/scenarios/io.js";
import { stdioTarget } from "../servers/launch.js";
import { cli } from "../train/helpers.js";

const SERVER = stdioTarget("desktop-files");
const FILES: Record<string, string> = {
  "README.md": "# Orchard\nOwner: Ada Lovelace\nStatus: active\n",
  "package.json": '{"name": "orchard", "version": "2.3.1", "license": "MIT"}\n',
  "config/settings.json": '{"port": 8080, "region": "eu-west", "replicas": 3}\n',
  "config/limits.yaml": "max_rows: 500\nmax_users: 40\n",
  "docs/guide.md": "# Orchard guide\nAudience: gardeners\n",
  "docs/faq.txt": "Q: Is it free?\nA: Yes.\n",
  "src/main.ts": "export function main() { return 1; }\n",
};
const dir = mkdtempSync(join(tmpdir(), "desktop-files-"));
const project = join(dir, "project");
// outside /tmp: the sandbox lays an empty /tmp of its own over the host's
const home = resolve("node_modules/.cache/desktop-files-home-" + process.pid);

beforeAll(() => {
  for (const [name, body] of Object.entries(FILES)) {
    mkdirSync(join(project, name, ".."), { recursive: true });
    writeFileSync(join(project, name), body);
  }
  mkdirSync(home, { recursive: true });
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

const text = (t: string) => ({ text: t, isError: false, truncated: false });

describe("a server in desktop-commander's shape", () => {
  it("reads a file past its reader's status line, and each of several files by its '--- PATH contents: ---' mark", () => {
    const read = "[Reading 2 lines from start (total: 2 lines, 0 remaining)]\n\n{\"port\": 8080, \"region\": \"eu-west\"}";
    expect(documentAnswer(text(read), { path: "settings.json" })).toMatchObject({ value: expect.anything() });
    expect(JSON.stringify(documentAnswer(text(read), { path: "settings.json" }))).not.toContain("Reading");
    const several = "a.md: text/plain (text)\nb.txt: text/plain (text)\n\n--- a.md contents: ---\n[Reading 1 lines from start (total: 1 lines, 0 remaining)]\n\n# Alpha\n\n--- b.txt contents: ---\n[Reading 1 lines from start (total: 1 lines, 0 remaining)]\n\nbeta line";
    expect(firstLineOf(text(several), "a.md")).toBe("Alpha");
    expect(firstLineOf(text(several), "b.txt")).toBe("beta line");
    // the earliest mark is the file's own: a line "b.txt:" in a.md's text is not where b.txt starts
    const tricky = "--- a.md contents: ---\nwrong start\nb.txt:\nwrong\n\n--- b.txt contents: ---\n[Reading 1 lines from start]\n\nright";
    expect(firstLineOf(text(tricky), "b.txt")).toBe("right");
    // only a reader's own status line goes: a file may begin with a bracketed line of its own
    expect(documentAnswer(text("[lines]\ncount = 3\nOwner: Ada"), { path: "a.ini" })).toMatchObject({ label: "owner", value: "Ada" });
    expect(withoutReadBanner("[lines]\ncount = 3")).toBe("[lines]\ncount = 3");
    expect(withoutReadBanner('["line one", "line two"]')).toBe('["line one", "line two"]');
    expect(withoutReadBanner("[Reading last 5 lines (total: 9 lines)]\nfive")).toBe("five");
    // a one-line program has no field to ask about: the number in `return 1;` is not its "content"
    expect(documentAnswer(text("[Reading 1 lines from start (total: 1 lines, 0 remaining)]\n\nexport function main() { return 1; }"), { path: "src/main.ts" })).toBeUndefined();
  });

  it("builds file tasks with read_file and read_multiple_files whose answers are what the files say, and all replay", async () => {
    const out = join(dir, "files.jsonl");
    const g = await cli(["scenarios", "generate", "--server", SERVER, "--template-dir", project, "--n", "16", "--seed", "3", "--accept-fewer", "--out", out], { HOME: home });
    expect(g.code, g.stderr).toBe(0);
    const scenarios = readScenarioFile(out);
    const templates = new Set(scenarios.map((s) => s.tags.find((t) => t.startsWith("template:"))));
    expect(templates).toContain("template:generic.files.multi.first-lines.read_multiple_files");
    expect([...templates].some((t) => /generic\.files\.(read|find)\.read_file/.test(t!))).toBe(true);
    const firstLines = Object.values(FILES).map((body) => body.split("\n")[0].replace(/^#\s+/, ""));
    for (const s of scenarios) {
      const values = (s.expected ?? []).flatMap((c) => ("value" in c ? [String(c.value)] : []));
      expect(values.join(" ")).not.toMatch(/Reading|remaining|contents: ---/);
      if (s.tags.includes("template:generic.files.multi.first-lines.read_multiple_files")) for (const v of values) expect(firstLines).toContain(v);
    }
    const check = await cli(["scenarios", "check", "--server", SERVER, "--template-dir", project, "--fresh", out], { HOME: home });
    expect(check.code, check.stderr + check.stdout).toBe(0);
    expect(check.stdout + check.stderr).toContain(`${scenarios.length} ok, 0 failing`);
  }, 180_000);

  it("never calls kill_process outside a sandbox, --allow-writes or not, and train warns of it", async () => {
    const killLog = join(dir, "kills.log");
    const out = join(dir, "writes.jsonl");
    const g = await cli(["scenarios", "generate", "--server", SERVER, "--template-dir", project, "--env", `KILL_LOG=${killLog}`, "--allow-writes", "--n", "12", "--seed", "1", "--accept-fewer", "--out", out], { HOME: home });
    expect(g.code, g.stderr).toBe(0);
    expect(g.stderr).toContain("not calling kill_process, even with --allow-writes: it signals a process by its id");
    expect(existsSync(killLog)).toBe(false);
    expect(readScenarioFile(out).some((s) => s.reference!.calls.some((c) => c.name === "write_file"))).toBe(true);
    const lines: string[] = [];
    // the server makes its config folder in HOME: the test's own, never the developer's
    const servers = await ServerSet.connect([SERVER], "auto", { templateDir: project, env: { HOME: home } }, (l) => lines.push(l));
    await servers.close();
    expect(lines.join("\n")).toContain("has tools that signal a process by its id (kill_process)");
    expect(lines.join("\n")).toContain("--exclude-tools kill_process");
  }, 180_000);

  it("--sandbox: the server makes its config folder in a throwaway home, and the real one stays as it was", async () => {
    // a home where the server has never run
    const fresh = join(home, "fresh");
    mkdirSync(fresh);
    const sandboxed = await cli(["tools", "--server", SERVER, "--template-dir", project, "--sandbox"], { HOME: fresh });
    expect(sandboxed.code, sandboxed.stderr).toBe(0);
    expect(sandboxed.stdout).toContain("read_multiple_files");
    expect(existsSync(join(fresh, ".desktop-files"))).toBe(false);
    // without the sandbox it writes there for real
    const free = await cli(["tools", "--server", SERVER, "--template-dir", project], { HOME: fresh });
    expect(free.code, free.stderr).toBe(0);
    expect(readFileSync(join(fresh, ".desktop-files", "config.json"), "utf8")).toContain("telemetryEnabled");
    // now that the home holds the folder, a server that writes into it at every call fails in the
    // sandbox, and the generator says what to do; with a home of its own it builds its tasks
    const writer = `${SERVER} --cache-in-home`;
    const args = ["scenarios", "generate", "--server", writer, "--template-dir", project, "--sandbox", "--n", "4", "--accept-fewer"];
    const failed = await cli([...args, "--out", join(dir, "cache-fail.jsonl")], { HOME: fresh });
    expect(failed.code).toBe(2);
    expect(failed.stderr).toMatch(/EROFS.*--env 'HOME=\$\{cwd\}'/s);
    const ownHome = await cli([...args, "--env", "HOME=${cwd}", "--out", join(dir, "cache-ok.jsonl")], { HOME: fresh });
    expect(ownHome.code, ownHome.stderr).toBe(0);
  }, 120_000);

  it("knows a tool that signals a process, by id or, for a killing tool, by name or port, however its name is written", () => {
    const tool = (name: string, properties: Record<string, unknown>) => ({ name, description: "", inputSchema: { type: "object" as const, properties } });
    const signals = (name: string, properties: Record<string, unknown>) => signalsProcesses(tool(name, properties));
    expect(signals("kill_process", { pid: { type: "number" } })).toBe(true);
    expect(signals("forceTerminate", { pid: { type: "integer" } })).toBe(true);
    expect(signals("sendSignal", { targetPid: { type: ["integer", "string"] } })).toBe(true);
    expect(signals("stop_process", { processId: { type: "string" } })).toBe(true);
    expect(signals("kill_port", { port: { type: "integer" } })).toBe(true);
    expect(signals("pkill", { pattern: { type: "string" } })).toBe(true);
    // a session or a search is the server's own; a switch named kill takes no process
    expect(signals("stop_search", { sessionId: { type: "string" } })).toBe(false);
    expect(signals("kill_switch", { enabled: { type: "boolean" } })).toBe(false);
    expect(signals("list_processes", { pid: { type: "number" } })).toBe(false);
    expect(signals("end_meeting", { name: { type: "string" } })).toBe(false);
  });
});

describe("a tool that runs the code it is given", () => {
  it("is a writer unless it says it only reads, so the generator runs no made-up code without --allow-writes", async () => {
    const runLog = join(dir, "runs.log");
    const g = await cli(["scenarios", "generate", "--server", stdioTarget("code-snippets"), "--env", `RUN_LOG=${runLog}`, "--n", "4", "--out", join(dir, "code.jsonl")], { HOME: home });
    expect(g.code).toBe(2);
    expect(g.stderr).toContain("not calling run-code");
    expect(existsSync(runLog)).toBe(false);
    const tool = (annotations?: { readOnlyHint: boolean }) => ({ name: "run_javascript", description: "Run a short JavaScript snippet.", inputSchema: { type: "object" as const, properties: { code: { type: "string" } }, required: ["code"] }, ...(annotations ? { annotations } : {}) });
    expect(isReadOnlyTool(tool())).toBe(false);
    // a snippet run in a sandbox of the server's own, said to read only (the code-runner fixture's)
    expect(isReadOnlyTool(tool({ readOnlyHint: true }))).toBe(true);
    // with --allow-writes still no made-up snippet runs: not as a task, nor as a starting state
    const w = await cli(["scenarios", "generate", "--server", stdioTarget("code-snippets"), "--env", `RUN_LOG=${runLog}`, "--allow-writes", "--n", "4", "--out", join(dir, "code-w.jsonl")], { HOME: home });
    expect(w.code).toBe(2);
    expect(w.stderr).not.toContain("setup call");
    expect(existsSync(runLog)).toBe(false);
    const shaped = (name: string, description: string, arg: string) => ({ name, description, inputSchema: { type: "object" as const, properties: { [arg]: { type: "string" } }, required: [arg] } });
    expect(isReadOnlyTool(shaped("run_python_code", "Tool to execute Python code and return stdout.", "python_code"))).toBe(false);
    expect(isReadOnlyTool(shaped("node_evaluate", "Evaluate JavaScript code in the server's Node.js process.", "code"))).toBe(false);
    expect(isReadOnlyTool(shaped("lint_code", "Lints code without running it. Run it yourself later.", "code"))).toBe(true);
    // a calculator's expression is no code
    expect(isReadOnlyTool({ name: "evaluate", description: "Evaluate a math expression.", inputSchema: { type: "object", properties: { expression: { type: "string" } }, required: ["expression"] } })).toBe(true);
  }, 60_000);
});
