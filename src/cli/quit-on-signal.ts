/**
 * Ctrl-C (or a scheduler's SIGTERM) during a command that has nothing to save on the way out:
 * one line saying what was and was not written, then exit 130 / 143 at once (the MCP servers end
 * with the process). Returns the function that takes the handler away again.
 */
export function quitOnSignal(say: (sig: NodeJS.Signals) => string): () => void {
  const onSignal = (sig: NodeJS.Signals) => {
    process.stderr.write(`${say(sig)}\n`);
    process.exit(sig === "SIGTERM" ? 143 : 130);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return () => {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  };
}
