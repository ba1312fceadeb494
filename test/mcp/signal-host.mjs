// A process that starts one tracked child (a detached `sleep`) and prints its pid; with
// "handled" it also handles SIGINT itself, as `train` does, and exits 130 half a second later.
// The second number printed is the pid of the guard that ends the child if the host is SIGKILLed.
import { spawn } from "node:child_process";
import { register } from "tsx/esm/api";

register();
const { trackChild, untrackChild, guardPid } = await import("../../src/mcp/children.ts");
const child = spawn("sleep", ["60"], { detached: true, stdio: "ignore" });
trackChild(child.pid);
if (process.argv[2] === "handled") process.on("SIGINT", () => setTimeout(() => process.exit(130), 500));
// SIGUSR2: forget the child (as a transport does once its server has exited) and say so
process.on("SIGUSR2", () => {
  untrackChild(child.pid);
  process.stdout.write("untracked\n");
});
process.stdout.write(`${child.pid} ${guardPid()}\n`);
setInterval(() => {}, 1000);
