/**
 * Registry of the server processes this process started, so none outlives it: on exit (normal
 * end, or SIGINT/SIGTERM without another handler) every tracked process group gets SIGKILL.
 * Children are spawned detached (own group, see stdio-transport.ts), so without this a crash of
 * train-mcp could leave servers running.
 *
 * An exit hook cannot run when this process is SIGKILLed (a scheduler's grace period ending, an
 * OOM kill). For that a guard keeps the same list outside it: a small `sh` in its own process
 * group, told of each child on its stdin. The kernel closes that pipe however this process ends;
 * at end of input the guard sends what is still listed SIGTERM, then SIGKILL a second later.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import type { Socket } from "node:net";

const live = new Set<number>();
let hooked = false;

/** `add PID` / `del PID` lines; at end of input, TERM then KILL what is listed (groups first). */
const GUARD_SCRIPT = `
trap '' INT TERM HUP PIPE
pids=" "
while read -r op pid; do
  case "$op" in
    add) pids="$pids$pid " ;;
    del) kept=" "; for q in $pids; do [ "$q" = "$pid" ] || kept="$kept$q "; done; pids=$kept ;;
  esac
done
[ "$pids" = " " ] && exit 0
for p in $pids; do kill -s TERM -- "-$p" 2>/dev/null || kill -s TERM "$p" 2>/dev/null; done
sleep 1
for p in $pids; do kill -s KILL -- "-$p" 2>/dev/null || kill -s KILL "$p" 2>/dev/null; done
exit 0
`;

let guard: ChildProcess | undefined;
let guardFailed = false;

/** Tells the guard a line, starting it first; a guard that cannot start is done without. */
function tellGuard(line: string): void {
  if (process.platform === "win32" || guardFailed) return;
  if (!guard) {
    try {
      guard = spawn("/bin/sh", ["-c", GUARD_SCRIPT], { detached: true, stdio: ["pipe", "ignore", "ignore"] });
    } catch {
      guardFailed = true;
      return;
    }
    guard.once("error", () => {
      guardFailed = true;
      guard = undefined;
    });
    guard.stdin?.on("error", () => {}); // a guard gone early must not crash this process
    // neither the guard nor its pipe may keep this process alive
    guard.unref();
    (guard.stdin as Socket | null)?.unref?.();
  }
  guard.stdin?.write(`${line}\n`);
}

/** Working copies of a --template-dir (copies of a user's data): removed with the children. */
const tempDirs = new Set<string>();

export function trackTempDir(dir: string): void {
  tempDirs.add(dir);
}

export function untrackTempDir(dir: string): void {
  tempDirs.delete(dir);
}

function killAll(): void {
  // the servers first (they may be writing there), then their copies of the data
  killChildren();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

function killChildren(): void {
  for (const pid of live) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        /* gone */
      }
    }
    tellGuard(`del ${pid}`);
  }
  live.clear();
}

export function trackChild(pid: number): void {
  live.add(pid);
  tellGuard(`add ${pid}`);
  if (hooked) return;
  hooked = true;
  process.once("exit", killAll);
  for (const sig of ["SIGINT", "SIGTERM"] as const) {
    const onSignal = () => {
      // a command that handles the signal itself (train finishes its step and checkpoints)
      // still needs its servers: it closes them, and the exit hook kills whatever is left
      if (process.listenerCount(sig) > 1) return;
      killAll();
      // then the default behaviour: the process ends by the signal
      process.off(sig, onSignal);
      process.kill(process.pid, sig);
    };
    process.on(sig, onSignal);
  }
}

export function untrackChild(pid: number): void {
  if (live.delete(pid)) tellGuard(`del ${pid}`);
}

/** pids of server processes still running (for tests and diagnostics) */
export function liveChildren(): number[] {
  return [...live];
}

/** pid of the guard that ends the tracked servers if this process is killed outright */
export function guardPid(): number | undefined {
  return guard?.pid;
}
