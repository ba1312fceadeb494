/**
 * A test MCP server (stdio) that offers the calculator fixture's tools and dies on every call, as
 * a server does during an outage: training must not learn from it, and must stop.
 * `--crash-every N`: dies on every Nth call only (answering the others with a number);
 * `--tool-error`: never dies, answers every call with the tool's own error (a locked database);
 * `--down-when FILE`: answers every call while FILE is absent, dies on every call once it exists
 * (an outage that starts at a moment the test chooses).
 */
import fs from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import calculatorTools from "./calculator-tools.json" with { type: "json" };

// the calculator fixture's own tool list (`train-mcp tools --server fixture:calculator --json`), so
// the built-in model calls them as it learned to
const TOOLS = calculatorTools;

// the calculator in an outage: named as the fixture is, so the generator plays the calculator's
// own recipes on it (a fixture's recipes apply only to the server that gives its name)
const server = new Server({ name: "calculator", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
const argv = process.argv.slice(2);
const crashEvery = argv.includes("--crash-every") ? Number(argv[argv.indexOf("--crash-every") + 1]) : 1;
const downWhen = argv.includes("--down-when") ? argv[argv.indexOf("--down-when") + 1] : undefined;
let calls = 0;
server.setRequestHandler(CallToolRequestSchema, async () => {
  if (argv.includes("--tool-error")) return { content: [{ type: "text", text: "database is locked" }], isError: true };
  const down = downWhen !== undefined ? fs.existsSync(downWhen) : ++calls % crashEvery === 0;
  if (!down) return { content: [{ type: "text", text: "1234.56" }] };
  process.stderr.write("outage: crashing on purpose\n");
  // answers already written reach the client first (stdout to a pipe is asynchronous)
  await new Promise((resolve) => setTimeout(resolve, 50));
  process.exit(1);
});
await server.connect(new StdioServerTransport());
