/**
 * The shop's operations over a better-sqlite3 database: queries and the two state changes
 * (place an order, cancel an order), each in one transaction so a failed check leaves no trace.
 *
 * Failures a caller can fix (unknown id, not enough stock, order already shipped) throw
 * `ShopError`, which the server turns into an `isError` result with the message.
 */
import Database from "better-sqlite3";
import type { Category } from "./seed.js";
import { initDatabase } from "./seed.js";

export class ShopError extends Error {}

export interface Product {
  product_id: number;
  name: string;
  category: string;
  price: number;
  stock: number;
  description: string;
}
export interface Customer {
  customer_id: number;
  name: string;
  email: string;
  city: string;
}
export interface OrderItem {
  product_id: number;
  name: string;
  quantity: number;
  unit_price: number;
  line_total: number;
}
export interface Order {
  order_id: number;
  customer_id: number;
  status: string;
  items: OrderItem[];
  total: number;
}

const dollars = (cents: number): number => Math.round(cents) / 100;

interface ProductRow {
  id: number;
  name: string;
  category: string;
  price_cents: number;
  stock: number;
  description: string;
}
const toProduct = (r: ProductRow): Product => ({
  product_id: r.id,
  name: r.name,
  category: r.category,
  price: dollars(r.price_cents),
  stock: r.stock,
  description: r.description,
});

export class Store {
  readonly db: Database.Database;

  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma("foreign_keys = ON");
    initDatabase(this.db);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  searchProducts(q: { query?: string; category?: Category; max_price?: number; in_stock_only?: boolean; limit?: number }): Product[] {
    const where: string[] = [];
    const params: Record<string, unknown> = {};
    if (q.query && q.query.trim() !== "") {
      // Every word must appear in the name, category or description (case-insensitive).
      q.query
        .trim()
        .split(/\s+/)
        .forEach((word, i) => {
          where.push(`(name LIKE @w${i} OR description LIKE @w${i} OR category LIKE @w${i})`);
          params[`w${i}`] = `%${word.replace(/[%_]/g, "")}%`;
        });
    }
    if (q.category) {
      where.push("category = @category");
      params.category = q.category;
    }
    if (q.max_price !== undefined) {
      where.push("price_cents <= @max");
      params.max = Math.round(q.max_price * 100);
    }
    if (q.in_stock_only) where.push("stock > 0");
    const sql = `SELECT * FROM products ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY id LIMIT @limit`;
    const rows = this.db.prepare(sql).all({ ...params, limit: q.limit ?? 10 }) as ProductRow[];
    return rows.map(toProduct);
  }

  getProduct(id: number): Product {
    const row = this.db.prepare("SELECT * FROM products WHERE id = ?").get(id) as ProductRow | undefined;
    if (!row) throw new ShopError(`no product with product_id ${id}; use search_products to find ids`);
    return toProduct(row);
  }

  getCustomer(by: { email?: string; customer_id?: number }): Customer {
    type Row = { id: number; name: string; email: string; city: string };
    let row: Row | undefined;
    if (by.customer_id !== undefined) {
      row = this.db.prepare("SELECT * FROM customers WHERE id = ?").get(by.customer_id) as Row | undefined;
      if (!row) throw new ShopError(`no customer with customer_id ${by.customer_id}`);
    } else if (by.email !== undefined) {
      row = this.db.prepare("SELECT * FROM customers WHERE lower(email) = lower(?)").get(by.email.trim()) as Row | undefined;
      if (!row) throw new ShopError(`no customer with email ${JSON.stringify(by.email)}`);
    } else {
      throw new ShopError("give either email or customer_id");
    }
    return { customer_id: row.id, name: row.name, email: row.email, city: row.city };
  }

  getOrder(id: number): Order {
    const order = this.db.prepare("SELECT * FROM orders WHERE id = ?").get(id) as
      | { id: number; customer_id: number; status: string; total_cents: number }
      | undefined;
    if (!order) throw new ShopError(`no order with order_id ${id}`);
    const items = this.db
      .prepare(
        "SELECT oi.product_id, p.name, oi.quantity, oi.unit_price_cents FROM order_items oi JOIN products p ON p.id = oi.product_id WHERE oi.order_id = ? ORDER BY oi.product_id",
      )
      .all(id) as Array<{ product_id: number; name: string; quantity: number; unit_price_cents: number }>;
    return {
      order_id: order.id,
      customer_id: order.customer_id,
      status: order.status,
      items: items.map((i) => ({
        product_id: i.product_id,
        name: i.name,
        quantity: i.quantity,
        unit_price: dollars(i.unit_price_cents),
        line_total: dollars(i.unit_price_cents * i.quantity),
      })),
      total: dollars(order.total_cents),
    };
  }

  listOrders(customerId: number, status?: string): Order[] {
    this.getCustomer({ customer_id: customerId });
    const ids = this.db
      .prepare(`SELECT id FROM orders WHERE customer_id = ? ${status ? "AND status = ?" : ""} ORDER BY id`)
      .all(...(status ? [customerId, status] : [customerId])) as Array<{ id: number }>;
    return ids.map((r) => this.getOrder(r.id));
  }

  placeOrder(customerId: number, items: Array<{ product_id: number; quantity: number }>): Order {
    this.getCustomer({ customer_id: customerId });
    // The same product listed twice counts as one line with the summed quantity.
    const wanted = new Map<number, number>();
    for (const it of items) wanted.set(it.product_id, (wanted.get(it.product_id) ?? 0) + it.quantity);
    const id = this.db.transaction(() => {
      let total = 0;
      const lines: Array<[number, number, number]> = [];
      for (const [pid, qty] of wanted) {
        const row = this.db.prepare("SELECT * FROM products WHERE id = ?").get(pid) as ProductRow | undefined;
        if (!row) throw new ShopError(`no product with product_id ${pid}; nothing was ordered`);
        if (row.stock < qty) {
          throw new ShopError(
            `not enough stock for product ${pid} (${row.name}): requested ${qty}, in stock ${row.stock}; nothing was ordered`,
          );
        }
        total += row.price_cents * qty;
        lines.push([pid, qty, row.price_cents]);
      }
      const next = (this.db.prepare("SELECT COALESCE(MAX(id), 5000) + 1 AS id FROM orders").get() as { id: number }).id;
      this.db.prepare("INSERT INTO orders (id, customer_id, status, total_cents) VALUES (?, ?, 'placed', ?)").run(next, customerId, total);
      for (const [pid, qty, price] of lines) {
        this.db.prepare("UPDATE products SET stock = stock - ? WHERE id = ?").run(qty, pid);
        this.db.prepare("INSERT INTO order_items (order_id, product_id, quantity, unit_price_cents) VALUES (?, ?, ?, ?)").run(next, pid, qty, price);
      }
      return next;
    })();
    return this.getOrder(id);
  }

  cancelOrder(orderId: number): Order {
    const order = this.getOrder(orderId);
    if (order.status === "cancelled") throw new ShopError(`order ${orderId} is already cancelled`);
    if (order.status === "shipped") throw new ShopError(`order ${orderId} has already shipped and can no longer be cancelled`);
    this.db.transaction(() => {
      for (const it of order.items) this.db.prepare("UPDATE products SET stock = stock + ? WHERE id = ?").run(it.quantity, it.product_id);
      this.db.prepare("UPDATE orders SET status = 'cancelled' WHERE id = ?").run(orderId);
    })();
    return this.getOrder(orderId);
  }
}
