/**
 * The reference server-everything (a devDependency) over Streamable HTTP, as its own process: it
 * keeps an event store, so every SSE event carries an id, and the SDK client (1.32.2) reconnects
 * with GET + Last-Event-ID after any stream that ended with a JSON-RPC *error* response
 * (typescript-sdk#2638). src/mcp/resume-guard.ts answers those resumes locally; here the real
 * server's own log shows whether a client came back for one.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "../../src/mcp/connect.js";
import { freePort } from "../helpers/free-port.js";

const SERVER = resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");

describe("server-everything (the npm package) over Streamable HTTP", () => {
  let child: ChildProcess;
  let log = "";
  let url: string;
  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}/mcp`;
    child = spawn(process.execPath, [SERVER, "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] });
    await new Promise<void>((ready, fail) => {
      const timer = setTimeout(() => fail(new Error(`server-everything did not start: ${log}`)), 20_000);
      const read = (b: Buffer) => {
        log += b.toString();
        if (/listening on port/i.test(log)) {
          clearTimeout(timer);
          ready();
        }
      };
      child.stdout!.on("data", read);
      child.stderr!.on("data", read);
      child.once("exit", (code) => fail(new Error(`server-everything exited (${code}): ${log}`)));
    });
  });
  afterAll(() => {
    child?.kill("SIGTERM");
  });

  it("answers errors without the client coming back to resume their streams", async () => {
    const box = await connect(url, { resourceTools: true });
    try {
      const from = log.length;
      for (let i = 0; i < 4; i++) {
        const r = await box.call("read_resource", { uri: "demo://resource/static/document/nope.md" });
        expect(r.isError).toBe(true);
        expect(r.text).toContain("not found");
      }
      // the SDK would come back a second after each error stream ended, twice
      await new Promise((r) => setTimeout(r, 2500));
      expect(log.slice(from)).not.toMatch(/reconnecting with Last-Event-ID/i);
      // and the session still serves calls
      expect((await box.call("get-sum", { a: 2, b: 3 })).text).toContain("5");
    } finally {
      await box.close();
    }
  });
});
