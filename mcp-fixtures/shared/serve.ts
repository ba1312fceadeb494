/**
 * Transport boilerplate shared by every bundled fixture server.
 *
 * A fixture calls `serve({ name, createServer, cleanup })`. By default the server speaks MCP over
 * stdio (stdout carries protocol only; diagnostics go to stderr). With `--http PORT` it serves
 * Streamable HTTP on 127.0.0.1 at `/mcp` (PORT 0 picks a free port), with stateful sessions: one
 * McpServer per session, all sessions sharing the fixture's process state (a database, a
 * workspace). When ready it prints exactly one line `listening on http://127.0.0.1:PORT/mcp` to
 * stderr, which is what `src/mcp/fixtures.ts` waits for. SIGTERM, SIGINT and (over stdio, or over
 * HTTP with `--exit-with-stdin`) the end of stdin shut down cleanly and run the fixture's cleanup
 * (temp dirs, DB handles).
 *
 * Follows the SDK's Streamable HTTP server example (session map keyed by `mcp-session-id`,
 * a new transport per `initialize` request) without Express, on plain node:http.
 */
import { randomUUID } from "node:crypto";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";

/** Set by the esbuild bundle step in src/mcp/fixtures.ts: the fixture's source folder. */
declare const __FIXTURE_DIR__: string | undefined;

/**
 * The folder holding a fixture's data files. When run from source that is the folder of the
 * calling module; when run from a bundle (which lives in a cache dir) the bundler injects it.
 */
export function fixtureDir(importMetaUrl: string): string {
  return typeof __FIXTURE_DIR__ === "string" ? __FIXTURE_DIR__ : dirname(fileURLToPath(importMetaUrl));
}

/** Value of `--name VALUE` (or `--name=VALUE`) on the command line, else undefined. */
export function flagValue(name: string, argv: readonly string[] = process.argv.slice(2)): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === `--${name}`) return argv[i + 1];
    if (a.startsWith(`--${name}=`)) return a.slice(name.length + 3);
  }
  return undefined;
}

/** Diagnostics go to stderr: over stdio, stdout is reserved for protocol messages. */
export function log(name: string, message: string): void {
  process.stderr.write(`[${name}] ${message}\n`);
}

export interface ServeOptions {
  /** Fixture name, used in log lines. */
  name: string;
  /** Builds one McpServer; called once over stdio and once per HTTP session. */
  createServer: () => McpServer;
  /** Run once at shutdown (remove temp dirs, close databases). Synchronous, so it can also run
   * from the process 'exit' event. */
  cleanup?: () => void;
}

/** Parses `--http PORT`; throws on a malformed port so a typo does not silently mean stdio. */
function httpPort(): number | undefined {
  const raw = flagValue("http");
  if (raw === undefined) {
    if (process.argv.includes("--http")) throw new Error("--http expects a port number (0 picks a free one)");
    return undefined;
  }
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--http expects a port number 0-65535, got ${JSON.stringify(raw)}`);
  }
  return port;
}

export async function serve(opts: ServeOptions): Promise<void> {
  // Registered first, so the cleanup also runs on a usage error (exit 2) or an uncaught error.
  let cleaned = false;
  const runCleanup = (): void => {
    if (cleaned) return;
    cleaned = true;
    try {
      opts.cleanup?.();
    } catch (err) {
      log(opts.name, `cleanup failed: ${(err as Error).message}`);
    }
  };
  process.on("exit", runCleanup);

  let port: number | undefined;
  try {
    port = httpPort();
  } catch (err) {
    log(opts.name, (err as Error).message);
    process.exit(2);
  }
  const closers: Array<() => Promise<void>> = [];
  let shuttingDown = false;
  const shutdown = async (why: string): Promise<void> => {
    if (shuttingDown) return;
    shuttingDown = true;
    log(opts.name, `shutting down (${why})`);
    for (const close of closers) await close().catch(() => undefined);
    runCleanup();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));

  if (port === undefined) {
    const server = opts.createServer();
    const transport = new StdioServerTransport();
    closers.push(() => server.close());
    // The client closing stdin is the normal end of a stdio session: exit promptly instead of
    // waiting for the SDK client's SIGTERM grace period.
    process.stdin.on("end", () => void shutdown("stdin closed"));
    await server.connect(transport);
    return;
  }
  // Opt-in (used by src/mcp/fixtures.ts): tie an HTTP server's life to its parent's stdin pipe,
  // so a crashed test run or trainer leaves no orphaned servers behind.
  if (process.argv.includes("--exit-with-stdin")) {
    process.stdin.on("end", () => void shutdown("stdin closed"));
    process.stdin.resume();
  }
  await serveHttp(opts, port, closers);
}

async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 4 * 1024 * 1024) throw new Error("request body over 4 MiB");
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  return text.length === 0 ? undefined : JSON.parse(text);
}

function sendJsonError(res: ServerResponse, status: number, code: number, message: string): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

async function serveHttp(opts: ServeOptions, port: number, closers: Array<() => Promise<void>>): Promise<void> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let boundPort = port;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/mcp") return sendJsonError(res, 404, -32000, `not found: ${url.pathname} (use /mcp)`);
    // DNS-rebinding protection: only loopback Host headers reach a server bound to loopback.
    const host = req.headers.host ?? "";
    if (host !== `127.0.0.1:${boundPort}` && host !== `localhost:${boundPort}`) {
      return sendJsonError(res, 403, -32000, `forbidden Host header ${JSON.stringify(host)}`);
    }
    const sessionId = req.headers["mcp-session-id"];
    const sid = Array.isArray(sessionId) ? sessionId[0] : sessionId;

    if (req.method === "POST") {
      let body: unknown;
      try {
        body = await readJsonBody(req);
      } catch (err) {
        return sendJsonError(res, 400, -32700, `parse error: ${(err as Error).message}`);
      }
      if (sid !== undefined) {
        const transport = sessions.get(sid);
        if (!transport) return sendJsonError(res, 404, -32001, `unknown session ${sid}`);
        return transport.handleRequest(req, res, body);
      }
      if (!isInitializeRequest(body)) {
        return sendJsonError(res, 400, -32000, "bad request: no mcp-session-id header and not an initialize request");
      }
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, transport);
        },
        onsessionclosed: (id) => {
          sessions.delete(id);
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      const server = opts.createServer();
      await server.connect(transport);
      return transport.handleRequest(req, res, body);
    }
    if (req.method === "GET" || req.method === "DELETE") {
      const transport = sid === undefined ? undefined : sessions.get(sid);
      if (!transport) return sendJsonError(res, sid === undefined ? 400 : 404, -32000, "missing or unknown mcp-session-id");
      return transport.handleRequest(req, res);
    }
    res.writeHead(405, { allow: "GET, POST, DELETE" }).end();
  };

  const http = createHttpServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log(opts.name, `request failed: ${(err as Error).stack ?? String(err)}`);
      sendJsonError(res, 500, -32603, "internal error");
    });
  });
  closers.push(async () => {
    for (const t of sessions.values()) await t.close().catch(() => undefined);
    sessions.clear();
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, "127.0.0.1", () => resolve());
  });
  const address = http.address();
  boundPort = typeof address === "object" && address ? address.port : port;
  process.stderr.write(`listening on http://127.0.0.1:${boundPort}/mcp\n`);
}
