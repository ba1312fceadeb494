/**
 * A test-only database server shaped like the npm SQLite / Postgres MCP servers: a real SQLite
 * database (better-sqlite3, in memory and seeded, or a file given) behind `list_tables`,
 * `describe_table` and a read-only `query` that runs one SELECT and answers its rows as JSON.
 *
 *   node --import tsx test/servers/sqlite.ts               stdio
 *   node --import tsx test/servers/sqlite.ts --query-only  only `query`, as the reference Postgres
 *                                                          server has (tables learned through it)
 *   ... --information-schema  a catalog as Postgres has: information_schema.tables, and no
 *                             sqlite_master (a query naming it fails as on another database);
 *                             current_schema(), and tables of schemas off the search path, as
 *                             Supabase's auth and storage (which no unqualified name reaches)
 *   ... --mysql-catalog       with --information-schema: MySQL's instead (the tables under a
 *                             database's name, system schemas beside it, no current_schema(),
 *                             DATABASE() the current database's name)
 *   ... --db FILE             a database file of the test's (opened read-only) instead of the
 *                             seeded tables: a larger one, that the test can query directly
 *   ... --destructive-sql     the query tool declared as @bytebase/dbhub declares it by default:
 *                             `execute_sql`, annotated destructive (it still runs SELECTs only)
 *   ... --optional-sql        `query` declared as @modelcontextprotocol/server-postgres 0.6.2
 *                             declares it: `sql` not marked required, no annotations
 *   ... --fold-case           unquoted names fold to lower case, as in Postgres: a mixed-case
 *                             table or column ("User", "createdAt") is found only when quoted
 *   ... --pg-numbers          numbers answered as node-postgres answers them: a bigint or numeric
 *                             (a column declared so, or a computed one: COUNT, SUM, AVG) as a
 *                             string, with a numeric's declared scale ("22.70")
 */
import Database from "better-sqlite3";
import { z } from "zod";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

const dbFlag = process.argv.indexOf("--db");
const dbFile = dbFlag >= 0 ? process.argv[dbFlag + 1] : undefined;
const db = dbFile ? new Database(dbFile, { readonly: true, fileMustExist: true }) : new Database(":memory:");
if (!dbFile) db.exec(`
  CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, city TEXT);
  CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, total REAL, status TEXT);
  INSERT INTO customers VALUES (1, 'Ada Lovelace', 'London'), (2, 'Grace Hopper', 'New York'), (3, 'Alan Turing', 'London');
  INSERT INTO orders VALUES (10, 1, 120.5, 'shipped'), (11, 2, 75.0, 'open'), (12, 1, 33.25, 'open'), (13, 3, 990.0, 'cancelled'), (14, 3, 12.0, 'open');
`);

const infoSchema = process.argv.includes("--information-schema");
const mysqlCatalog = process.argv.includes("--mysql-catalog");
if (infoSchema) {
  // a copy, not a view: a view in an attached database cannot read the main one
  db.exec(`
    ATTACH ':memory:' AS information_schema;
    CREATE TABLE information_schema.tables (table_schema TEXT, table_name TEXT);
  `);
  if (mysqlCatalog) {
    // MySQL: a schema is a database, system ones beside it, and no current_schema()
    db.exec(`
      INSERT INTO information_schema.tables SELECT 'shop', name FROM main.sqlite_master WHERE type = 'table';
      INSERT INTO information_schema.tables VALUES ('mysql', 'db'), ('performance_schema', 'threads'), ('sys', 'sys_config');
    `);
    db.function("database", () => "shop");
  } else {
    db.exec(`
      INSERT INTO information_schema.tables SELECT 'public', name FROM main.sqlite_master WHERE type = 'table';
      INSERT INTO information_schema.tables VALUES ('pg_catalog', 'pg_class'), ('auth', 'users'), ('auth', 'sessions'), ('auth', 'identities'),
        ('storage', 'buckets'), ('storage', 'objects'), ('storage', 'migrations');
    `);
    db.function("current_schema", () => "public");
  }
}

