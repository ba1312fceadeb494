/**
 * @modelcontextprotocol/server-sequential-thinking (a devDependency): one tool, `sequentialthinking`,
 * that files the thought it is given and answers with its count of thoughts so far. There is no
 * data to ask about and the same call answers differently the second time, so no task can be
 * verified: the generator must say so and say what to do instead, as the command run spells it
 * (train has no --generator flag), exit 2, and leave no file and no run directory behind.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli } from "../train/helpers.js";

const SERVER = `node ${resolve("node_modules/@modelcontextprotocol/server-sequential-thinking/dist/index.js")}`;

describe("server-sequential-thinking (the npm package) through the CLI", () => {
  const dir = mkdtempSync(join(tmpdir(), "thinking-real-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("scenarios generate: says why no task can be verified and points to --generator llm, exit 2, no file", async () => {
    const out = join(dir, "t.jsonl");
    const g = await cli(["scenarios", "generate", "--server", SERVER, "--n", "30", "--out", out]);
    expect(g.code, g.stderr).toBe(2);
    expect(g.stderr).toContain("train-mcp: the server has no tools to build verified scenarios from (not using sequentialthinking: the same call answered differently twice, so no answer can be checked)");
    expect(g.stderr).toContain("or with an LLM (--generator llm)");
    expect(existsSync(out)).toBe(false);
  });

  it("train --scenarios auto: the same, with the way to an LLM's tasks that train takes (a file for --scenarios), and no run directory", async () => {
    const run = join(dir, "run");
    const t = await cli(["train", "--server", SERVER, "--steps", "2", "--out", run]);
    expect(t.code, t.stderr).toBe(2);
    expect(t.stderr).toContain("answered differently twice");
    expect(t.stderr).toContain("(train-mcp scenarios generate --generator llm --llm-base-url … --llm-model … --out tasks.jsonl) and pass the file with --scenarios tasks.jsonl");
    // train has no --generator: the advice must not read as one of its flags
    expect(t.stderr).not.toMatch(/use --generator llm/);
    expect(existsSync(run)).toBe(false);
  });
});
