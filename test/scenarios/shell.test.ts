/**
 * shell.ts on test/servers/shell.ts (one `run {command}` tool, answering "exit N\nstdout: …"),
 * each instance in its own copy of a small project (--template-dir): which tools are command
 * runners by their shape, that only read-only commands composed from the folder's own paths and
 * words are sent, that every answer is what the files say (shell-truth.ts works it out again),
 * that no task names the copy's temp path, and what is said without --allow-writes or --sandbox.
 * shell-real.test.ts runs the recipes on @agent-infra/mcp-server-commands.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { connect, type McpToolbox } from "../../src/mcp/connect.js";
import type { ToolSpec } from "../../src/mcp/types.js";
import { checkAnswer } from "../../src/scenarios/check.js";
import { replayScenario } from "../../src/scenarios/replay.js";
import type { Scenario } from "../../src/scenarios/schema.js";
import { generateVerified } from "../../src/scenarios/verified/generate.js";
import { isReadOnlyTool } from "../../src/scenarios/verified/generic.js";
import { detectShell } from "../../src/scenarios/verified/shell.js";
import { commandTool } from "../../src/scenarios/verified/shell-tool.js";
import { stdioTarget } from "../servers/launch.js";
import { tempDir } from "../train/helpers.js";
import { truthOf, writeProject } from "./shell-truth.js";

const SHELL = stdioTarget("shell");
const project = tempDir("shell-project");
writeProject(project);
afterAll(() => rmSync(project, { recursive: true, force: true }));

const tool = (name: string, description: string, properties: Record<string, unknown>, required: string[], annotations?: ToolSpec["annotations"]): ToolSpec => ({
  name,
  description,
  inputSchema: { type: "object", properties, required },
  ...(annotations ? { annotations } : {}),
});

// @agent-infra/mcp-server-commands 1.2.18's, no annotations: "run_command" names no change
const COMMANDS = [
  tool("run_command", "Run a command on this linux machine", { command: { type: "string" }, cwd: { type: "string" } }, ["command"]),
  tool("run_script", "Run a script on this linux machine", { interpreter: { type: "string" }, script: { type: "string" }, cwd: { type: "string" } }, ["script"]),
];

/** Every command a shell recipe may send: read-only, over relative paths. */
const READ_ONLY_COMMAND =
  /^(wc -[lc] < [\w./-]+|head -n 1 [\w./-]+|tail -n 1 [\w./-]+|sed -n '\d+p' [\w./-]+|grep -c \w+ [\w./-]+|grep -ril \w+ [\w./-]+|find [\w./-]+ -type f -name '\*\.\w+' \| wc -l|ls [\w./-]+ \| wc -l|find \. -name '[\w.-]+')$/;

async function withShell<T>(body: (tb: McpToolbox) => Promise<T>): Promise<T> {
  const tb = await connect(SHELL, { templateDir: project, timeoutMs: 20_000 });
  try {
    return await body(tb);
  } finally {
    await tb.close();
  }
}

describe("a shell server, by its tools' shapes", () => {
  it("run_command is a command runner and a writer, unannotated; run_script (an interpreter's script) is a writer but no shell to compose for", () => {
    expect(detectShell(COMMANDS)?.tool.name).toBe("run_command");
    expect(COMMANDS.map((t) => isReadOnlyTool(t))).toEqual([false, false]);
    expect(commandTool(COMMANDS[1])?.shell).toBe(false);
    // a readOnlyHint does not make `rm` read-only
    expect(isReadOnlyTool(tool("exec", "Execute a shell command", { cmd: { type: "string" } }, ["cmd"], { readOnlyHint: true }))).toBe(false);
  });

  it("fills a required timeout (desktop-commander's start_process), and leaves alone a `command` that picks an operation or a tool that runs nothing", () => {
    const start = tool("start_process", "Start a new terminal process", { command: { type: "string" }, timeout_ms: { type: "number" } }, ["command", "timeout_ms"]);
    expect(commandTool(start)).toMatchObject({ arg: "command", fixed: { timeout_ms: 10_000 }, shell: true });
    const manage = tool("manage_notes", "Manage notes", { command: { type: "string", enum: ["list", "show"] } }, ["command"]);
    expect(detectShell([manage])).toBeUndefined();
    expect(isReadOnlyTool(tool("get_help", "Shows the help of a command", { command: { type: "string" } }, ["command"]))).toBe(true);
    // another required argument it cannot fill: no runner to compose for (still a writer)
    const remote = tool("ssh_exec", "Execute a command on a remote host", { host: { type: "string" }, command: { type: "string" } }, ["host", "command"]);
    expect(detectShell([remote])).toBeUndefined();
    expect(isReadOnlyTool(remote)).toBe(false);
  });
});

