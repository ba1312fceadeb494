/**
 * A test MCP server (stdio) that offers the calculator fixture's tools and dies on every call, as
 * a server does during an outage: training must not learn from it, and must stop.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const number = { type: "number" };
const TOOLS = [
  { name: "calculate", description: "Evaluate one arithmetic expression and return the number.", inputSchema: { type: "object", properties: { expression: { type: "string" } }, required: ["expression"] } },
  { name: "percentage", description: "Percent of a value, or percent change.", inputSchema: { type: "object", properties: { value: number, percent: number }, required: ["value"] } },
  {
    name: "compound_interest",
    description: "Compound interest on a principal.",
    inputSchema: { type: "object", properties: { principal: number, rate_percent: number, years: number, compounds_per_year: number }, required: ["principal", "rate_percent", "years"] },
  },
  { name: "statistics", description: "Statistics of a list of numbers.", inputSchema: { type: "object", properties: { values: { type: "array", items: number } }, required: ["values"] } },
];

const server = new Server({ name: "crash-calc", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
server.setRequestHandler(CallToolRequestSchema, async () => {
  process.stderr.write("outage: crashing on purpose\n");
  process.exit(1);
});
await server.connect(new StdioServerTransport());
