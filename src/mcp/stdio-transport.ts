/**
 * A stdio client transport for MCP servers nobody here wrote. It follows the SDK's
 * StdioClientTransport (client/stdio.ts: spawn without a shell, newline-delimited JSON-RPC on
 * stdin/stdout) and differs where third-party servers demand it:
 * - the child runs in its own process group, so close() also ends grandchildren (`npx x`,
 *   `sh -c`, `uv run` wrappers) and nothing is left behind;
 * - stdout lines that are not JSON-RPC (servers that log to stdout) are skipped and counted,
 *   never fatal (the SDK reports them through onerror; here they only bump `junkLines`);
 * - stderr goes to a log file, not the user's terminal, and its tail is kept in memory so a
 *   server that dies on start-up can be explained in one line;
 * - close() is quick: stdin end, a short grace, then SIGTERM and SIGKILL to the group.
 */
import { spawn, type ChildProcess } from "node:child_process";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { trackChild, untrackChild } from "./children.js";
import { redactCommandWords, redactSecretValues, stdioServerSecrets } from "./command-credentials.js";
import { openServerLog, type ServerLog } from "./server-log.js";

export interface StdioTransportParams {
  command: string;
  args: string[];
  /** full environment of the child (the caller decides what to inherit) */
  env: Record<string, string>;
  /** working directory; default: this process's cwd */
  cwd?: string;
  /** file the child's stderr is appended to */
  logPath: string;
  /** largest stdout line kept in memory before it is dropped as junk; default 64 MiB */
  maxLineBytes?: number;
}

