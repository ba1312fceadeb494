/**
 * Every bundled fixture server (mcp-fixtures/, started through src/mcp/fixtures.ts) reached by
 * the toolbox over stdio (`fixture:<name>`) and over Streamable HTTP (`--http 0`): list its
 * tools and make one real call each. Plus isolation on the stateful shop: two isolated
 * toolboxes, one places an order, the other still sees the seeded stock.
 */
import { afterAll, describe, expect, it } from "vitest";
import { connect, type McpToolbox } from "../../src/mcp/connect.js";
import { fixtureNames, startFixtureHttp, type FixtureHttp } from "../../src/mcp/fixtures.js";
import { alive } from "../servers/launch.js";

/** one call per fixture and a piece of text its answer must contain */
const EXAMPLES: Record<string, { tool: string; args: Record<string, unknown>; expect: RegExp }> = {
  calculator: { tool: "calculate", args: { expression: "(3 + 4) * 2^3" }, expect: /56/ },
  knowledge: { tool: "search", args: { query: "speed of light" }, expect: /speed/i },
  "code-runner": { tool: "run_javascript", args: { code: "let s = 0; for (let i = 1; i <= 100; i++) s += i; s" }, expect: /5050/ },
  codefix: { tool: "list_tasks", args: {}, expect: /files:/ },
  shop: { tool: "get_product", args: { product_id: 501 }, expect: /Yoga Mat/ },
};

const open: McpToolbox[] = [];
const servers: FixtureHttp[] = [];
afterAll(async () => {
  await Promise.all(open.map((t) => t.close()));
  await Promise.all(servers.map((s) => s.close()));
});

describe.each(fixtureNames.map((n) => [n]))("fixture %s", (name) => {
  const example = EXAMPLES[name];

  it("lists and calls its tools over stdio", async () => {
    const tb = await connect(`fixture:${name}`);
    open.push(tb);
    expect(tb.tools.map((t) => t.name)).toContain(example.tool);
    for (const t of tb.openAiTools()) expect(t.function.description.length).toBeGreaterThan(10);
    const r = await tb.call(example.tool, example.args);
    expect(r.fault).toBeUndefined();
    expect(r.isError).toBe(false);
    expect(r.text).toMatch(example.expect);
    const pid = tb.pid!;
    await tb.close();
    expect(alive(pid)).toBe(false);
  });

  it("lists and calls its tools over Streamable HTTP", async () => {
    const server = await startFixtureHttp(name);
    servers.push(server);
    const tb = await connect(server.url);
    open.push(tb);
    expect(tb.transportKind).toBe("streamable-http");
    expect(tb.tools.map((t) => t.name)).toContain(example.tool);
    const r = await tb.call(example.tool, example.args);
    expect(r).toMatchObject({ isError: false });
    expect(r.text).toMatch(example.expect);
  });
});

describe("isolation on the shop fixture", () => {
  it("gives two rollouts independent stores", async () => {
    const base = await connect("fixture:shop");
    open.push(base);
    const [a, b] = await Promise.all([base.isolated(), base.isolated()]);
    const stock = async (tb: typeof a) => (await tb.call("get_product", { product_id: 501 })).text.match(/"stock":\s*(\d+)/)?.[1];
    const initial = await stock(a);
    expect(initial).toBe("35");
    const order = await a.call("place_order", { customer_id: 1, items: [{ product_id: 501, quantity: 3 }] });
    expect(order.isError).toBe(false);
    expect(await stock(a)).toBe("32");
    expect(await stock(b)).toBe("35");
    expect(await stock(base)).toBe("35");
    // schema validation catches a bad order before the server sees it
    expect(await b.call("place_order", { customer_id: 1, items: [{ product_id: 501, quantity: 0 }] })).toMatchObject({
      fault: "invalid_arguments",
      text: expect.stringContaining("/items/0/quantity: must be >= 1"),
    });
    await base.close();
    expect(await a.call("get_product", { product_id: 501 })).toMatchObject({ fault: "connection" });
  });
});
