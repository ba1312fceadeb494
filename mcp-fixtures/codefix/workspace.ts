/**
 * The codefix workspace: where it lives, path confinement, task discovery, and test runs.
 *
 * A workspace is a directory of task folders (each: TASK.md, a module with a bug, a read-only
 * `*.test.js`). Paths given by the model are relative to the workspace root; absolute paths,
 * `..` segments and symlinks that lead outside are rejected, so edits cannot escape it. Tests run
 * in a sandboxed child process per task (shared/sandbox.ts) that may read only the workspace.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { runSandboxed } from "../shared/sandbox.js";
import { declaredCases } from "./declared-cases.js";

export class WorkspaceError extends Error {}

export interface CaseResult {
  name: string;
  ok: boolean;
  error: string | null;
}
export interface TaskRun {
  task: string;
  passed: number;
  failed: number;
  cases: CaseResult[];
  /** Set when the run itself failed (timeout, crash). */
  problem?: string;
}

/** Default wall-clock limit for one task's test run. */
export const TEST_TIMEOUT_MS = 5000;

/** What one test run may print (the code under test's output included). */
const MAX_TEST_OUTPUT_BYTES = 256 * 1024;

export class Workspace {
  constructor(
    readonly root: string,
    private readonly runner: string,
    /** Wall-clock limit for one task's test run (default TEST_TIMEOUT_MS). */
    private readonly timeoutMs: number = TEST_TIMEOUT_MS,
  ) {}

  /** Resolves a model-given relative path to an absolute path inside the workspace. */
  resolvePath(path: string): string {
    const p = path.trim().replace(/^\.\//, "");
    if (p === "") throw new WorkspaceError("the path is empty; use a path like 'sum-range/sum_range.js'");
    if (isAbsolute(p) || /^[a-zA-Z]:/.test(p)) throw new WorkspaceError(`absolute paths are not allowed: ${path}; use a path relative to the workspace`);
    if (p.split(/[\\/]/).includes("..")) throw new WorkspaceError(`'..' is not allowed in paths: ${path}`);
    const full = resolve(this.root, p);
    if (existsSync(full)) {
      // A symlink inside the workspace must not lead outside it.
      const real = realpathSync(full);
      const rel = relative(realpathSync(this.root), real);
      if (rel.startsWith("..") || isAbsolute(rel)) throw new WorkspaceError(`path leaves the workspace: ${path}`);
    }
    return full;
  }

  /** Task ids: folders holding a *.test.js file. */
  tasks(): string[] {
    return readdirSync(this.root, { withFileTypes: true })
      .filter((d) => d.isDirectory() && readdirSync(join(this.root, d.name)).some((f) => f.endsWith(".test.js")))
      .map((d) => d.name)
      .sort();
  }

  files(task: string): string[] {
    return readdirSync(join(this.root, task)).sort().map((f) => `${task}/${f}`);
  }

  /** First non-heading line of the task's TASK.md, as a one-line summary. */
  summary(task: string): string {
    const file = join(this.root, task, "TASK.md");
    if (!existsSync(file)) return "";
    const lines = readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#"));
    return lines.join(" ").replace(/\s+/g, " ").trim();
  }

  readFile(path: string): string {
    const full = this.resolvePath(path);
    if (!existsSync(full)) throw new WorkspaceError(`no such file: ${path}; call list_tasks to see the files`);
    if (statSync(full).isDirectory()) {
      return readdirSync(full).sort().map((f) => `${relative(this.root, join(full, f)).split(sep).join("/")}`).join("\n");
    }
    return readFileSync(full, "utf8");
  }

  /** The case names the task's test files declare, or undefined where one is in a shape
   *  declared-cases.ts does not read. */
  private declaredCases(task: string): string[] | undefined {
    const names: string[] = [];
    for (const file of readdirSync(join(this.root, task)).filter((f) => f.endsWith(".test.js")).sort()) {
      const found = declaredCases(readFileSync(join(this.root, task, file), "utf8"));
      if (!found) return undefined;
      names.push(...found);
    }
    return names;
  }

  async runTask(task: string): Promise<TaskRun> {
    if (!this.tasks().includes(task)) throw new WorkspaceError(`unknown task ${JSON.stringify(task)}; tasks are: ${this.tasks().join(", ")}`);
    // the code under test runs beside the runner and may print anything: only the line that
    // carries this run's nonce (sent on stdin, unknown to the code) is the runner's report
    const nonce = randomBytes(16).toString("hex");
    const outcome = await runSandboxed({
      script: this.runner,
      args: [join(this.root, task)],
      cwd: this.root,
      readPaths: [this.root],
      timeoutMs: this.timeoutMs,
      maxOutputBytes: MAX_TEST_OUTPUT_BYTES,
      input: nonce,
      frozenIntrinsics: true,
    });
    const line = outcome.stdout.split("\n").find((l) => l.startsWith(`{"nonce":"${nonce}",`));
    if (outcome.code === 0 && !outcome.outputLimitHit && line) {
      const cases = (JSON.parse(line) as { cases: CaseResult[] }).cases;
      const declared = this.declaredCases(task);
      const loadFailed = cases.some((c) => !c.ok && c.name.endsWith(" (loading)"));
      if (declared && !loadFailed && !sameNames(cases.map((c) => c.name), declared)) {
        const problem = `the run reported ${cases.length} test cases, but the test file declares ${declared.length} (${declared.map((n) => JSON.stringify(n)).join(", ")}); only the test file's own cases count`;
        return { task, passed: 0, failed: declared.length, cases: [], problem };
      }
      const passed = cases.filter((c) => c.ok).length;
      return { task, passed, failed: cases.length - passed, cases };
    }
    const stderr = outcome.stderr.trim().split("\n").slice(-3).join(" ").slice(0, 400);
    const problem = outcome.timedOut
      ? `the tests did not finish within ${this.timeoutMs} ms (infinite loop?)`
      : outcome.outOfMemory
        ? "the tests ran out of memory"
        : outcome.outputLimitHit
          ? `output limit exceeded: the tests printed more than ${MAX_TEST_OUTPUT_BYTES / 1024} KiB (the process was killed)`
          : outcome.code === 0
            ? "the test process ended before the runner reported (did the code under test exit the process?)"
            : `the test process failed (${outcome.signal ?? `exit code ${outcome.code}`})${stderr ? `: ${stderr}` : ""}`;
    return { task, passed: 0, failed: 1, cases: [], problem };
  }
}

/** Same names, same number of times each, in any order. */
function sameNames(a: string[], b: string[]): boolean {
  const sort = (x: string[]): string => JSON.stringify([...x].sort());
  return a.length === b.length && sort(a) === sort(b);
}
