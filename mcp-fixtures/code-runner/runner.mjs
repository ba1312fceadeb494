// Child-process side of code-runner: reads {code, timeoutMs} as JSON from stdin, runs the code in
// a fresh vm context that holds only the JavaScript built-ins and an in-context `console`, and
// writes one JSON line {stdout, result, error} to stdout.
//
// No host object is put into the context (not even console functions), so snippet code cannot
// walk `.constructor` chains back to this realm's Function; and the process runs with
// --disallow-code-generation-from-strings, so even that Function could not compile code. The
// process itself is under the Node permission model and OS limits (see shared/sandbox.ts); this
// file is the inner layer, not the only one.
import vm from "node:vm";
import net from "node:net";
import dgram from "node:dgram";
import dns from "node:dns";

// Defence in depth for the network, which the Node 20 permission model does not cover: nothing
// in the context can reach these modules, but if something ever did, sockets still refuse.
const refuse = () => {
  throw new Error("network access is disabled in this sandbox");
};
net.Socket.prototype.connect = refuse;
net.Server.prototype.listen = refuse;
dgram.Socket.prototype.bind = refuse;
dgram.Socket.prototype.send = refuse;
dns.lookup = refuse;
for (const name of ["fetch", "WebSocket", "EventSource", "XMLHttpRequest"]) delete globalThis[name];

const MAX_STDOUT_CHARS = 4000;
// a result or error past this is cut, marked: the reply stays one line a model can read (and far
// under the parent's output cap, which is a backstop that kills the process)
const MAX_RESULT_CHARS = 20000;
const cut = (s) => (s !== null && s.length > MAX_RESULT_CHARS ? `${s.slice(0, MAX_RESULT_CHARS)}... [truncated: ${s.length} characters in all]` : s);

// Runs inside the context: console and a value formatter, built from the context's own built-ins.
const BOOTSTRAP = `
(() => {
  const out = [];
  let size = 0;
  let truncated = false;
  const fmt = (v, depth = 0) => {
    if (typeof v === "string") return depth === 0 ? v : JSON.stringify(v);
    if (typeof v === "bigint") return v + "n";
    if (typeof v === "function") return "[Function " + (v.name || "anonymous") + "]";
    if (typeof v === "symbol") return v.toString();
    if (v === null || typeof v !== "object") return String(v);
    if (v instanceof Error) return v.name + ": " + v.message;
    if (depth > 4) return Array.isArray(v) ? "[Array]" : "[Object]";
    if (v instanceof Map) return "Map(" + v.size + ") {" + [...v].map(([k, x]) => fmt(k, depth + 1) + " => " + fmt(x, depth + 1)).join(", ") + "}";
    if (v instanceof Set) return "Set(" + v.size + ") {" + [...v].map((x) => fmt(x, depth + 1)).join(", ") + "}";
    if (Array.isArray(v)) return "[" + v.slice(0, 100).map((x) => fmt(x, depth + 1)).join(", ") + (v.length > 100 ? ", ... " + (v.length - 100) + " more" : "") + "]";
    const keys = Object.keys(v);
    return "{" + keys.slice(0, 100).map((k) => k + ": " + fmt(v[k], depth + 1)).join(", ") + "}";
  };
  const write = (...args) => {
    if (truncated) return;
    const line = args.map((a) => fmt(a)).join(" ");
    const room = ${MAX_STDOUT_CHARS} - size;
    size += line.length + 1;
    // the line that crosses the limit keeps what fits of it
    if (size > ${MAX_STDOUT_CHARS}) { truncated = true; if (room > 0) out.push(line.slice(0, room)); out.push("... [output truncated]"); return; }
    out.push(line);
  };
  globalThis.console = { log: write, info: write, warn: write, error: write, debug: write };
  Object.defineProperty(globalThis, "__sandbox", { value: { out, fmt }, enumerable: false });
})();
`;

async function readStdin() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return Buffer.concat(chunks).toString("utf8");
}

const describeError = (e) => {
  try {
    if (e && typeof e === "object" && "message" in e) return `${e.name ?? "Error"}: ${e.message}`;
    return `Uncaught ${String(e)}`;
  } catch {
    return "Uncaught exception";
  }
};

// what a snippet throws may be anything (a getter or a Proxy trap that throws): read inside a try
const isTimeout = (e) => {
  try {
    return /Script execution timed out/.test(String(e?.message));
  } catch {
    return false;
  }
};

const { code, timeoutMs } = JSON.parse(await readStdin());
const context = vm.createContext({}, { codeGeneration: { strings: false, wasm: false }, name: "snippet" });
vm.runInContext(BOOTSTRAP, context);
const sandbox = vm.runInContext("__sandbox", context);

let result = null;
let error = null;
const started = Date.now();
try {
  let value = new vm.Script(code, { filename: "snippet.js" }).runInContext(context, { timeout: timeoutMs, displayErrors: false });
  // No completion value: fall back to a top-level `result` binding (var, let or const).
  if (value === undefined) value = vm.runInContext("typeof result === 'undefined' ? undefined : result", context);
  if (value && typeof value.then === "function") {
    const left = Math.max(1, timeoutMs - (Date.now() - started));
    value = await Promise.race([
      value,
      new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for the promise`)), left)),
    ]);
  }
  result = value === undefined ? null : sandbox.fmt(value);
} catch (e) {
  error = isTimeout(e) ? `timed out after ${timeoutMs} ms` : describeError(e);
}
// exit once the line is written: a pipe takes a long line in parts, and exit drops what is queued
process.stdout.write(JSON.stringify({ stdout: sandbox.out.join("\n"), result: cut(result), error: cut(error) }) + "\n", () => process.exit(0));
