#!/usr/bin/env node
// Entry point: runs the TypeScript CLI through tsx, so a fresh clone needs no build step.
import { register } from "tsx/esm/api";

register();
// a reader that goes away (`train-mcp ... | head`) must not stop a run: what it would have read is dropped
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (e) => {
    if (e.code !== "EPIPE") throw e;
  });
}
// A command that waits on something that can never settle (a promise no event will resolve) used
// to end with Node's silent exit 13 once nothing was left to run; say so and exit 70 instead.
let finished = false;
process.on("beforeExit", () => {
  if (finished) return;
  process.stderr.write("train-mcp: stopped waiting on something that will never answer (an internal error: please report it with the command you ran)\n");
  process.exit(70);
});
const { main } = await import("../src/cli/main.ts");
// Exit explicitly once the command is done: the wasm backend's worker threads (training with
// 2 threads) would otherwise keep the process alive. Writes to pipes and files are synchronous
// on Linux, so nothing printed is lost. (`serve` returns only when it is stopped.)
const code = await main(process.argv.slice(2));
finished = true;
process.exit(code);
