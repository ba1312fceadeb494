/**
 * The toolbox over HTTP against test/servers/everything.ts in real child processes: Streamable
 * HTTP with headers, progress and a session that drops mid-call (server killed, restarted on the
 * same port, reconnected), and a legacy HTTP+SSE-only server reached through the 4xx fallback.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { connect, type McpToolbox } from "../../src/mcp/connect.js";
import { isTrainMcpError } from "../../src/errors.js";
import { startEverything, type HttpServer } from "../servers/launch.js";

const servers: HttpServer[] = [];
const toolboxes: McpToolbox[] = [];
afterAll(async () => {
  await Promise.all(toolboxes.map((t) => t.close()));
  await Promise.all(servers.map((s) => s.close()));
});

async function serve(mode: "http" | "sse", port = 0, ...extra: string[]): Promise<HttpServer> {
  const s = await startEverything(mode, port, ...extra);
  servers.push(s);
  return s;
}

async function open(url: string, options = {}): Promise<McpToolbox> {
  const tb = await connect(url, { headers: { Authorization: "Bearer test-token" }, ...options });
  toolboxes.push(tb);
  return tb;
}

describe.each(["http", "sse"] as const)("over %s", (mode) => {
  it("lists, validates, calls with headers and passes progress", async () => {
    const server = await serve(mode);
    const tb = await open(server.url);
    expect(tb.transportKind).toBe(mode === "http" ? "streamable-http" : "sse");
    expect(tb.tools).toHaveLength(19);
    expect(await tb.call("echo", { text: `via ${mode}` })).toMatchObject({ isError: false, text: `via ${mode}` });
    expect((await tb.call("auth", {})).text).toBe("Bearer test-token");
    expect(await tb.call("order", { customer: {}, items: [], shipping: "x" })).toMatchObject({ fault: "invalid_arguments" });
    const seen: number[] = [];
    expect(await tb.call("slow", { steps: 3, ms: 30 }, { onProgress: (p) => seen.push(p.progress) })).toMatchObject({ isError: false });
    expect(seen).toEqual([1, 2, 3]);
    expect(await tb.call("sleep", { ms: 2000 }, { timeoutMs: 200 })).toMatchObject({ fault: "timeout" });
    const w = await tb.call("weather", { city: "Lima" });
    expect(w.structuredContent).toEqual({ city: "Lima", temp: 21.5, unit: "C" });
  });
});

describe("faults and isolation over HTTP", () => {
  it("names credentials when the endpoint answers 401: the -H flag to pass them, or the token it refused", async () => {
    // an endpoint behind a token check, refusing every request that lacks the right one
    const guard = http.createServer((_req, res) => {
      res.writeHead(401, { "content-type": "application/json", "www-authenticate": "Bearer" });
      res.end(JSON.stringify({ error: "unauthorized" }));
    });
    await new Promise<void>((r) => guard.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(guard.address() as AddressInfo).port}/mcp`;
    try {
      const bare = await connect(url, { timeoutMs: 5000 }).then(() => undefined, (e: Error) => e);
      expect(bare?.message).toMatch(/^cannot reach MCP server at .*: Streamable HTTP answered 401 and legacy SSE failed: .* \(HTTP 401: the server wants credentials; pass them with -H 'Authorization: Bearer …'\)$/);
      const wrong = await connect(url, { timeoutMs: 5000, headers: { Authorization: "Bearer nope" } }).then(() => undefined, (e: Error) => e);
      expect(wrong?.message).toMatch(/\(HTTP 401: the server refused the Authorization header given; check the token\)$/);
      expect(wrong?.message).not.toContain("nope");
    } finally {
      await new Promise((r) => guard.close(r));
    }
  });

  it("fails the in-flight call when the session drops and reconnects on the next call", async () => {
    const first = await serve("http");
    const port = new URL(first.url).port;
    const tb = await open(first.url);
    expect(await tb.call("counter_inc", {})).toMatchObject({ text: "1" });
    const inFlight = tb.call("sleep", { ms: 5000 });
    await new Promise((r) => setTimeout(r, 200));
    await first.close(); // SIGKILL: the response stream breaks
    expect(await inFlight).toMatchObject({ isError: true, fault: "connection" });
    // while nobody listens the next call fails too, without throwing
    expect(await tb.call("echo", { text: "x" })).toMatchObject({ fault: "connection" });
    await serve("http", Number(port));
    expect(await tb.call("counter_get", {})).toMatchObject({ isError: false, text: "0" }); // a new server, a new session
    expect(tb.stats().reconnects).toBe(1);
  });

  it("starts a new session at once when a restarted server answers 404 for the old one", async () => {
    const first = await serve("http", 0, "--no-get");
    const tb = await open(first.url);
    expect(await tb.call("counter_inc", {})).toMatchObject({ text: "1" });
    await first.close();
    await serve("http", Number(new URL(first.url).port), "--no-get");
    // no call was in flight: the stale session is replaced without failing this call
    expect(await tb.call("counter_get", {})).toMatchObject({ isError: false, text: "0" });
    expect(tb.stats()).toMatchObject({ reconnects: 1, errors: 0 });
  });

  it("does not resume a stream that ended with an error response (a resumable server, as server-everything is)", async () => {
    const server = await serve("http", 0, "--resources", "--resumable");
    let log = "";
    server.child.stderr!.on("data", (d: Buffer) => (log += d.toString()));
    const tb = await open(server.url, { resourceTools: true });
    // a JSON-RPC error (an unknown resource), then a call that runs past the SDK's 1 s reconnect delay
    expect(await tb.call("read_resource", { uri: "mem://notes/nope" })).toMatchObject({ isError: true });
    const seen: number[] = [];
    expect(await tb.call("slow", { steps: 3, ms: 600 }, { onProgress: (p) => seen.push(p.progress) })).toMatchObject({ isError: false });
    // the SDK would GET with Last-Event-ID twice per error, replaying it to nobody; every progress once
    expect(log).not.toContain("resumed after");
    expect(seen).toEqual([1, 2, 3]);
    expect(tb.stats()).toMatchObject({ reconnects: 0 });
  });

  it("isolated() opens a session of its own, ended on close, while the parent's stays open", async () => {
    const server = await serve("http");
    const tb = await open(server.url);
    expect(tb.isolation).toBe("session");
    const [a, b] = await Promise.all([tb.isolated(), tb.isolated()]);
    expect(await a.call("session_inc", {})).toMatchObject({ text: "1" });
    expect(await a.call("session_inc", {})).toMatchObject({ text: "2" });
    expect(await b.call("session_inc", {})).toMatchObject({ text: "1" }); // b's own session state
    expect(await tb.call("session_inc", {})).toMatchObject({ text: "1" });
    // state the server keeps globally is shared: no client can change that
    await a.call("counter_inc", {});
    expect(await b.call("counter_get", {})).toMatchObject({ text: "1" });
    await a.close();
    expect(await a.call("echo", { text: "x" })).toMatchObject({ fault: "connection" });
    expect(await b.call("session_inc", {})).toMatchObject({ text: "2" });
    expect(await tb.call("echo", { text: "parent still open" })).toMatchObject({ isError: false });
    await b.close();
  });

  it("sessions of one HTTP server share its concurrency bound", async () => {
    const server = await serve("http");
    const tb = await open(server.url, { maxConcurrency: 1 });
    const [a, b] = await Promise.all([tb.isolated(), tb.isolated()]);
    const t0 = Date.now();
    const done: number[] = [];
    await Promise.all([a, b].map((box) => box.call("sleep", { ms: 250 }).then(() => done.push(Date.now() - t0))));
    // one call in flight at a time: the second could only start when the first had finished
    expect(Math.max(...done)).toBeGreaterThanOrEqual(500);
    await Promise.all([a.close(), b.close()]);
  });

  it("isolated() over legacy SSE is a session of its own too", async () => {
    const server = await serve("sse");
    const tb = await open(server.url);
    expect(tb.transportKind).toBe("sse");
    const a = await tb.isolated();
    expect(await a.call("session_inc", {})).toMatchObject({ text: "1" });
    expect(await tb.call("session_inc", {})).toMatchObject({ text: "1" });
    await a.close();
    expect(await tb.call("session_inc", {})).toMatchObject({ text: "2" });
  });

  it("throws one clear ServerUnreachable error when nothing listens", async () => {
    const server = await serve("http");
    const url = server.url;
    await server.close();
    const err = await connect(url).catch((e: unknown) => e);
    expect(isTrainMcpError(err) && err.code).toBe("ServerUnreachable");
    expect((err as Error).message).toMatch(/cannot reach MCP server at http:\/\/127\.0\.0\.1:\d+\/mcp: fetch failed \(.*ECONNREFUSED/);
  });

  it("names both attempts when Streamable HTTP answers 4xx and SSE fails too", async () => {
    const server = await serve("sse");
    const wrong = server.url.replace(/\/sse$/, "/nothing-here");
    const err = await connect(wrong, { connectTimeoutMs: 5000 }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/Streamable HTTP answered 405 and legacy SSE failed/);
  });
});

describe("a dropped socket on connect", () => {
  it("is retried once on a new connection (a keep-alive race), not reported as an unreachable server", async () => {
    const upstream = await serve("http");
    const target = new URL(upstream.url);
    let requests = 0;
    // a hop that cuts the first request's connection without a reply, then passes everything on
    const hop = http.createServer((req, res) => {
      if (requests++ === 0) return req.socket.destroy();
      const out = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      req.pipe(out);
    });
    await new Promise<void>((resolve) => hop.listen(0, "127.0.0.1", resolve));
    const { port } = hop.address() as AddressInfo;
    try {
      const tb = await connect(`http://127.0.0.1:${port}${target.pathname}`);
      expect((await tb.call("echo", { text: "through" })).text).toBe("through");
      await tb.close();
      expect(requests).toBeGreaterThan(1);
    } finally {
      hop.closeAllConnections();
      await new Promise((resolve) => hop.close(resolve));
    }
  });
});

describe("an HTTP server that never answers", () => {
  it("is named with the wait, not the SDK's bare \"Request timed out\"", async () => {
    const silent = http.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const err = await connect(`http://127.0.0.1:${port}/mcp`, { connectTimeoutMs: 300 }).catch((e: unknown) => e);
      expect(isTrainMcpError(err) && err.code).toBe("ServerUnreachable");
      expect((err as Error).message).toBe(
        `cannot reach MCP server at http://127.0.0.1:${port}/mcp: no reply to initialize within 300 ms (the timeout may be too short: try --timeout 30s, the default)`,
      );
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