const STDERR_TAIL_CHARS = 2000;

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** stdout lines that were not JSON-RPC messages */
  junkLines = 0;
  private child?: ChildProcess;
  private log?: ServerLog;
  private buffer: Buffer = Buffer.alloc(0);
  private stderrTail = "";
  /** the last lines on stdout that were not JSON-RPC: a server that logs to stdout says why it
   *  stopped there (mcp-server-mysql's "Access denied"), not on stderr */
  private stdoutJunkTail: string[] = [];
  /** stderr not yet written to the log: it is written by whole lines, each scrubbed */
  private stderrPending = "";
  /** values the log and error messages must not show: secret-named env values, command-line secrets */
  private secrets: string[] = [];
  private exited = false;
  private exitInfo = "";
  private closing = false;
  private exitPromise?: Promise<void>;

  constructor(private readonly params: StdioTransportParams) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** last stderr output and exit status, for one-line error messages (with the log's path unless
   *  the text goes to the model, which has no use for a path on this machine) */
  describeFailure(withLogPath = true): string {
    // the last lines that say something: skip stack frames, blank lines and Node's version
    const meaningful = (lines: string[]) => lines.map((l) => l.trim()).filter((l) => l && !/^(at |Node\.js v|\^+$)/.test(l));
    const fromStderr = meaningful(this.stderrTail.split("\n"));
    // nothing on stderr: what it printed on stdout instead (a server that logs there)
    const said = fromStderr.length > 0 ? fromStderr : meaningful(this.stdoutJunkTail);
    const stream = fromStderr.length > 0 || said.length === 0 ? "stderr" : "stdout";
    // an exception's own line says most ("Error: Cannot find module …", Python's last
    // "ModuleNotFoundError: …"); Node prints its properties after it ("requireStack: [] | }")
    const errorLine = said.findLast((l) => /^(?:[\w.]*(?:Error|Exception)\b|error\b|fatal\b)/i.test(l));
    const tail = (errorLine ?? said.slice(-2).join(" | ")).slice(0, 400);
    // a server that fails without a word (mcp-server-mysql refused by its database): tell the user
    // (not the model, which reads the text without the log path) where to look
    const silent = withLogPath && !tail && /^server exited with code [1-9]/.test(this.exitInfo) ? "it said nothing on stderr or stdout: run its command by hand to see why; a setting it reads from its environment goes with -e NAME=VALUE" : "";
    const parts = [this.exitInfo, tail ? `${stream}: ${this.scrub(tail)}` : silent, withLogPath ? `log: ${this.params.logPath}` : ""];
    return parts.filter(Boolean).join("; ");
  }

  /** `text` without this server's secrets (a server may print its argv or environment) */
  private scrub(text: string): string {
    let out = text;
    for (const secret of this.secrets) if (secret.length >= 6) out = out.split(secret).join("***");
    return redactSecretValues(out);
  }

  start(): Promise<void> {
    if (this.child) throw new Error("StdioTransport already started");
    const { command, args, env, cwd, logPath } = this.params;
    this.secrets = stdioServerSecrets(command, args, env);
    this.log = openServerLog(logPath);
    this.log.write(`--- ${new Date().toISOString()} start: ${redactCommandWords([command, ...args]).join(" ")}\n`);
    return new Promise((resolve, reject) => {
      const child = spawn(command, args, {
        env,
        cwd,
        stdio: ["pipe", "pipe", "pipe"],
        shell: false,
        detached: true, // own process group: close() signals the whole group
        windowsHide: true,
      });
      this.child = child;
      this.exitPromise = new Promise((res) => child.once("close", () => res()));
      child.once("error", (error) => {
        this.exited = true;
        this.exitInfo = error.message; // e.g. "spawn foo ENOENT"
        reject(error);
        this.onerror?.(error);
      });
      child.once("spawn", () => {
        if (child.pid) trackChild(child.pid);
        this.log?.write(`--- pid ${child.pid}\n`);
        resolve();
      });
      child.once("exit", (code, signal) => {
        this.exited = true;
        this.exitInfo = signal ? `server killed by ${signal}` : `server exited with code ${code}`;
      });
      child.once("close", () => {
        this.exited = true;
        if (child.pid) {
          untrackChild(child.pid);
          killGroup(child.pid, "SIGKILL"); // leftovers of a wrapper that exited first
        }
        if (this.stderrPending) this.log?.write(`${this.scrub(this.stderrPending)}\n`);
        this.stderrPending = "";
        this.log?.write(`--- ${this.exitInfo || "closed"}\n`);
        this.log?.end();
        this.onclose?.();
      });
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("data", (chunk: Buffer) => this.onData(chunk));
      child.stderr?.on("data", (chunk: Buffer) => {
        const text = chunk.toString("utf8");
        const lines = this.stderrPending + text;
        const cut = lines.lastIndexOf("\n") + 1;
        if (cut > 0) this.log?.write(this.scrub(lines.slice(0, cut)));
        // a line still being written waits for its end, unless it grows past the tail's size
        let rest = lines.slice(cut);
        if (rest.length > STDERR_TAIL_CHARS) {
          this.log?.write(this.scrub(rest));
          rest = "";
        }
        this.stderrPending = rest;
        this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL_CHARS);
      });
    });
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    for (;;) {
      const nl = this.buffer.indexOf(0x0a);
      if (nl === -1) break;
      const line = this.buffer.toString("utf8", 0, nl).replace(/\r$/, "");
      this.buffer = this.buffer.subarray(nl + 1);
      this.onLine(line);
    }
    const max = this.params.maxLineBytes ?? 64 * 1024 * 1024;
    if (this.buffer.length > max) {
      // an endless line without a newline: drop it rather than grow without bound
      this.buffer = Buffer.alloc(0);
      this.junkLines++;
    }
  }

  private onLine(line: string): void {
    if (line.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line));
    } catch {
      this.junkLines++;
      this.log?.write(`[stdout, not JSON-RPC] ${this.scrub(line.slice(0, 500))}\n`);
      this.stdoutJunkTail = [...this.stdoutJunkTail, line.trim().slice(0, 500)].slice(-20);
      return;
    }
    this.onmessage?.(message);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || this.exited || stdin.destroyed) {
        reject(new Error(`Not connected (${this.exitInfo || "server not running"})`));
        return;
      }
      // settled by the write's own callback: a server that exits as the message goes out closes
      // the pipe, and "drain" would never come (the CLI then ended silently with Node's exit 13)
      stdin.write(JSON.stringify(message) + "\n", (error) => (error ? reject(new Error(`Not connected (${this.exitInfo || error.message})`)) : resolve()));
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child || this.closing) return this.exitPromise;
    this.closing = true;
    const waitExit = (ms: number) =>
      Promise.race([this.exitPromise, new Promise<void>((r) => setTimeout(r, ms).unref())]);
    if (!this.exited) {
      try {
        child.stdin?.end();
      } catch {
        /* already gone */
      }
      await waitExit(300);
    }
    if (!this.exited && child.pid) {
      killGroup(child.pid, "SIGTERM");
      await waitExit(1500);
    }
    if (!this.exited && child.pid) {
      killGroup(child.pid, "SIGKILL");
      await waitExit(1000);
    }
    if (child.pid) killGroup(child.pid, "SIGKILL");
  }
}

/** Signals the child's whole process group; falls back to the child alone. */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
  }
}
