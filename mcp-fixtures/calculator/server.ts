/**
 * calculator: an MCP server for arithmetic, percentages, compound interest and basic statistics.
 *
 * Modelled on the seed ToolEnvironment's `calculator` tool ("What is 15% of 380?", "compound
 * interest on $1000 at 5% for 3 years"). Expressions are evaluated by a sandboxed mathjs
 * instance (./math.ts), never by `eval`. Every tool returns a plain-text answer plus
 * structuredContent matching its outputSchema; bad input comes back as `isError` with a message
 * that says what to fix.
 *
 * Run: `node --import tsx mcp-fixtures/calculator/server.ts [--http PORT]`.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { fail, structured } from "../shared/results.js";
import { serve } from "../shared/serve.js";
import { clean, formatNumber, MAX_EXPRESSION_LENGTH } from "./format.js";

// mathjs takes a noticeable share of start-up; build it on the first `calculate` call instead, so
// a fresh server answers tools/list quickly (one server is spawned per rollout in training).
let mathModule: Promise<typeof import("./math.js")> | undefined;
const loadMath = (): Promise<typeof import("./math.js")> => (mathModule ??= import("./math.js"));

const finite = (what: string) => z.number().finite().describe(what);

function createServer(): McpServer {
  const server = new McpServer({ name: "calculator", version: "1.0.0" });

  server.registerTool(
    "calculate",
    {
      title: "Calculate",
      description:
        "Evaluate one arithmetic expression and return the number. Supports + - * / ^ (power), " +
        "parentheses, percentages ('15% of 80', '200 + 10%'), sqrt(), abs(), round(), log(x, base), " +
        "exp(), sin()/cos()/tan() in radians, pi and e. Example: {\"expression\": \"(3 + 4) * 2^3\"}.",
      inputSchema: {
        expression: z
          .string()
          .min(1)
          .max(MAX_EXPRESSION_LENGTH)
          .describe("The expression to evaluate, e.g. '15% of 380' or '1000 * (1 + 0.05)^3'"),
      },
      outputSchema: { result: z.number().describe("The value of the expression") },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ expression }) => {
      const out = (await loadMath()).evaluateExpression(expression);
      if (!out.ok) return fail(out.error);
      return structured(formatNumber(out.value), { result: out.value });
    },
  );

  server.registerTool(
    "percentage",
    {
      title: "Percentage",
      description:
        "Percentage helper. operation 'percent_of': what is a% of b (a=15, b=80 -> 12). " +
        "'what_percent': a is what percent of b (a=12, b=80 -> 15). " +
        "'percent_change': percent change going from a to b (a=80, b=92 -> 15).",
      inputSchema: {
        operation: z
          .enum(["percent_of", "what_percent", "percent_change"])
          .describe("Which percentage question to answer"),
        a: finite("First number: the percent for 'percent_of', the part for 'what_percent', the old value for 'percent_change'"),
        b: finite("Second number: the whole for 'percent_of' and 'what_percent', the new value for 'percent_change'"),
      },
      outputSchema: { result: z.number().describe("The answer (a percent for what_percent and percent_change)") },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ operation, a, b }) => {
      let value: number;
      let sentence: string;
      if (operation === "percent_of") {
        value = clean((a / 100) * b);
        sentence = `${formatNumber(a)}% of ${formatNumber(b)} is ${formatNumber(value)}`;
      } else if (operation === "what_percent") {
        if (b === 0) return fail("'what_percent' needs b (the whole) to be non-zero");
        value = clean((a / b) * 100);
        sentence = `${formatNumber(a)} is ${formatNumber(value)}% of ${formatNumber(b)}`;
      } else {
        if (a === 0) return fail("'percent_change' needs a (the old value) to be non-zero");
        value = clean(((b - a) / Math.abs(a)) * 100);
        sentence = `going from ${formatNumber(a)} to ${formatNumber(b)} is a change of ${formatNumber(value)}%`;
      }
      return structured(sentence, { result: value });
    },
  );

  server.registerTool(
    "compound_interest",
    {
      title: "Compound interest",
      description:
        "Future value of a deposit with compound interest: principal * (1 + rate/n)^(n*years). " +
        "Returns the final amount and the interest earned. Example: principal 1000, rate_percent 5, " +
        "years 3 -> amount 1157.625.",
      inputSchema: {
        principal: z.number().finite().min(0).max(1e12).describe("Starting amount of money, e.g. 1000"),
        rate_percent: z.number().finite().min(-100).max(1000).describe("Yearly interest rate in percent, e.g. 5 for 5%"),
        years: z.number().finite().min(0).max(200).describe("Number of years the money grows"),
        compounds_per_year: z
          .number()
          .int()
          .min(1)
          .max(365)
          .optional()
          .describe("How many times per year interest is added: 1 yearly (default), 4 quarterly, 12 monthly, 365 daily"),
      },
      outputSchema: {
        amount: z.number().describe("Final balance after the given years"),
        interest: z.number().describe("Interest earned: amount minus principal"),
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ principal, rate_percent, years, compounds_per_year }) => {
      const n = compounds_per_year ?? 1;
      const amount = clean(principal * Math.pow(1 + rate_percent / 100 / n, n * years));
      if (!Number.isFinite(amount)) return fail("the result overflowed; use a smaller rate or fewer years");
      const interest = clean(amount - principal);
      return structured(
        `amount: ${formatNumber(amount)}\ninterest earned: ${formatNumber(interest)}\n` +
          `(${formatNumber(principal)} at ${formatNumber(rate_percent)}% for ${formatNumber(years)} years, compounded ${n} time(s) per year)`,
        { amount, interest },
      );
    },
  );

  server.registerTool(
    "statistics",
    {
      title: "Statistics",
      description: "Summary statistics of a list of numbers: count, sum, mean, median, min, max and population standard deviation.",
      inputSchema: {
        values: z.array(z.number().finite()).min(1).max(1000).describe("The numbers, e.g. [3, 1, 4, 1, 5]"),
      },
      outputSchema: {
        count: z.number(),
        sum: z.number(),
        mean: z.number(),
        median: z.number(),
        min: z.number(),
        max: z.number(),
        std: z.number().describe("Population standard deviation"),
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ values }) => {
      const sorted = [...values].sort((x, y) => x - y);
      const count = values.length;
      const sum = values.reduce((s, v) => s + v, 0);
      const mean = sum / count;
      const mid = Math.floor(count / 2);
      const median = count % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
      const std = Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / count);
      const stats = {
        count,
        sum: clean(sum),
        mean: clean(mean),
        median: clean(median),
        min: sorted[0],
        max: sorted[count - 1],
        std: clean(std),
      };
      const lines = Object.entries(stats).map(([k, v]) => `${k}: ${formatNumber(v)}`);
      return structured(lines.join("\n"), stats);
    },
  );

  return server;
}

await serve({ name: "calculator", createServer });
