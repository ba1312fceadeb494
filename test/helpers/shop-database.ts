/**
 * A shop database file for the SQL recipes' tests (test/servers/sqlite.ts --db FILE): large enough
 * that "how many rows have X" has many informative answers, and shaped like real data: keys,
 * unique names and emails beside categorical columns (city, tier, status, category) whose values
 * repeat with uneven frequencies, and numeric ones (prices with cents, quantities, stock).
 * Deterministic: the same file every time, so tests can state what it holds.
 */
import Database from "better-sqlite3";
import { Rng } from "../../src/scenarios/verified/rng.js";

const FIRST = ["Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "John", "Katherine", "Linus"];
const LAST = ["Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Allen"];
const CITIES: Array<[string, number]> = [["London", 5], ["Paris", 4], ["Berlin", 3], ["Madrid", 2], ["Rome", 1]];
const TIERS: Array<[string, number]> = [["bronze", 5], ["silver", 3], ["gold", 2]];
const STATUSES: Array<[string, number]> = [["open", 7], ["shipped", 6], ["delivered", 4], ["cancelled", 2]];
const PRODUCTS: Array<[string, string]> = [
  ["Desk Lamp", "office"], ["Stapler", "office"], ["Notebook", "office"], ["Office Chair", "office"], ["Monitor Stand", "office"],
  ["Kettle", "kitchen"], ["Chef Knife", "kitchen"], ["Toaster", "kitchen"], ["Teapot", "kitchen"],
  ["Garden Hose", "garden"], ["Rake", "garden"], ["Watering Can", "garden"],
  ["Puzzle", "toys"], ["Kite", "toys"],
  ["Umbrella", "travel"], ["Backpack", "travel"],
];

function weighted(rng: Rng, options: Array<[string, number]>): string {
  return options[rng.weighted(options.map(([, w]) => w))][0];
}

/**
 * Writes the database to `file` (which must not exist yet). `postgresTypes` declares the columns
 * as a Postgres schema would (money as NUMERIC(10,2), an order's key as BIGINT): the same values,
 * that test/servers/sqlite.ts --pg-numbers then answers as strings, as node-postgres does.
 */
export function writeShopDatabase(file: string, options: { postgresTypes?: boolean } = {}): void {
  const rng = new Rng("shop-database");
  const db = new Database(file);
  const [money, key] = options.postgresTypes ? ["NUMERIC(10,2)", "BIGINT"] : ["REAL", "INTEGER"];
  try {
    db.exec(`
      CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, email TEXT, city TEXT, tier TEXT, credit_limit INTEGER);
      CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT, category TEXT, price ${money}, stock INTEGER);
      CREATE TABLE orders (id ${key} PRIMARY KEY, customer_id INTEGER, product_id INTEGER, quantity INTEGER, total ${money}, status TEXT);
    `);
    const names = rng.sample(FIRST.flatMap((f) => LAST.map((l) => `${f} ${l}`)), 30);
    const addCustomer = db.prepare("INSERT INTO customers VALUES (?, ?, ?, ?, ?, ?)");
    names.forEach((name, i) =>
      addCustomer.run(i + 1, name, `${name.toLowerCase().replace(" ", ".")}@example.com`, weighted(rng, CITIES), weighted(rng, TIERS), rng.int(5, 60) * 100),
    );
    const addProduct = db.prepare("INSERT INTO products VALUES (?, ?, ?, ?, ?)");
    const prices = PRODUCTS.map(() => rng.int(199, 19999) / 100);
    PRODUCTS.forEach(([name, category], i) => addProduct.run(i + 1, name, category, prices[i], rng.int(0, 150)));
    const addOrder = db.prepare("INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?)");
    for (let i = 0; i < 80; i++) {
      const product = rng.int(0, PRODUCTS.length - 1);
      const quantity = rng.int(1, 5);
      addOrder.run(1001 + i, rng.int(1, names.length), product + 1, quantity, Math.round(quantity * prices[product] * 100) / 100, weighted(rng, STATUSES));
    }
  } finally {
    db.close();
  }
}
