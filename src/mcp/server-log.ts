/**
 * Where stdio servers' stderr goes when `--server-log` is not given: one file per process in the
 * temp dir. It is removed when the process exits with code 0 — a failure keeps it, since error
 * messages name it — so runs do not pile logs up in /tmp; a training run keeps its copy in the
 * run directory (`keepServerLog`).
 */
import { appendFileSync, existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { redactSecretValues } from "./command-credentials.js";

export const DEFAULT_SERVER_LOG = join(tmpdir(), "train-mcp", `server-${process.pid}.log`);

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
