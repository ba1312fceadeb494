/**
 * linkedFetch over a real local HTTP server: the session-long signal the SDK's transports pass
 * keeps no listener of a finished request (Node's fetch leaves one per request until garbage
 * collection, past 1500 in a busy session), and aborting it still ends a response in flight.
 */
import { getEventListeners } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linkedFetch } from "../../src/mcp/linked-fetch.js";

let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === "/stream") {
      // an SSE stream that stays open until the client goes
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: first\n\n");
      return;
    }
    if (req.url === "/accepted") {
      res.writeHead(202);
      res.end();
      return;
    }
    res.writeHead(200, { "content-type": "application/json", "x-echo": req.url ?? "" });
    res.end(JSON.stringify({ url: req.url }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("linkedFetch", () => {
  it("leaves no abort listener on the session's signal once each response is read or cancelled", async () => {
    const session = new AbortController();
    const f = linkedFetch();
    for (let i = 0; i < 40; i++) {
      const res = await f(`${base}/call/${i}`, { signal: session.signal });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-echo")).toBe(`/call/${i}`);
      expect(res.url).toBe(`${base}/call/${i}`);
      expect(res.redirected).toBe(false);
      expect(await res.json()).toEqual({ url: `/call/${i}` });
    }
    const accepted = await f(`${base}/accepted`, { signal: session.signal, method: "POST", body: "{}" });
    expect(accepted.status).toBe(202);
    await accepted.body?.cancel();
    expect(getEventListeners(session.signal, "abort")).toHaveLength(0);
  });

  it("keeps the link while a stream is open, and aborting the session's signal ends the stream", async () => {
    const session = new AbortController();
    const res = await linkedFetch()(`${base}/stream`, { signal: session.signal });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe("data: first\n\n");
    expect(getEventListeners(session.signal, "abort")).toHaveLength(1);
    const pending = reader.read();
    session.abort(new Error("session closed"));
    await expect(pending).rejects.toThrow();
    expect(getEventListeners(session.signal, "abort")).toHaveLength(0);
  });

  it("refuses at once under a signal already aborted", async () => {
    const session = new AbortController();
    session.abort(new Error("gone"));
    await expect(linkedFetch()(`${base}/call/x`, { signal: session.signal })).rejects.toThrow();
    expect(getEventListeners(session.signal, "abort")).toHaveLength(0);
  });
});
