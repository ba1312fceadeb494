/**
 * Registry of the server processes this process started, so none outlives it: on exit (normal
 * end, or SIGINT/SIGTERM without another handler) every tracked process group gets SIGKILL.
 * Children are spawned detached (own group, see stdio-transport.ts), so without this a crash of
 * train-mcp could leave servers running.
 */
const live = new Set<number>();
let hooked = false;

function killAll(): void {
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
  }
  live.clear();
}

export function trackChild(pid: number): void {
  live.add(pid);
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
  live.delete(pid);
}

/** pids of server processes still running (for tests and diagnostics) */
export function liveChildren(): number[] {
  return [...live];
}
