/**
 * shop: a stateful online store backed by a real SQLite database (better-sqlite3).
 *
 * Products, stock, customers and orders. Placing an order checks and decrements stock; cancelling
 * restores it; every change is visible afterwards through the get_* and list_* tools, which is
 * what makes multi-step tasks checkable ("find the customer by email, order two yoga mats, then
 * report the order total"). By default each process starts from a fresh temp database seeded
 * deterministically (./seed.ts) and deletes it on exit; `--db FILE` (or env SHOP_DB) uses and
 * keeps a given file, seeding it only if empty. All HTTP sessions of one process share the store.
 *
 * Run: `node --import tsx mcp-fixtures/shop/server.ts [--db FILE] [--http PORT]`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { fail, json, structured } from "../shared/results.js";
import { flagValue, log, serve } from "../shared/serve.js";
import { CATEGORIES, ORDER_STATUSES } from "./seed.js";
import { ShopError, Store, type Order } from "./store.js";

const explicitDb = flagValue("db") ?? process.env.SHOP_DB;
const tempDir = explicitDb ? undefined : mkdtempSync(join(tmpdir(), "train-mcp-shop-"));
const dbFile = explicitDb ?? join(tempDir as string, "shop.sqlite");
const store = new Store(dbFile);
log("shop", `database ${dbFile}${explicitDb ? "" : " (fresh, removed on exit)"}`);

/** Runs a store operation; a ShopError becomes an isError result the model can read. */
function guard(op: () => CallToolResult): CallToolResult {
  try {
    return op();
  } catch (err) {
    if (err instanceof ShopError) return fail(err.message);
    throw err;
  }
}

// Explicit bounds keep the JSON Schema short (zod's .int() alone emits +-2^53 limits).
const id = (what: string) => z.number().int().min(1).max(999_999).describe(what);

const OrderShape = {
  order_id: z.number(),
  customer_id: z.number(),
  status: z.enum(ORDER_STATUSES),
  items: z.array(
    z.object({
      product_id: z.number(),
      name: z.string(),
      quantity: z.number(),
      unit_price: z.number().describe("Price of one unit in dollars when ordered"),
      line_total: z.number(),
    }),
  ),
  total: z.number().describe("Order total in dollars"),
};

const orderResult = (order: Order): CallToolResult =>
  structured(JSON.stringify(order, null, 2), order as unknown as Record<string, unknown>);

function createServer(): McpServer {
  const server = new McpServer({ name: "shop", version: "1.0.0" });
  const ro = { readOnlyHint: true, openWorldHint: false } as const;

  server.registerTool(
    "search_products",
    {
      title: "Search products",
      description:
        "Find products by words in their name or description, by category, and/or by maximum price. " +
        "Returns product_id, name, category, price (dollars) and stock for each match. Call with no " +
        "arguments to list the first products.",
      inputSchema: {
        query: z.string().max(100).optional().describe("Words to look for, e.g. 'yoga mat' (all words must match)"),
        category: z.enum(CATEGORIES).optional().describe("Only products in this category"),
        max_price: z.number().positive().max(100000).optional().describe("Only products costing at most this many dollars"),
        in_stock_only: z.boolean().optional().describe("Only products with stock > 0 (default false)"),
        limit: z.number().int().min(1).max(50).optional().describe("Maximum number of results (default 10)"),
      },
      annotations: ro,
    },
    async (args) => {
      const products = store.searchProducts(args);
      if (products.length === 0) return json({ products: [], note: "no product matches; try fewer words or no filter" });
      return json({ products });
    },
  );

  server.registerTool(
    "get_product",
    {
      title: "Get product",
      description: "Full details of one product (name, category, price in dollars, current stock, description) by its product_id.",
      inputSchema: { product_id: id("The product's id, e.g. 501") },
      annotations: ro,
    },
    async ({ product_id }) => guard(() => json(store.getProduct(product_id))),
  );

  server.registerTool(
    "get_customer",
    {
      title: "Get customer",
      description: "Look up a customer by email address or by customer_id (give exactly one). Returns customer_id, name, email and city.",
      inputSchema: {
        email: z.string().max(200).optional().describe("The customer's email address, e.g. alice@example.com"),
        customer_id: id("The customer's id").optional(),
      },
      annotations: ro,
    },
    async ({ email, customer_id }) => {
      if ((email === undefined) === (customer_id === undefined)) return fail("give exactly one of email or customer_id");
      return guard(() => json(store.getCustomer({ email, customer_id })));
    },
  );

  server.registerTool(
    "place_order",
    {
      title: "Place order",
      description:
        "Place an order for a customer. Checks that every product exists and has enough stock (otherwise " +
        "nothing is ordered), takes the items out of stock, and returns the new order with its order_id and " +
        "total in dollars. Find the customer_id first with get_customer.",
      inputSchema: {
        customer_id: id("Who is ordering (see get_customer)"),
        items: z
          .array(
            z.object({
              product_id: id("Product to buy"),
              quantity: z.number().int().min(1).max(100).describe("How many units"),
            }),
          )
          .min(1)
          .max(20)
          .describe("The products and quantities, e.g. [{\"product_id\": 501, \"quantity\": 2}]"),
      },
      outputSchema: OrderShape,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async ({ customer_id, items }) => guard(() => orderResult(store.placeOrder(customer_id, items))),
  );

  server.registerTool(
    "get_order",
    {
      title: "Get order",
      description: "One order by order_id: its customer, status (placed, shipped or cancelled), items and total in dollars.",
      inputSchema: { order_id: id("The order's id, e.g. 5001") },
      outputSchema: OrderShape,
      annotations: ro,
    },
    async ({ order_id }) => guard(() => orderResult(store.getOrder(order_id))),
  );

  server.registerTool(
    "cancel_order",
    {
      title: "Cancel order",
      description:
        "Cancel an order that has not shipped yet: its items go back into stock and its status becomes " +
        "'cancelled'. Shipped or already-cancelled orders cannot be cancelled.",
      inputSchema: { order_id: id("The order to cancel") },
      outputSchema: OrderShape,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    async ({ order_id }) => guard(() => orderResult(store.cancelOrder(order_id))),
  );

  server.registerTool(
    "list_orders",
    {
      title: "List orders",
      description: "All orders of one customer, oldest first, optionally only those with a given status.",
      inputSchema: {
        customer_id: id("Whose orders"),
        status: z.enum(ORDER_STATUSES).optional().describe("Only orders with this status"),
      },
      annotations: ro,
    },
    async ({ customer_id, status }) => guard(() => json({ orders: store.listOrders(customer_id, status) })),
  );

  return server;
}

await serve({
  name: "shop",
  createServer,
  cleanup: () => {
    store.close();
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  },
});
