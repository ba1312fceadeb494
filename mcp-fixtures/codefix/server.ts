/**
 * codefix: the seed's CodeFixEnvironment as an MCP server. A workspace holds small JavaScript
 * tasks, each a module with a bug plus read-only tests; the agent reads files, edits them with
 * exact text replacement and runs the tests until they pass.
 *
 * Stateful: edits change files on disk. By default each process copies the bundled template
 * (./workspace) to a fresh temp dir and deletes it on exit, so every instance starts clean.
 * `--template DIR` copies another template instead; `--workspace DIR` (or env CODEFIX_WORKSPACE)
 * works in DIR in place and leaves it behind.
 *
 * `--test-timeout-ms N` bounds each task's test run (default 5000).
 *
 * Run: `node --import tsx mcp-fixtures/codefix/server.ts [--workspace DIR | --template DIR] [--http PORT]`.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { fail, structured, text } from "../shared/results.js";
import { fixtureDir, flagValue, log, serve } from "../shared/serve.js";
import { TEST_TIMEOUT_MS, Workspace, WorkspaceError, type TaskRun } from "./workspace.js";

const here = fixtureDir(import.meta.url);
const timeoutFlag = flagValue("test-timeout-ms");
const testTimeoutMs = timeoutFlag === undefined ? TEST_TIMEOUT_MS : Number(timeoutFlag);
if (!Number.isInteger(testTimeoutMs) || testTimeoutMs < 100) {
  log("codefix", `--test-timeout-ms expects an integer >= 100, got ${JSON.stringify(timeoutFlag)}`);
  process.exit(2);
}
const inPlace = flagValue("workspace") ?? process.env.CODEFIX_WORKSPACE;
const template = resolve(flagValue("template") ?? join(here, "workspace"));
let tempRoot: string | undefined;
let root: string;
if (inPlace) {
  root = resolve(inPlace);
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    log("codefix", `--workspace ${root} is not a directory`);
    process.exit(2);
  }
} else {
  if (!existsSync(template)) {
    log("codefix", `--template ${template} does not exist`);
    process.exit(2);
  }
  tempRoot = mkdtempSync(join(tmpdir(), "train-mcp-codefix-"));
  root = join(tempRoot, "workspace");
  // links stay as written: a relative one inside the template points inside the copy (fs.cp
  // would make it an absolute link to the template's file, edited through it)
  cpSync(template, root, { recursive: true, verbatimSymlinks: true });
}
const workspace = new Workspace(root, join(here, "run-tests.mjs"), testTimeoutMs);
log("codefix", `workspace ${root}`);

async function guard(op: () => CallToolResult | Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await op();
  } catch (err) {
    if (err instanceof WorkspaceError) return fail(err.message);
    throw err;
  }
}

function renderRun(run: TaskRun): string {
  const total = run.passed + run.failed;
  const lines = [`${run.task}: ${run.passed}/${total} tests passed`];
  if (run.problem) lines.push(`  problem: ${run.problem}`);
  for (const c of run.cases) lines.push(c.ok ? `  PASS ${c.name}` : `  FAIL ${c.name}: ${c.error}`);
  return lines.join("\n");
}

function createServer(): McpServer {
  const server = new McpServer({ name: "codefix", version: "1.0.0" });
  const taskId = z.string().min(1).max(100);

  server.registerTool(
    "list_tasks",
    {
      title: "List tasks",
      description: "List the code-fix tasks in the workspace: each task's id, what the code should do, and its files.",
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () =>
      text(
        workspace
          .tasks()
          .map((t) => `${t}: ${workspace.summary(t)}\n  files: ${workspace.files(t).join(", ")}`)
          .join("\n"),
      ),
  );

  server.registerTool(
    "read_file",
    {
      title: "Read file",
      description: "Read a file of the workspace, e.g. 'sum-range/sum_range.js' or 'sum-range/TASK.md'. A folder path lists its files.",
      inputSchema: { path: z.string().min(1).max(300).describe("Path relative to the workspace root, e.g. 'fizzbuzz/fizzbuzz.js'") },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ path }) => guard(() => text(workspace.readFile(path))),
  );

  server.registerTool(
    "edit_file",
    {
      title: "Edit file",
      description:
        "Replace exact text in a workspace file: old_text must appear exactly once in the file (copy it " +
        "character for character, including spaces); it is replaced by new_text. Test files (*.test.js) " +
        "are read-only. Returns the updated file.",
      inputSchema: {
        path: z.string().min(1).max(300).describe("Path relative to the workspace root, e.g. 'sum-range/sum_range.js'"),
        old_text: z.string().min(1).max(20000).describe("The exact text to replace; must occur exactly once"),
        new_text: z.string().max(20000).describe("The replacement text (may be empty to delete)"),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    async ({ path, old_text, new_text }) =>
      guard(() => {
        const full = workspace.resolvePath(path);
        // a link to a test file is the test file
        if (/\.test\.js$/.test(full) || (existsSync(full) && /\.test\.js$/.test(realpathSync(full)))) return fail(`${path} is a test file and is read-only; fix the code under test instead`);
        if (!existsSync(full) || statSync(full).isDirectory()) return fail(`no such file: ${path}; call list_tasks to see the files`);
        const before = readFileSync(full, "utf8");
        const count = before.split(old_text).length - 1;
        if (count === 0) return fail(`old_text was not found in ${path}; read the file and copy the text exactly`);
        if (count > 1) return fail(`old_text occurs ${count} times in ${path}; include more surrounding text so it is unique`);
        const after = before.replace(old_text, () => new_text);
        writeFileSync(full, after);
        return text(`Edited ${path}. New content:\n${after}`);
      }),
  );

  server.registerTool(
    "run_tests",
    {
      title: "Run tests",
      description:
        "Run a task's tests (or every task's tests when no task is given) and report how many passed and " +
        "failed, with the failing assertions.",
      inputSchema: { task: taskId.optional().describe("Task id, e.g. 'sum-range'; omit to run all tasks") },
      outputSchema: {
        passed: z.number().describe("Number of passing test cases"),
        failed: z.number().describe("Number of failing test cases (or failed runs)"),
        total: z.number(),
        all_passed: z.boolean(),
        tasks: z
          .array(z.object({ task: z.string(), passed: z.number(), failed: z.number() }))
          .describe("Per-task counts, in the order run"),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ task }) =>
      guard(async () => {
        const tasks = task === undefined ? workspace.tasks() : [task];
        const runs: TaskRun[] = [];
        // A few tasks at a time: each run is a separate process.
        for (let i = 0; i < tasks.length; i += 4) runs.push(...(await Promise.all(tasks.slice(i, i + 4).map((t) => workspace.runTask(t)))));
        const passed = runs.reduce((s, r) => s + r.passed, 0);
        const failed = runs.reduce((s, r) => s + r.failed, 0);
        const head = `${passed}/${passed + failed} tests passed${failed === 0 ? " - all tests pass" : ""}`;
        return structured(`${head}\n${runs.map(renderRun).join("\n")}`, {
          passed,
          failed,
          total: passed + failed,
          all_passed: failed === 0,
          tasks: runs.map((r) => ({ task: r.task, passed: r.passed, failed: r.failed })),
        });
      }),
  );

  return server;
}

await serve({
  name: "codefix",
  createServer,
  cleanup: () => {
    if (tempRoot) rmSync(tempRoot, { recursive: true, force: true });
  },
});
