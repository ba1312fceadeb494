/**
 * @agent-infra/mcp-server-commands (a devDependency: run_command and run_script, no annotations,
 * stdout in a STDOUT block) on a small project, through the CLI: with --allow-writes and
 * --template-dir, `scenarios generate` builds tasks from read-only commands on run_command, each
 * answer what the files say (shell-truth.ts), and `scenarios check --fresh` replays every one on
 * a fresh copy. Without --allow-writes it refuses at once (exit 2), naming the flag.
 * (--sandbox is left out: bubblewrap lays an empty /tmp over the host's, and a checkout under
 * /tmp would hide the server's own files from it; sandbox.test.ts covers the flag.)
 */
import { rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkAnswer } from "../../src/scenarios/check.js";
import { readScenarioFile } from "../../src/scenarios/io.js";
import { cli, tempDir } from "../train/helpers.js";
import { truthOf, writeProject } from "./shell-truth.js";

const SERVER = `node ${resolve("node_modules/@agent-infra/mcp-server-commands/dist/index.cjs")}`;
const project = tempDir("shell-real-project");
const out = tempDir("shell-real-out");
writeProject(project);
afterAll(() => {
  rmSync(project, { recursive: true, force: true });
  rmSync(out, { recursive: true, force: true });
});

describe("@agent-infra/mcp-server-commands (the npm package), through the CLI", () => {
  it("builds tasks on run_command from read-only commands over the copy's files, and they replay with check --fresh", async () => {
    const file = join(out, "shell.jsonl");
    const g = await cli(["scenarios", "generate", "--server", SERVER, "--template-dir", project, "--allow-writes", "--n", "16", "--seed", "2", "--out", file]);
    expect(g.code, g.stderr).toBe(0);
    // what training lacks: the sandbox
    expect(g.stderr).toMatch(/runs shell commands \(run_command\).*--sandbox/);
    const scenarios = readScenarioFile(file);
    expect(scenarios).toHaveLength(16);
    expect(new Set(scenarios.map((s) => s.tags.find((t) => t.startsWith("template:")))).size).toBeGreaterThanOrEqual(5);
    for (const s of scenarios) {
      const calls = s.reference!.calls;
      // run_script's interpreter defaults to the word "undefined": never called
      expect(calls.every((c) => c.name === "run_command" && Object.keys(c.arguments).join() === "command")).toBe(true);
      expect(JSON.stringify(s)).not.toContain(project);
      const last = String(calls.at(-1)!.arguments.command);
      const truth = truthOf(project, last);
      expect(truth, `${s.task}: ${last} is no command the recipes compose`).toBeDefined();
      for (const e of s.expected ?? []) expect(checkAnswer(e as never, truth!).pass, `${s.task} expects ${JSON.stringify(e)}; the files say ${truth}`).toBe(true);
    }
    const c = await cli(["scenarios", "check", file, "--server", SERVER, "--template-dir", project, "--fresh"]);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout + c.stderr).toMatch(/16 scenarios: 16 ok, 0 failing/);
  }, 120_000);

  it("without --allow-writes exits 2 at once, naming the flag and the tool", async () => {
    const g = await cli(["scenarios", "generate", "--server", SERVER, "--template-dir", project, "--n", "4", "--out", join(out, "none.jsonl")]);
    expect(g.code).toBe(2);
    expect(g.stderr).toMatch(/runs shell commands \(run_command\), which can change anything, so only `scenarios generate --allow-writes` calls it/);
  }, 60_000);
});
