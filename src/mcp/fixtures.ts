/**
 * Where the bundled fixture servers (mcp-fixtures/) live and how to start them.
 *
 * Start-up speed matters: training spawns one fresh server per rollout for stateful fixtures, and
 * `node --import tsx server.ts` spends ~1.5 s compiling and resolving hundreds of modules. So each
 * fixture is bundled once with esbuild (a dependency of tsx) into a single ESM file under
 * node_modules/.cache/train-mcp-fixtures/<checkout hash>/<name>.mjs, rebuilt whenever a source file under the
 * fixture's folder or mcp-fixtures/shared/ is newer than the bundle, and run with plain `node`.
 * Native modules (better-sqlite3) stay external and resolve from the repository's node_modules.
 * If bundling fails, we fall back to the tsx loader (slower, same behaviour).
 *
 * The bundle is written to a temp name and renamed into place, so parallel test workers building
 * the same fixture never see half a file.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const fixtureNames = ["calculator", "knowledge", "code-runner", "codefix", "shop"] as const;
export type FixtureName = (typeof fixtureNames)[number];

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const fixturesRoot = join(repoRoot, "mcp-fixtures");
// one folder per checkout: a bundle holds its checkout's fixture path, and checkouts may share
// node_modules (a git worktree with a linked one), where by file times alone the last to build wins
const cacheDir = join(repoRoot, "node_modules", ".cache", "train-mcp-fixtures", createHash("sha256").update(repoRoot).digest("hex").slice(0, 12));

/** Packages with native code or runtime file lookups that must not be inlined. */
const EXTERNAL = ["better-sqlite3"];

function assertFixture(name: string): asserts name is FixtureName {
  if (!(fixtureNames as readonly string[]).includes(name)) {
    throw new Error(`unknown fixture ${JSON.stringify(name)}; expected one of ${fixtureNames.join(", ")}`);
  }
}

/** Absolute path of a fixture's source folder (server.ts and its data). */
export function fixtureDir(name: FixtureName): string {
  assertFixture(name);
  return join(fixturesRoot, name);
}

/** Newest modification time (ms) of any file below `dir`. */
function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path));
    else if (entry.isFile()) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** Builds (if stale) and returns the bundle path, or undefined when esbuild is unavailable. */
function ensureBundle(name: FixtureName): string | undefined {
  const out = join(cacheDir, `${name}.mjs`);
  const sourcesNewest = Math.max(
    newestMtime(fixtureDir(name)),
    newestMtime(join(fixturesRoot, "shared")),
    statSync(join(repoRoot, "package.json")).mtimeMs,
  );
  if (existsSync(out) && statSync(out).mtimeMs >= sourcesNewest) return out;
  try {
    // esbuild is resolved at call time so that a missing esbuild only costs speed, not correctness.
    const require = createRequire(import.meta.url);
    const esbuild = require("esbuild") as typeof import("esbuild");
    mkdirSync(cacheDir, { recursive: true });
    const tmp = `${out}.${process.pid}.${Date.now()}.tmp`;
    esbuild.buildSync({
      entryPoints: [join(fixtureDir(name), "server.ts")],
      outfile: tmp,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      external: EXTERNAL,
      logLevel: "silent",
      define: { __FIXTURE_DIR__: JSON.stringify(fixtureDir(name)) },
      // CommonJS dependencies inside an ESM bundle still call require() for node builtins.
      banner: { js: "import { createRequire as __trainMcpCreateRequire } from 'node:module';\nconst require = __trainMcpCreateRequire(import.meta.url);" },
    });
    renameSync(tmp, out);
    return out;
  } catch (err) {
    process.emitWarning(`train-mcp: bundling fixture ${name} failed, falling back to tsx: ${(err as Error).message}`);
    return undefined;
  }
}

/** The command line that runs a fixture over stdio (append `--http PORT` for HTTP). */
export function fixtureCommand(name: FixtureName): { command: string; args: string[] } {
  assertFixture(name);
  const bundle = ensureBundle(name);
  if (bundle) return { command: process.execPath, args: [bundle] };
  return { command: process.execPath, args: ["--import", "tsx", join(fixtureDir(name), "server.ts")] };
}

/** The tsx-loader command line (no bundle), kept for start-up comparisons and debugging. */
export function fixtureSourceCommand(name: FixtureName): { command: string; args: string[] } {
  assertFixture(name);
  return { command: process.execPath, args: ["--import", "tsx", join(fixtureDir(name), "server.ts")] };
}

export interface FixtureHttp {
  /** e.g. http://127.0.0.1:41234/mcp */
  url: string;
  /** Stops the server (SIGTERM, then SIGKILL after 3 s) and waits for it to exit. */
  close(): Promise<void>;
}

/**
 * Spawns a fixture with `--http 0` and resolves once it prints its listening line.
 * `args` are extra server flags (e.g. `["--db", file]` for shop). Rejects after `timeoutMs`
 * (default 20 s) or if the process exits first, quoting its stderr.
 */
export function startFixtureHttp(
  name: FixtureName,
  opts: { args?: string[]; timeoutMs?: number } = {},
): Promise<FixtureHttp> {
  const { command, args } = fixtureCommand(name);
  // stdin stays an open pipe with --exit-with-stdin: if this process dies, the server follows.
  const child = spawn(command, [...args, ...(opts.args ?? []), "--http", "0", "--exit-with-stdin"], {
    cwd: repoRoot,
    stdio: ["pipe", "ignore", "pipe"],
  });
  let stderr = "";
  const exited = new Promise<void>((res) => child.once("exit", () => res()));
  const close = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise<FixtureHttp>((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      void close();
      reject(new Error(`fixture ${name} did not start within ${opts.timeoutMs ?? 20_000} ms; stderr:\n${stderr}`));
    }, opts.timeoutMs ?? 20_000);
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderr += chunk;
      if (stderr.length > 20_000) stderr = stderr.slice(-20_000);
      const match = /^listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolvePromise({ url: match[1], close });
      }
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`fixture ${name} exited (${signal ?? `code ${code}`}) before listening; stderr:\n${stderr}`));
    });
    child.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** Removes every cached bundle (they are rebuilt on next use). */
export function clearFixtureBundles(): void {
  rmSync(cacheDir, { recursive: true, force: true });
}
