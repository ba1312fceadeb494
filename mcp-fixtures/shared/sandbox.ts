/**
 * Runs a Node.js script in a locked-down child process; used by code-runner (snippets) and
 * codefix (test runs of model-edited code).
 *
 * Layers, each independent of the others:
 * - a separate process with an empty environment (no inherited secrets), killed with SIGKILL at
 *   a wall-clock deadline, its stdout capped;
 * - the Node permission model (`--experimental-permission` on Node 20, `--permission` on newer):
 *   file reads only from the listed paths, writes only to the listed paths, no child processes,
 *   no worker threads, no native addons. It does NOT restrict the network on Node 20;
 * - `--disallow-code-generation-from-strings` (eval / new Function throw in every realm);
 * - memory: a V8 heap cap (`--max-old-space-size`) and, on Linux, an address-space cap
 *   (`ulimit -v`) that also bounds ArrayBuffers and other off-heap allocations;
 * - on Linux where unprivileged user namespaces are allowed, new user, network, PID and IPC
 *   namespaces (`unshare`): no network interface but a loopback that is down, and no process
 *   outside the sandbox can be signalled. This is what blocks TCP/UDP on Node 20; a Unix socket
 *   reached by its path is not blocked (mcp-fixtures/README.md says where that matters).
 *
 * Reference: https://nodejs.org/api/permissions.html (process-based permissions).
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";

export interface SandboxOptions {
  /** Absolute path of the script to run (it is added to the readable paths). */
  script: string;
  args?: string[];
  /** Working directory of the child. */
  cwd: string;
  /** Paths (files or directories) the child may read; default none besides the script. */
  readPaths?: string[];
  /** Paths the child may write; default none. */
  writePaths?: string[];
  /** V8 old-space limit in MiB (default 96). */
  heapMb?: number;
  /** Address-space limit in MiB, Linux only (default 1024); 0 disables it. */
  vmemMb?: number;
  /** Wall-clock limit in ms after which the child is SIGKILLed (default 5000). */
  timeoutMs: number;
  /** Written to the child's stdin, which is then closed. */
  input?: string;
  /** Stdout bytes kept (default 1 MiB); the child is killed if it writes more. */
  maxOutputBytes?: number;
  /** Freeze the JavaScript built-ins (`--frozen-intrinsics`): code run in the child cannot
   *  rewrite Object, Array, JSON, Error… under a script that runs beside it (codefix's test runner). */
  frozenIntrinsics?: boolean;
}

export interface SandboxOutcome {
  stdout: string;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  outputLimitHit: boolean;
  /** The child died because a memory cap was reached (heap or address space). */
  outOfMemory: boolean;
}

/** The permission-model flag for the running Node version. */
export function permissionFlag(): string {
  const [major, minor] = process.versions.node.split(".").map(Number);
  // --permission is stable from 22.13 / 23.5; earlier releases only know the experimental flag.
  return major > 23 || (major === 23 && minor >= 5) || (major === 22 && minor >= 13) ? "--permission" : "--experimental-permission";
}

/** Node flags that apply the permission model and the heap cap. */
export function sandboxNodeFlags(opts: Pick<SandboxOptions, "script" | "readPaths" | "writePaths" | "heapMb" | "frozenIntrinsics">): string[] {
  return [
    "--no-warnings",
    ...(opts.frozenIntrinsics ? ["--frozen-intrinsics"] : []),
    permissionFlag(),
    ...[opts.script, ...(opts.readPaths ?? [])].map((p) => `--allow-fs-read=${p}`),
    ...(opts.writePaths ?? []).map((p) => `--allow-fs-write=${p}`),
    "--disallow-code-generation-from-strings",
    `--max-old-space-size=${opts.heapMb ?? 96}`,
  ];
}

const NAMESPACE_FLAGS = ["--user", "--net", "--pid", "--ipc", "--fork", "--kill-child"];

export type NamespaceSupport = { available: true; unshare: string } | { available: false; reason: string };

let namespaceSupport: NamespaceSupport | undefined;

/** Whether this machine lets an unprivileged process make the sandbox's namespaces (probed once). */
export function sandboxNamespaces(): NamespaceSupport {
  if (namespaceSupport) return namespaceSupport;
  if (process.platform !== "linux") return (namespaceSupport = { available: false, reason: `not Linux (${process.platform})` });
  if (process.env.SANDBOX_NAMESPACES === "off") return (namespaceSupport = { available: false, reason: "turned off by SANDBOX_NAMESPACES=off" });
  const unshare = ["/usr/bin/unshare", "/bin/unshare"].find((p) => fs.existsSync(p));
  if (!unshare) return (namespaceSupport = { available: false, reason: "no unshare binary (util-linux)" });
  const probe = spawnSync(unshare, [...NAMESPACE_FLAGS, "/bin/sh", "-c", "exit 0"], { env: {}, timeout: 10_000, encoding: "utf8" });
  namespaceSupport =
    probe.status === 0
      ? { available: true, unshare }
      : { available: false, reason: `unshare refused: ${(probe.stderr || probe.error?.message || `exit ${probe.status}`).trim().split("\n")[0]}` };
  return namespaceSupport;
}

