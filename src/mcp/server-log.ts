/**
 * Where stdio servers' stderr goes when `--server-log` is not given: one file per process in a
 * folder of this user's own in the temp dir (mode 0700; the file 0600, never opened through a
 * link), so another user of the machine can neither read what servers print nor plant a link
 * that the log is then written through. It is removed when the process exits with code 0 — a
 * failure keeps it, since error messages name it — so runs do not pile logs up in /tmp; a
 * training run keeps its copy in the run directory (`keepServerLog`).
 */
import { appendFileSync, chmodSync, closeSync, constants, existsSync, lstatSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { TrainMcpError } from "../errors.js";
import { redactSecretValues } from "./command-credentials.js";

const uid = process.getuid?.();

export const DEFAULT_SERVER_LOG = join(tmpdir(), uid === undefined ? "train-mcp" : `train-mcp-${uid}`, `server-${process.pid}.log`);

/**
 * Where a stdio transport appends its server's stderr. Written synchronously: a server that dies
 * at start makes the CLI exit at once, and its last words must be in the log the error names
 * (a stream's queued writes were lost then). A write that fails stops the log, never the run.
 */
export interface ServerLog {
  write(text: string): void;
  end(text?: string): void;
}

class FileLog implements ServerLog {
  constructor(private fd: number | undefined) {}

  write(text: string): void {
    if (this.fd === undefined) return;
    try {
      writeSync(this.fd, text);
    } catch {
      this.end();
    }
  }

  end(text?: string): void {
    if (text) this.write(text);
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      closeSync(fd);
    } catch {
      /* closed already */
    }
  }
}

/** The default log privately; a `--server-log` file as given, its folders made. */
export function openServerLog(logPath: string): ServerLog {
  if (logPath !== DEFAULT_SERVER_LOG) {
    const why = (e: unknown) => ((e as NodeJS.ErrnoException).code === "EISDIR" ? "it is a folder: name a file in it" : (e as Error).message);
    try {
      makeFolders(dirname(resolve(logPath)));
      return new FileLog(openSync(logPath, "a"));
    } catch (e) {
      throw new TrainMcpError("ConfigInvalid", `--server-log ${logPath}: cannot write it (${why(e)})`);
    }
  }
  privateFolder(dirname(logPath));
  removeDefaultServerLogOnCleanExit();
  try {
    return new FileLog(openSync(logPath, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600));
  } catch (e) {
    throw new TrainMcpError("IoFailed", `cannot open the servers' log ${logPath} (${(e as NodeJS.ErrnoException).code === "ELOOP" ? "a link is in its place" : (e as Error).message}): remove it, or give --server-log FILE`);
  }
}

/**
 * `mkdir -p`, one folder at a time from the nearest that exists. Node 20's own recursive mkdir
 * loops forever where a folder cannot be made under /proc or /sys (ENOENT, then EEXIST for the
 * parent, again and again); this one fails with the first error.
 */
function makeFolders(dir: string): void {
  const missing: string[] = [];
  let at = dir;
  while (!existsSync(at)) {
    missing.unshift(at);
    const up = dirname(at);
    if (up === at) break;
    at = up;
  }
  for (const d of missing) mkdirSync(d);
}

function privateFolder(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || (uid !== undefined && st.uid !== uid))
    throw new TrainMcpError("IoFailed", `${dir} (where stdio servers' stderr is logged) is ${st.isDirectory() ? "another user's folder" : "not a folder"}: remove it, or give --server-log FILE`);
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

let removalArmed = false;

/** Called by the stdio transport when it opens the default log. */
export function removeDefaultServerLogOnCleanExit(): void {
  if (removalArmed) return;
  removalArmed = true;
  process.on("exit", (code) => {
    if (code === 0) rmSync(DEFAULT_SERVER_LOG, { force: true });
  });
}

/** The default log's size now: what a later `keepServerLog` starts from. */
export function defaultServerLogSize(): number {
  return existsSync(DEFAULT_SERVER_LOG) ? statSync(DEFAULT_SERVER_LOG).size : 0;
}

/** Appends what the default log gained since byte `from` to `dest`, e.g. `<run>/server.log`;
 *  returns the byte it read up to, where the next call starts. */
export function keepServerLog(dest: string, from = 0, final = false): number {
  if (!existsSync(DEFAULT_SERVER_LOG)) return from;
  try {
    const bytes = readFileSync(DEFAULT_SERVER_LOG);
    // whole lines only, but for the last call: a line still being written waits for the next one
    const end = final ? bytes.length : bytes.lastIndexOf(0x0a) + 1;
    if (end <= from) return from;
    // (each transport blanked its own server's secrets already)
    const gained = redactSecretValues(bytes.subarray(from, end).toString("utf8"));
    if (gained.length > 0) appendFileSync(dest, gained);
    return end;
  } catch {
    // a log that cannot be copied never fails the run
    return from;
  }
}
