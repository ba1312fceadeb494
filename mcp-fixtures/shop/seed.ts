/**
 * The shop's schema and its deterministic seed data (no random source: every fresh database is
 * byte-for-byte the same store, so every rollout of a task starts from the same state).
 *
 * Prices are stored in integer cents so totals never pick up float noise.
 */
import type Database from "better-sqlite3";

export const CATEGORIES = ["electronics", "books", "kitchen", "toys", "sports", "garden", "clothing"] as const;
export type Category = (typeof CATEGORIES)[number];

export const ORDER_STATUSES = ["placed", "shipped", "cancelled"] as const;

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS products (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  category TEXT NOT NULL,
  price_cents INTEGER NOT NULL CHECK (price_cents >= 0),
  stock INTEGER NOT NULL CHECK (stock >= 0),
  description TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS customers (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  email TEXT NOT NULL UNIQUE,
  city TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS orders (
  id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customers(id),
  status TEXT NOT NULL CHECK (status IN ('placed', 'shipped', 'cancelled')),
  total_cents INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS order_items (
  order_id INTEGER NOT NULL REFERENCES orders(id),
  product_id INTEGER NOT NULL REFERENCES products(id),
  quantity INTEGER NOT NULL CHECK (quantity > 0),
  unit_price_cents INTEGER NOT NULL,
  PRIMARY KEY (order_id, product_id)
);
`;

// [id, name, category, price in cents, stock, description]
const PRODUCTS: Array<[number, string, Category, number, number, string]> = [
  [101, "Wireless Mouse", "electronics", 2499, 40, "Two-button optical mouse with USB receiver"],
  [102, "Mechanical Keyboard", "electronics", 8999, 12, "Tenkeyless keyboard with brown switches"],
  [103, "USB-C Charger 65W", "electronics", 3999, 25, "GaN wall charger for laptops and phones"],
  [104, "Noise-Cancelling Headphones", "electronics", 19999, 6, "Over-ear Bluetooth headphones, 30 h battery"],
  [105, "27-inch Monitor", "electronics", 27999, 4, "1440p IPS monitor with HDMI and DisplayPort"],
  [106, "Webcam HD", "electronics", 4999, 0, "1080p webcam with built-in microphone"],
  [107, "Portable SSD 1TB", "electronics", 10999, 15, "USB-C external solid state drive"],
  [201, "The Pragmatic Programmer", "books", 3995, 20, "Classic software craftsmanship book"],
  [202, "Introduction to Algorithms", "books", 9500, 5, "Comprehensive algorithms textbook"],
  [203, "Cooking for Engineers", "books", 2450, 9, "Recipes explained step by step"],
  [204, "Field Guide to Birds", "books", 1899, 14, "Illustrated guide to North American birds"],
  [205, "Astronomy for Beginners", "books", 2199, 0, "Star charts and telescope basics"],
  [301, "Chef's Knife 8-inch", "kitchen", 5900, 18, "Stainless steel chef's knife"],
  [302, "Cast Iron Skillet", "kitchen", 3499, 22, "Pre-seasoned 12-inch skillet"],
  [303, "Espresso Machine", "kitchen", 24900, 3, "15-bar pump espresso maker with milk frother"],
  [304, "Electric Kettle", "kitchen", 2999, 30, "1.7 litre kettle with auto shut-off"],
  [305, "Cutting Board Set", "kitchen", 1999, 25, "Three bamboo cutting boards"],
  [401, "Building Blocks 500 pcs", "toys", 3499, 16, "Compatible plastic building bricks"],
  [402, "Wooden Train Set", "toys", 4599, 7, "Train set with 40 track pieces"],
  [403, "Puzzle 1000 pieces", "toys", 1599, 11, "Landscape jigsaw puzzle"],
  [404, "Remote Control Car", "toys", 5499, 2, "Off-road RC car, 25 km/h"],
  [501, "Yoga Mat", "sports", 2599, 35, "6 mm non-slip yoga mat"],
  [502, "Adjustable Dumbbells", "sports", 14999, 5, "Pair of dumbbells, 2 to 24 kg each"],
  [503, "Running Shoes", "sports", 8999, 10, "Lightweight road running shoes"],
  [504, "Tennis Racket", "sports", 7499, 8, "Graphite racket, 300 g"],
  [505, "Water Bottle 1L", "sports", 1499, 50, "Insulated stainless steel bottle"],
  [601, "Garden Hose 25m", "garden", 3999, 9, "Kink-resistant hose with spray nozzle"],
  [602, "Pruning Shears", "garden", 1799, 21, "Bypass secateurs for branches up to 2 cm"],
  [603, "Tomato Seeds", "garden", 399, 100, "Packet of 50 cherry tomato seeds"],
  [604, "Raised Garden Bed", "garden", 11999, 3, "Cedar raised bed, 120 x 60 cm"],
  [701, "Rain Jacket", "clothing", 6999, 13, "Waterproof breathable jacket"],
  [702, "Wool Socks 3-pack", "clothing", 1999, 40, "Merino wool hiking socks"],
  [703, "Cotton T-Shirt", "clothing", 1299, 60, "Plain crew-neck t-shirt"],
  [704, "Winter Gloves", "clothing", 2499, 0, "Insulated touchscreen gloves"],
];

// [id, name, email, city]
const CUSTOMERS: Array<[number, string, string, string]> = [
  [1, "Alice Martin", "alice@example.com", "Lyon"],
  [2, "Bob Chen", "bob.chen@example.com", "Toronto"],
  [3, "Carla Gomez", "carla.gomez@example.org", "Madrid"],
  [4, "David Okafor", "david.okafor@example.net", "Lagos"],
  [5, "Emma Schmidt", "emma.schmidt@example.com", "Berlin"],
  [6, "Farid Haddad", "farid@example.org", "Beirut"],
  [7, "Grace Kim", "grace.kim@example.com", "Seoul"],
  [8, "Hiro Tanaka", "hiro.tanaka@example.jp", "Osaka"],
];

// [order id, customer id, status, [[product id, quantity], ...]]
const ORDERS: Array<[number, number, "placed" | "shipped" | "cancelled", Array<[number, number]>]> = [
  [5001, 1, "shipped", [[201, 1], [505, 2]]],
  [5002, 2, "placed", [[102, 1]]],
  [5003, 1, "placed", [[302, 1], [305, 1]]],
  [5004, 5, "cancelled", [[104, 1]]],
];

/** Creates the tables and, if the store is empty, inserts the seed rows. */
export function initDatabase(db: Database.Database): void {
  db.exec(SCHEMA);
  const count = (db.prepare("SELECT COUNT(*) AS n FROM products").get() as { n: number }).n;
  if (count > 0) return;
  const price = new Map(PRODUCTS.map((p) => [p[0], p[3]]));
  db.transaction(() => {
    const ip = db.prepare("INSERT INTO products (id, name, category, price_cents, stock, description) VALUES (?, ?, ?, ?, ?, ?)");
    for (const p of PRODUCTS) ip.run(...p);
    const ic = db.prepare("INSERT INTO customers (id, name, email, city) VALUES (?, ?, ?, ?)");
    for (const c of CUSTOMERS) ic.run(...c);
    const io = db.prepare("INSERT INTO orders (id, customer_id, status, total_cents) VALUES (?, ?, ?, ?)");
    const ii = db.prepare("INSERT INTO order_items (order_id, product_id, quantity, unit_price_cents) VALUES (?, ?, ?, ?)");
    for (const [id, customer, status, items] of ORDERS) {
      const total = items.reduce((s, [pid, q]) => s + (price.get(pid) ?? 0) * q, 0);
      io.run(id, customer, status, total);
      for (const [pid, q] of items) ii.run(id, pid, q, price.get(pid) ?? 0);
    }
  })();
}
