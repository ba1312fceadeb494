/**
 * code-runner: runs short JavaScript snippets in a sandbox and returns stdout, the value of the
 * last expression (or of a top-level `result` variable) and the error, if any.
 *
 * Modelled on the seed ToolEnvironment's `code_executor` ("exec with a result variable"), made
 * safe for untrusted model output. Each call runs in its own child process (./runner.mjs under
 * shared/sandbox.ts): a fresh `vm` context with only the JavaScript built-ins and a `console`
 * (no require, import, process, fetch, timers, fs), inside a process with the Node permission
 * model (reads limited to the runner and a per-call temp dir, no child processes or workers),
 * string code generation disabled, a V8 heap cap plus an address-space cap, no environment
 * variables, and a wall-clock deadline that SIGKILLs it. What this does and does not guarantee is
 * spelled out in mcp-fixtures/README.md.
 *
 * At most `--max-concurrent N` sandboxes (default min(4, CPUs)) run at once; further calls queue.
 *
 * Run: `node --import tsx mcp-fixtures/code-runner/server.ts [--max-concurrent N] [--http PORT]`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { structured } from "../shared/results.js";
import { runSandboxed } from "../shared/sandbox.js";
import { fixtureDir, flagValue, log, serve } from "../shared/serve.js";

const RUNNER = join(fixtureDir(import.meta.url), "runner.mjs");
const DEFAULT_TIMEOUT_MS = 2000;
/** Time allowed for the child process to start and report, on top of the snippet's own limit. */
const STARTUP_GRACE_MS = 1500;
/** What one call's child may write to stdout (its printed output and result, as one JSON line). */
const MAX_OUTPUT_BYTES = 256 * 1024;
/** Sandboxes alive at once, per server process (`--max-concurrent N`, default min(4, CPUs)):
 *  each may take 96 MiB of heap and 1 GiB of address space, so a model's (or an HTTP caller's)
 *  parallel calls wait in line instead of exhausting the host's memory and PIDs. */
const concurrentFlag = flagValue("max-concurrent");
const maxConcurrent = concurrentFlag === undefined ? Math.max(1, Math.min(4, availableParallelism())) : Number(concurrentFlag);
if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1 || maxConcurrent > 64) {
  log("code-runner", `--max-concurrent expects an integer from 1 to 64, got ${JSON.stringify(concurrentFlag)}`);
  process.exit(2);
}

const RunOutput = z.object({
  stdout: z.string().describe("Everything the snippet printed with console.log/info/warn/error"),
  result: z.string().nullable().describe("The last expression's value (or top-level `result`), formatted; null if none"),
  error: z.string().nullable().describe("The uncaught error, timeout or limit that stopped the snippet; null if it finished"),
});
type RunOutput = z.infer<typeof RunOutput>;

/** A FIFO semaphore: at most `limit` holders at once, the rest queued in arrival order. */
function semaphore(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async (task) => {
    if (active >= limit) await new Promise<void>((r) => waiting.push(r));
    else active++;
    try {
      return await task();
    } finally {
      // hand the slot straight to the next caller, so `active` never drops and rises again
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}
const limitRuns = semaphore(maxConcurrent);

async function runSnippet(code: string, timeoutMs: number): Promise<RunOutput> {
  const workDir = mkdtempSync(join(tmpdir(), "train-mcp-code-"));
  try {
    const outcome = await runSandboxed({
      script: RUNNER,
      cwd: workDir,
      readPaths: [workDir],
      writePaths: [workDir],
      timeoutMs: timeoutMs + STARTUP_GRACE_MS,
      input: JSON.stringify({ code, timeoutMs }),
      maxOutputBytes: MAX_OUTPUT_BYTES,
    });
    const lastLine = outcome.stdout.trim().split("\n").pop() ?? "";
    // an overflowing child may write its (cut) line and exit 0 before the kill lands: never parse it
    if (outcome.code === 0 && !outcome.outputLimitHit && lastLine.startsWith("{")) {
      const parsed = RunOutput.safeParse(parseJson(lastLine));
      if (parsed.success) return parsed.data;
    }
    let error: string;
    if (outcome.timedOut) error = `timed out after ${timeoutMs} ms (the process was killed)`;
    else if (outcome.outOfMemory) error = "memory limit exceeded (the process was killed)";
    else if (outcome.outputLimitHit) error = `output limit exceeded: the result and printed output may take at most ${MAX_OUTPUT_BYTES / 1024} KiB (the process was killed)`;
    else error = `the sandbox process failed (${outcome.signal ?? `exit code ${outcome.code}`}): ${outcome.stderr.trim().slice(-500)}`;
    return { stdout: "", result: null, error };
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

function render(out: RunOutput): string {
  const parts: string[] = [];
  if (out.stdout) parts.push(`stdout:\n${out.stdout}`);
  if (out.result !== null) parts.push(`result: ${out.result}`);
  if (out.error !== null) parts.push(`error: ${out.error}`);
  return parts.length ? parts.join("\n") : "(no output and no result)";
}

function createServer(): McpServer {
  const server = new McpServer({ name: "code-runner", version: "1.0.0" });
  server.registerTool(
    "run_javascript",
    {
      title: "Run JavaScript",
      description:
        "Run a short, self-contained JavaScript snippet and get back what it printed (console.log), the " +
        "value of its last expression (or of a top-level variable named `result`), and any error. Only " +
        "standard JavaScript is available (Math, JSON, Array, Map, BigInt, Date, RegExp, Promise...): no " +
        "require/import, no files, no network, no timers. Each call starts from a clean state. " +
        "Example: {\"code\": \"let s = 0; for (let i = 1; i <= 100; i++) s += i; s\"} -> result: 5050.",
      inputSchema: {
        code: z.string().min(1).max(20000).describe("JavaScript source code (script, not a module)"),
        timeout_ms: z
          .number()
          .int()
          .min(100)
          .max(10000)
          .optional()
          .describe(`Time limit in milliseconds (default ${DEFAULT_TIMEOUT_MS})`),
      },
      outputSchema: RunOutput.shape,
      annotations: { readOnlyHint: true, openWorldHint: false, idempotentHint: true },
    },
    async ({ code, timeout_ms }) => {
      const out = await limitRuns(() => runSnippet(code, timeout_ms ?? DEFAULT_TIMEOUT_MS));
      // A snippet that throws is still a successful tool call: the error is the observation.
      return structured(render(out), out);
    },
  );
  return server;
}

await serve({ name: "code-runner", createServer });
