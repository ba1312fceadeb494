/**
 * A git MCP server from npm (@cyanheads/git-mcp-server, a devDependency) on a throwaway repository
 * made here with fixed authors and dates, through the CLI as a user runs it: the repository as a
 * --template-dir, copied for every server instance. The server resolves a `path` of "." (its
 * schema's default) to a "session working directory" that only its git_set_working_dir tool sets,
 * so a call without a path, or with ".", fails on every fresh instance: the generator has to name
 * the working directory itself ("./"). Answers are checked against git.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readScenarioFile } from "../../src/scenarios/io.js";
import { cli } from "../train/helpers.js";

const SERVER = `node ${resolve("node_modules/@cyanheads/git-mcp-server/dist/index.js")}`;

/** The repository: four commits on main by three authors, a tag, two other branches. */
function makeRepo(dir: string): void {
  mkdirSync(dir);
  const env = { ...process.env, HOME: dir, GIT_CONFIG_NOSYSTEM: "1" };
  const git = (args: string[], extra: Record<string, string> = {}) => execFileSync("git", ["-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false", ...args], { cwd: dir, env: { ...env, ...extra }, stdio: "pipe" });
  const commit = (name: string, date: string, message: string) =>
    git(["commit", "-q", "-m", message], { GIT_AUTHOR_NAME: name, GIT_AUTHOR_EMAIL: `${name.split(" ")[0].toLowerCase()}@example.org`, GIT_COMMITTER_NAME: name, GIT_COMMITTER_EMAIL: "ci@example.org", GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date });
  git(["init", "-q", "-b", "main"]);
  writeFileSync(join(dir, "README.md"), "# Demo\n");
  git(["add", "README.md"]);
  commit("Ada Lovelace", "2024-01-02T10:00:00Z", "Initial commit");
  writeFileSync(join(dir, "calc.py"), "def add(a, b):\n    return a + b\n");
  git(["add", "calc.py"]);
  commit("Alan Turing", "2024-01-05T11:00:00Z", "Add calculator module");
  git(["tag", "v0.1.0"]);
  git(["checkout", "-q", "-b", "feature/login"]);
  writeFileSync(join(dir, "login.py"), "def login(user):\n    return user == 'admin'\n");
  git(["add", "login.py"]);
  commit("Grace Hopper", "2024-02-01T09:30:00Z", "Add login stub");
  git(["checkout", "-q", "main"]);
  writeFileSync(join(dir, "calc.py"), "def add(a, b):\n    return a + b\n\ndef sub(a, b):\n    return a - b\n");
  git(["add", "calc.py"]);
  commit("Ada Lovelace", "2024-02-10T15:00:00Z", "Add subtraction");
  writeFileSync(join(dir, "LICENSE"), "MIT\n");
  git(["add", "LICENSE"]);
  commit("Linus Torvalds", "2024-03-01T08:00:00Z", "Add license");
}