describe("shell recipes on test/servers/shell.ts with --template-dir", () => {
  let built: { scenarios: Scenario[]; notes: string[] };

  it("builds tasks from read-only commands over the folder's own files, each answer what the files say", async () => {
    built = await withShell((tb) => generateVerified(tb, { n: 24, seed: 7, allowWrites: true, isolation: { templateDir: true, sandbox: false } }));
    const { scenarios } = built;
    expect(scenarios).toHaveLength(24);
    const kinds = new Set(scenarios.map((s) => s.tags.find((t) => t.startsWith("template:"))));
    expect([...kinds].every((k) => k?.startsWith("template:shell."))).toBe(true);
    // lines, sizes, first/last/nth lines, searches, counts: not one kind of question
    expect(kinds.size).toBeGreaterThanOrEqual(6);
    for (const s of scenarios) {
      const calls = s.reference!.calls;
      for (const c of calls) {
        expect(c.name).toBe("run");
        expect(c.arguments.command).toMatch(READ_ONLY_COMMAND);
      }
      // the copy's absolute path differs per instance: no task, call or answer holds one
      expect(JSON.stringify(s)).not.toMatch(/\/tmp\/|train-mcp-/);
      const last = String(calls.at(-1)!.arguments.command);
      const truth = truthOf(project, last);
      expect(truth, last).toBeDefined();
      for (const e of s.expected ?? []) expect(checkAnswer(e as never, truth!).pass, `${s.task} (${last}) expects ${JSON.stringify(e)}; the files say ${truth}`).toBe(true);
      // a line count of a word holds however the word is searched for: whole words, any case
      const grep = /^grep -c (\w+) (\S+)$/.exec(last);
      if (grep) {
        const lines = readFileSync(join(project, grep[2]), "utf8").split("\n");
        expect(String(lines.filter((l) => new RegExp(`\\b${grep[1]}\\b`, "i").test(l)).length), s.task).toBe(truth);
      }
      // a find-read task's first call finds the file its second one reads
      if (calls.length === 2) expect(String(calls[1].arguments.command)).toContain(truthOf(project, String(calls[0].arguments.command))!);
    }
    // asked as a person would, naming paths relative to the folder
    expect(scenarios.map((s) => s.task).join("\n")).toMatch(/How many lines does [\w/.-]+ have\?|Count the lines in the file/);
    // never about a hidden file, nor the line count of a file whose last line has no newline
    expect(scenarios.some((s) => /\.git\b/.test(s.task))).toBe(false);
    expect(scenarios.some((s) => s.task.includes("tides.txt") && /lines/.test(s.task) && !/line \d/.test(s.task))).toBe(false);
  });

  it("asks a word's line count only where whole words count the same (\"rope\" is not asked where \"ropes\" and \"ropeway\" are lines too)", async () => {
    const dir = tempDir("shell-words");
    writeFileSync(join(dir, "gear.txt"), "rope\nropes\nrope ladder\nropeway\nknot\nknots\nknotted line\n");
    writeFileSync(join(dir, "crew.txt"), "Ingrid\nTomas\n");
    try {
      const tb = await connect(SHELL, { templateDir: dir, timeoutMs: 20_000 });
      const r = await generateVerified(tb, { n: 30, seed: 3, allowWrites: true, acceptFewer: true, isolation: { templateDir: true, sandbox: false } }).finally(() => tb.close());
      const counts = r.scenarios.map((s) => /^grep -c (\w+) (\S+)$/.exec(String(s.reference!.calls.at(-1)!.arguments.command))).filter((m) => m !== null);
      expect(counts.length).toBeGreaterThan(0);
      for (const [command, word, file] of counts) {
        const lines = readFileSync(join(dir, file), "utf8").split("\n");
        expect(String(lines.filter((l) => new RegExp(`\\b${word}\\b`, "i").test(l)).length), command).toBe(truthOf(dir, command));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("replays on an instance in another copy of the folder", async () => {
    await withShell(async (tb) => {
      for (const s of built.scenarios) {
        const r = await replayScenario(tb, s);
        expect(r.pass, `${s.task}: ${r.detail}`).toBe(true);
      }
    });
  });

  it("is the same set for the same seed", async () => {
    const again = await withShell((tb) => generateVerified(tb, { n: 24, seed: 7, allowWrites: true, isolation: { templateDir: true, sandbox: false } }));
    expect(again.scenarios.map((s) => s.task)).toEqual(built.scenarios.map((s) => s.task));
  });

  it("says what training lacks: --sandbox here; nothing once both are given", async () => {
    expect(built.notes.find((n) => n.includes("runs shell commands"))).toMatch(/--sandbox/);
    expect(built.notes.find((n) => n.includes("runs shell commands"))).not.toMatch(/--template-dir/);
    const both = await withShell((tb) => generateVerified(tb, { n: 2, seed: 1, allowWrites: true, isolation: { templateDir: true, sandbox: true } }));
    expect(both.notes.some((n) => n.includes("runs shell commands"))).toBe(false);
  });

  it("on a folder with no file to ask about refuses at once, asking for one (--template-dir)", async () => {
    const empty = tempDir("shell-empty");
    try {
      const tb = await connect(SHELL, { templateDir: empty, timeoutMs: 20_000 });
      const err = await generateVerified(tb, { n: 4, allowWrites: true }).catch((e: unknown) => e as Error).finally(() => tb.close());
      expect((err as Error).message).toMatch(/`find \. -type f` lists no file there.*--template-dir DIR/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it("without --allow-writes refuses at once, saying what the flag gives and advising --template-dir and --sandbox", async () => {
    await withShell(async (tb) => {
      const err = await generateVerified(tb, { n: 4, allowWrites: false }).catch((e: unknown) => e as Error & { code?: string });
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).message).toMatch(/runs shell commands \(run\).*--allow-writes.*--template-dir DIR --sandbox/);
    });
  });
});
