/**
 * A test MCP server (stdio, raw JSON-RPC) that answers initialize and then exits with code 1,
 * after `DELAY` ms (default 0: at once, as the client sends its `initialized` notification) —
 * what a database server does when it cannot reach its database. With `--say-on-stdout TEXT` it
 * first prints TEXT on stdout, as servers that log there do.
 */
import readline from "node:readline";

const argv = process.argv.slice(2);
const i = argv.indexOf("--say-on-stdout");
const said = i >= 0 ? argv[i + 1] : undefined;
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line) as { id?: number; method?: string };
  if (m.method !== "initialize") return;
  const result = { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "die-after-init", version: "1.0.0" } };
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result }) + "\n");
  if (said) process.stdout.write(said + "\n");
  setTimeout(() => process.exit(1), Number(process.env.DELAY ?? 0));
});