describe("@cyanheads/git-mcp-server (the npm package) on a throwaway repository, through the CLI", () => {
  const dir = mkdtempSync(join(tmpdir(), "git-real-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const repo = join(dir, "repo");
  makeRepo(repo);
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, encoding: "utf8" }).trim();
  const head = git("rev-parse", "HEAD");
  const connectFlags = ["--server", SERVER, "--template-dir", repo];

  it("builds read-only tasks that name the repository as the server's working directory, with answers git agrees with, and leaves the repository as it was", async () => {
    const out = join(dir, "git.jsonl");
    const g = await cli(["scenarios", "generate", ...connectFlags, "--n", "8", "--seed", "1", "--out", out]);
    expect(g.code, g.stderr).toBe(0);
    // the server's write tools (commit, checkout, reset, clean…) are named and left alone
    expect(g.stderr).toMatch(/note: not calling [a-z_, ]*git_commit[a-z_, ]*git_reset[a-z_, ]*: they change the server's state/);
    const scenarios = readScenarioFile(out);
    expect(scenarios).toHaveLength(8);
    const calls = scenarios.flatMap((s) => s.reference!.calls);
    // every call names the working directory: without it (or with "."), the server answers
    // "No session working directory set"
    for (const c of calls) expect(c.arguments.path, JSON.stringify(c)).toBe("./");
    expect(calls.every((c) => ["git_log", "git_status", "git_diff", "git_reflog", "git_show", "git_blame", "git_changelog_analyze", "git_wrapup_instructions"].includes(c.name))).toBe(true);
    const logs = scenarios.filter((s) => s.reference!.calls[0].name === "git_log");
    expect(logs.length).toBeGreaterThan(0);
    let checked = 0;
    for (const s of logs) {
      const a = s.reference!.calls[0].arguments as Record<string, unknown>;
      const e = s.expected![0];
      const revList = ["rev-list", "main", `--max-count=${a.maxCount ?? 10}`, `--skip=${a.skip ?? 0}`];
      if (typeof a.author === "string") revList.push(`--author=${a.author}`);
      if (typeof a.since === "string") revList.push(`--since=${a.since}`);
      if (typeof a.until === "string") revList.push(`--until=${a.until}`);
      if (a.grep !== undefined || a.filePath !== undefined || a.branch !== undefined) continue;
      const hashes = git(...revList).split("\n").filter(Boolean);
      if (e.kind === "numeric") expect(e.value, s.task).toBe(hashes.length);
      else if (e.kind === "contains" && /^[0-9a-f]{40}$/.test(e.value)) expect(e.value, s.task).toBe(hashes[0]);
      else continue;
      checked++;
    }
    expect(checked).toBeGreaterThan(0);
    // (the generator has replayed each on another instance; `check --fresh` would start one per task)
    const c = await cli(["scenarios", "check", out, ...connectFlags]);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toContain(`${scenarios.length} ok, 0 failing`);
    expect(git("rev-parse", "HEAD")).toBe(head);
    expect(git("status", "--porcelain")).toBe("");
  }, 120_000);

  it("train with the built-in model stops before its first rollout, saying the 28 tools fill its 2,048-token context (it ran the probe with every rollout empty, then died on a NaN warm-start loss), and trains with --tools naming the reads", async () => {
    const out = join(dir, "git.jsonl");
    expect(existsSync(out)).toBe(true); // the scenarios of the test above
    const run = join(dir, "run");
    const t = await cli(["train", ...connectFlags, "--scenarios", out, "--steps", "2", "--out", run]);
    expect(t.code, t.stderr).toBe(2);
    expect(t.stderr).toMatch(/train-mcp: the model's context holds 2048 tokens, and a rollout's first prompt on node \S+git-mcp-server\S+ already takes (\d+) \(the system prompt with the server's 28 tools, their descriptions and schemas: \d+; the shortest task: the rest\), leaving no room to write/);
    expect(t.stderr).toMatch(/offer fewer tools \(--tools NAMES, or --exclude-tools NAMES; the largest: git_\w+ ~\d+, git_\w+ ~\d+, git_\w+ ~\d+ tokens; \d+ tokens must go\), or train a model with a longer context \(--model\)/);
    expect(t.stderr).not.toContain("warm-start probe");
    expect(existsSync(run)).toBe(false);
    // offered only the tools its tasks use, the same run fits and trains
    const reads = "git_log,git_status,git_diff,git_reflog,git_show,git_blame,git_changelog_analyze,git_wrapup_instructions";
    const fits = await cli(["train", ...connectFlags, "--scenarios", out, "--tools", reads, "--steps", "1", "--groups-per-step", "1", "--group-size", "2", "--sft", "off", "--eval-n", "1", "--out", run, "--json"]);
    expect(fits.code, fits.stderr).toBe(0);
    expect(fits.stderr).toContain("offering 8 of the server's 28 tools (--tools): left out git_add, git_branch, git_checkout");
    const summary = JSON.parse(fits.stdout.trim().split("\n").at(-1)!) as { steps: number; heldout_n: number };
    expect(summary).toMatchObject({ steps: 1, heldout_n: 1 });
    expect(JSON.parse(readFileSync(join(run, "config.json"), "utf8")).server_tools).toEqual(reads.split(","));
    expect(git("rev-parse", "HEAD")).toBe(head);
  }, 180_000);
});
