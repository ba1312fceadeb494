/**
 * Fixture-specific recipes, registered per tool name. A recipe is used on a server only when
 * every tool it calls exists there with the argument names the recipe sends (so a third-party
 * tool that happens to be called `calculate` but takes other arguments falls back to the generic
 * recipes). Add a fixture by writing ./fixtures/<name>.ts and listing it here.
 */
import type { ToolSpec } from "../../mcp/types.js";
import { calculatorRecipes } from "./fixtures/calculator.js";
import { codeRunnerRecipes } from "./fixtures/code-runner.js";
import { codefixRecipes } from "./fixtures/codefix.js";
import { knowledgeRecipes } from "./fixtures/knowledge.js";
import { shopRecipes } from "./fixtures/shop.js";
import type { Recipe } from "./recipe.js";

/** tool name → argument names the fixture recipes send to it */
const SIGNATURES: Record<string, string[]> = {
  calculate: ["expression"],
  percentage: ["operation", "a", "b"],
  compound_interest: ["principal", "rate_percent", "years", "compounds_per_year"],
  statistics: ["values"],
  search: ["query", "limit"],
  get_fact: ["id"],
  run_javascript: ["code"],
  list_tasks: [],
  read_file: ["path"],
  edit_file: ["path", "old_text", "new_text"],
  run_tests: ["task"],
  search_products: ["query", "category", "limit"],
  get_product: ["product_id"],
  get_customer: ["email", "customer_id"],
  place_order: ["customer_id", "items"],
  get_order: ["order_id"],
  cancel_order: ["order_id"],
  list_orders: ["customer_id"],
};

export function fixtureRecipes(): Recipe[] {
  return [...calculatorRecipes, ...knowledgeRecipes, ...shopRecipes, ...codeRunnerRecipes, ...codefixRecipes];
}

/** True when `tool` takes every argument the fixture recipes send to a tool of its name. */
export function signatureMatches(tool: ToolSpec): boolean {
  const want = SIGNATURES[tool.name];
  if (!want) return true;
  const props = (tool.inputSchema.properties as Record<string, unknown> | undefined) ?? {};
  return want.every((p) => p in props);
}

/** Tools a fixture's recipes look things up with (its helpers' probes), beside the tools each
 *  recipe names: codefix's `read_file` recipe first lists the tasks, so a filesystem server's
 *  `read_file` alone does not make it apply. */
const PROBED: Record<string, string[]> = {
  codefix: ["list_tasks"],
  knowledge: ["search"],
  shop: ["search_products", "get_customer", "list_orders"],
};

/**
 * Fixture recipes whose tools, and their fixture's probed tools, all exist on this server with
 * matching arguments, on the fixture itself: a server that names itself otherwise (MCP
 * serverInfo.name; each fixture's is its recipes' prefix) gets none, since `search {query,
 * limit}` is half the documentation servers there are (@primevue/mcp's), and the knowledge
 * recipes would take its search tool from the generic ones only to fail on every attempt.
 * `serverName` undefined (a toolbox that does not say) checks the signatures alone.
 */
export function applicableFixtureRecipes(tools: readonly ToolSpec[], serverName?: string): Recipe[] {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const has = (name: string) => byName.has(name) && signatureMatches(byName.get(name)!);
  return fixtureRecipes().filter((r) => {
    const fixture = r.id.split(".")[0];
    return (serverName === undefined || serverName === fixture) && [...r.tools, ...(PROBED[fixture] ?? [])].every(has);
  });
}
