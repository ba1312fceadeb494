/**
 * Starting the test-only servers of test/servers/ fast. Each is bundled once per source change
 * with esbuild (a tsx dependency) into node_modules/.cache/train-mcp-test-servers/<checkout hash>/, because
 * `node --import tsx` spends over a second per spawn and these tests spawn dozens; falls back
 * to the tsx loader when esbuild is missing. HTTP modes are started as plain children and
 * resolved once they print `listening on URL`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, "../..");
// one folder per checkout (worktrees may share node_modules): see src/mcp/fixtures.ts
const cacheDir = join(repoRoot, "node_modules", ".cache", "train-mcp-test-servers", createHash("sha256").update(repoRoot).digest("hex").slice(0, 12));

export function serverCommand(name: string): { command: string; args: string[] } {
  const src = join(here, `${name}.ts`);
  const out = join(cacheDir, `${name}.mjs`);
  try {
    const newest = Math.max(statSync(src).mtimeMs, statSync(fileURLToPath(import.meta.url)).mtimeMs);
    if (!existsSync(out) || statSync(out).mtimeMs < newest) {
      const esbuild = createRequire(import.meta.url)("esbuild") as typeof import("esbuild");
      mkdirSync(cacheDir, { recursive: true });
      const tmp = `${out}.${process.pid}.${Date.now()}.tmp`;
      esbuild.buildSync({ entryPoints: [src], outfile: tmp, bundle: true, platform: "node", format: "esm", target: "node20", logLevel: "silent",
        // a native addon finds its binary relative to its own package: loaded from node_modules
        external: ["better-sqlite3"],
        // CommonJS dependencies inside an ESM bundle still require() node builtins
        banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
      });
      renameSync(tmp, out);
    }
    return { command: process.execPath, args: [out] };
  } catch {
    return { command: process.execPath, args: ["--import", "tsx", src] };
  }
}

/** `stdio:<command line>` for a test server, quoted for splitCommandLine */
export function stdioTarget(name: string, ...extra: string[]): string {
  const { command, args } = serverCommand(name);
  return "stdio:" + [command, ...args, ...extra].map((w) => `'${w}'`).join(" ");
}

export interface HttpServer {
  url: string;
  child: ChildProcess;
  close(): Promise<void>;
}

/** spawns `command args…` and resolves with the URL it prints as `listening on URL` */
export function startListening(command: string, args: string[], timeoutMs = 20_000): Promise<HttpServer> {
  // in a folder of its own: what a server's tools write (everything's `write`) stays out of the
  // repository (the tsx fallback resolves its loader from the repository, so it runs there)
  const cwd = args[0] === "--import" ? repoRoot : mkdtempSync(join(tmpdir(), "test-server-"));
  const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"], cwd });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
    if (cwd !== repoRoot) rmSync(cwd, { recursive: true, force: true });
  };
  let stderr = "";
  return new Promise((res, rej) => {
    const timer = setTimeout(() => {
      void close();
      rej(new Error(`server did not start: ${stderr}`));
    }, timeoutMs);
    child.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString();
      const m = /listening on (\S+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        res({ url: m[1], child, close });
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      rej(new Error(`server exited (${code}) before listening: ${stderr}`));
    });
  });
}

export function startEverything(mode: "http" | "sse", port = 0, ...extra: string[]): Promise<HttpServer> {
  const { command, args } = serverCommand("everything");
  return startListening(command, [...args, `--${mode}`, String(port), ...extra]);
}

/** true while a process with this pid exists */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
