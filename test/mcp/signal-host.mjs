// A process that starts one tracked child (a detached `sleep`) and prints its pid; with
// "handled" it also handles SIGINT itself, as `train` does, and exits 130 half a second later.
// The second number printed is the pid of the guard that ends the child if the host is SIGKILLed;
// with "tempdir" as second argument, the third is a tracked temporary folder.
import { spawn } from "node:child_process";
import { register } from "tsx/esm/api";

register();
const { trackChild, untrackChild, guardPid, trackTempDir } = await import("../../src/mcp/children.ts");
const { mkdtempSync, writeFileSync } = await import("node:fs");
const { tmpdir } = await import("node:os");
const child = spawn("sleep", ["60"], { detached: true, stdio: "ignore" });
trackChild(child.pid);
if (process.argv[2] === "handled") process.on("SIGINT", () => setTimeout(() => process.exit(130), 500));
// SIGUSR2: forget the child (as a transport does once its server has exited) and say so
process.on("SIGUSR2", () => {
  untrackChild(child.pid);
  process.stdout.write("untracked\n");
});
// "tempdir": a tracked working copy (a --template-dir copy of a user's data), printed third
let dir = "";
if (process.argv[3] === "tempdir") {
  dir = mkdtempSync(`${tmpdir()}/train-mcp-work-`);
  writeFileSync(`${dir}/private.txt`, "a copy of the user's data\n");
  trackTempDir(dir);
}
process.stdout.write(`${child.pid} ${guardPid()} ${dir}\n`);
setInterval(() => {}, 1000);