const pgNumbers = process.argv.includes("--pg-numbers");
/** A cell as node-postgres gives it, by the result column's declared type (none for an expression). */
function pgCell(v: unknown, declared: string | null): unknown {
  if (typeof v !== "number") return v;
  const type = (declared ?? "NUMERIC").toUpperCase();
  if (/BIGINT|INT8/.test(type)) return String(v);
  const scale = /^(?:NUMERIC|DECIMAL)\s*\(\s*\d+\s*,\s*(\d+)\s*\)/.exec(type);
  if (scale) return v.toFixed(Number(scale[1]));
  return /^(NUMERIC|DECIMAL)/.test(type) ? String(v) : v;
}

const json = (v: unknown) => ({ content: [{ type: "text" as const, text: JSON.stringify(v, null, 2) }] });
const fail = (message: string) => ({ content: [{ type: "text" as const, text: message }], isError: true });
const ro = { readOnlyHint: true } as const;

const server = new McpServer({ name: "sqlite", version: "1.0.0" });
if (!process.argv.includes("--query-only")) {
  server.registerTool("list_tables", { description: "List the tables of the database.", annotations: ro }, () =>
    json(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all()),
  );
  server.registerTool("describe_table", { description: "Columns of one table.", inputSchema: { table: z.string() }, annotations: ro }, ({ table }) => {
    const cols = db.prepare("SELECT name, type FROM pragma_table_info(?)").all(table);
    return cols.length ? json(cols) : fail(`no table ${table}`);
  });
}
/** lower-cased, the tables and columns whose names are not lower case (a test's such names must not be SQL words) */
const mixedCase = new Set(
  (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>)
    .flatMap(({ name }) => [name, ...(db.prepare("SELECT name FROM pragma_table_info(?)").all(name) as Array<{ name: string }>).map((c) => c.name)])
    .filter((n) => n !== n.toLowerCase())
    .map((n) => n.toLowerCase()),
);
/** The query with its unquoted words lower-cased, as Postgres reads it; an error where one then names a mixed-case table or column. */
function foldCase(sql: string): string | { error: string } {
  // odd parts are quoted: a '…' literal or a "…" name, kept as written
  const parts = sql.split(/('(?:[^']|'')*'|"[^"]*")/);
  for (let i = 0; i < parts.length; i += 2) {
    parts[i] = parts[i].toLowerCase();
    const missing = parts[i].match(/[a-z_][a-z0-9_]*/g)?.find((w) => mixedCase.has(w));
    if (missing) return { error: `relation or column "${missing}" does not exist` };
  }
  return parts.join("");
}

const runQuery = ({ sql: asked }: { sql?: string }) => {
  try {
    if (asked === undefined) return fail("Client was passed a null or undefined query");
    const folded = process.argv.includes("--fold-case") ? foldCase(asked) : asked;
    if (typeof folded !== "string") return fail(`SQL error: ${folded.error}`);
    const sql = folded;
    if (infoSchema && /sqlite_master|pragma/i.test(sql)) return fail("SQL error: relation does not exist");
    const stmt = db.prepare(sql);
    if (!stmt.readonly) return fail("only read-only queries are allowed");
    if (!pgNumbers) return json(stmt.all());
    const columns = stmt.columns();
    return json((stmt.raw(true).all() as unknown[][]).map((row) => Object.fromEntries(columns.map((c, i) => [c.name, pgCell(row[i], c.type)]))));
  } catch (e) {
    return fail(`SQL error: ${(e as Error).message}`);
  }
};
if (process.argv.includes("--destructive-sql"))
  server.registerTool("execute_sql", { description: "Execute SQL queries on the sqlite database", inputSchema: { sql: z.string() }, annotations: { readOnlyHint: false, destructiveHint: true } }, runQuery);
else if (process.argv.includes("--optional-sql")) server.registerTool("query", { description: "Run a read-only SQL query", inputSchema: { sql: z.string().optional() } }, runQuery);
else server.registerTool("query", { description: "Run one read-only SQL SELECT query and return its rows.", inputSchema: { sql: z.string() }, annotations: ro }, runQuery);
await server.connect(new StdioServerTransport());
