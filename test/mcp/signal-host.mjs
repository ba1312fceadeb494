// A process that starts one tracked child (a detached `sleep`) and prints its pid; with
// "handled" it also handles SIGINT itself, as `train` does, and exits 130 half a second later.
import { spawn } from "node:child_process";
import { register } from "tsx/esm/api";

register();
const { trackChild } = await import("../../src/mcp/children.ts");
const child = spawn("sleep", ["60"], { detached: true, stdio: "ignore" });
trackChild(child.pid);
if (process.argv[2] === "handled") process.on("SIGINT", () => setTimeout(() => process.exit(130), 500));
process.stdout.write(`${child.pid}\n`);
setInterval(() => {}, 1000);