let warnedWithoutNamespaces = false;

/** Loaded first in the sandboxed Node (a data: URL: nothing to read from disk): its exit code on fd 3. */
const EXIT_CODE_REPORTER = `data:text/javascript,${encodeURIComponent('import { writeSync } from "node:fs"; process.on("exit", (code) => { try { writeSync(3, String(code)); } catch {} });')}`;

function signalName(n: number): NodeJS.Signals | undefined {
  return (Object.entries(os.constants.signals) as [NodeJS.Signals, number][]).find(([, v]) => v === n)?.[0];
}

export function runSandboxed(opts: SandboxOptions): Promise<SandboxOutcome> {
  const nodeArgs = [...sandboxNodeFlags(opts), opts.script, ...(opts.args ?? [])];
  const vmemMb = opts.vmemMb ?? 1024;
  const useUlimit = process.platform === "linux" && vmemMb > 0;
  const ns = sandboxNamespaces();
  if (!ns.available && !warnedWithoutNamespaces) {
    warnedWithoutNamespaces = true;
    // stderr is the server's log (stdout carries MCP): said once, on the first sandboxed run
    process.stderr.write(`[sandbox] running without namespaces (${ns.reason}): the network is not blocked at the OS level\n`);
  }
  // In a new PID namespace the first process is its init, which the kernel spares signals it has
  // no handler for (a V8 abort among them): a shell is that init and Node its child, whose status
  // it passes on (128 + signal); `exit $?` keeps bash (as /bin/sh elsewhere) from exec'ing Node in
  // its place. When the timer kills unshare, --kill-child takes the namespace down.
  // That 128 + n is also what `process.exit(128 + n)` gives, so Node itself says how it exited,
  // on a pipe of its own (fd 3): no line there means a signal took it.
  const inner = ns.available
    ? [ns.unshare, ...NAMESPACE_FLAGS, "/bin/sh", "-c", '"$@"; exit $?', "sh", process.execPath, `--import=${EXIT_CODE_REPORTER}`, ...nodeArgs]
    : [process.execPath, ...nodeArgs];
  // `ulimit -v` must be set in the child before exec, so on Linux we go through /bin/sh.
  const [command, args] = useUlimit ? ["/bin/sh", ["-c", `ulimit -v ${vmemMb * 1024} && exec "$0" "$@"`, ...inner]] : [inner[0], inner.slice(1)];
  const maxOut = opts.maxOutputBytes ?? 1024 * 1024;

  return new Promise((resolve) => {
    const child = spawn(command, args as string[], { cwd: opts.cwd, env: {}, stdio: ["pipe", "pipe", "pipe", ...(ns.available ? ["pipe" as const] : [])] });
    let exitReport = "";
    (child.stdio[3] as NodeJS.ReadableStream | undefined)?.on("data", (b: Buffer) => {
      if (exitReport.length < 16) exitReport += b.toString("utf8");
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let timedOut = false;
    let outputLimitHit = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, opts.timeoutMs);
    child.stdout.on("data", (b: Buffer) => {
      outBytes += b.length;
      if (outBytes > maxOut) {
        outputLimitHit = true;
        child.kill("SIGKILL");
        return;
      }
      out.push(b);
    });
    child.stderr.on("data", (b: Buffer) => {
      errBytes += b.length;
      if (errBytes <= 64 * 1024) err.push(b);
    });
    child.stdin.on("error", () => undefined); // the child may exit before reading its input
    child.stdin.end(opts.input ?? "");
    const finish = (exitCode: number | null, exitSignal: NodeJS.Signals | null): void => {
      clearTimeout(timer);
      // the namespace's init shell reports Node's death by a signal as 128 + its number; Node's
      // own report of its exit code says it was no signal
      const reported = /^\d+$/.test(exitReport.trim()) ? Number(exitReport.trim()) : undefined;
      const bySignal = ns.available && exitCode !== null && exitCode > 128 && reported !== exitCode ? signalName(exitCode - 128) : undefined;
      const [code, signal] = bySignal ? [null, bySignal] : [exitCode, exitSignal];
      const stderr = Buffer.concat(err).toString("utf8");
      const outOfMemory =
        !timedOut &&
        !outputLimitHit &&
        (/heap limit|out of memory|allocation failed/i.test(stderr) || signal === "SIGABRT" || code === 134);
      resolve({ stdout: Buffer.concat(out).toString("utf8"), stderr, code, signal, timedOut, outputLimitHit, outOfMemory });
    };
    child.once("close", finish);
    child.once("error", (e) => {
      err.push(Buffer.from(String(e)));
      finish(null, null);
    });
  });
}
