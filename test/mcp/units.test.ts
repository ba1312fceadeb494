/**
 * The pure parts of the MCP layer, without servers: target parsing, command-line splitting, timeouts,
 * result normalization edge cases, schema dialects in the validator, the semaphore.
 */
import { describe, expect, it } from "vitest";
import { normalizeResult, truncate } from "../../src/mcp/normalize.js";
import { Semaphore } from "../../src/mcp/semaphore.js";
import { parseTarget, splitCommandLine } from "../../src/mcp/target.js";
import { ArgumentValidator } from "../../src/mcp/validate.js";
import { Command } from "commander";
import { addTargetOptions, connectArgs } from "../../src/cli/target-options.js";
import { parseTimeoutMs, TimeoutMsSchema } from "../../src/mcp/timeout.js";

describe("targets", () => {
  it("recognizes URLs, fixtures, stdio: and bare command lines", () => {
    expect(parseTarget("https://example.com/mcp")).toEqual({ kind: "http", url: "https://example.com/mcp" });
    expect(parseTarget("fixture:shop")).toEqual({ kind: "fixture", name: "shop" });
    expect(parseTarget("stdio:npx -y server --root '/tmp/a b'")).toEqual({ kind: "stdio", command: "npx", args: ["-y", "server", "--root", "/tmp/a b"] });
    expect(parseTarget("python3 server.py")).toEqual({ kind: "stdio", command: "python3", args: ["server.py"] });
  });

  it("splits command lines like a shell, without running one", () => {
    expect(splitCommandLine(`a "b c" 'd "e"' f\\ g "h\\"i" ''`)).toEqual(["a", "b c", 'd "e"', "f g", 'h"i', ""]);
    expect(splitCommandLine("  x   $HOME  *.ts ")).toEqual(["x", "$HOME", "*.ts"]);
    expect(() => splitCommandLine("a 'b")).toThrow(/unterminated ' quote/);
    expect(() => parseTarget("stdio:  ")).toThrow(/needs a command line/);
  });

  it("turns CLI flags into connect options, with clear errors", () => {
    const { options } = connectArgs({ server: "x", env: ["A=1", "B=x=y"], header: ["Authorization: Bearer t:k"], timeout: "500" });
    expect(options).toMatchObject({ env: { A: "1", B: "x=y" }, headers: { Authorization: "Bearer t:k" }, timeoutMs: 500 });
    expect(() => connectArgs({ server: "x", env: ["NOEQUALS"] })).toThrow(/--env expects K=V/);
    expect(() => connectArgs({ server: "x", header: ["secret-without-colon"] })).toThrow(/--header expects/);
    // a header value is never echoed back in an error
    expect(() => connectArgs({ server: "x", header: ["secret-without-colon"] })).not.toThrow(/secret/);
    expect(() => connectArgs({ server: "x", env: ["topsecret-value"] })).not.toThrow(/topsecret/);
    // a token read from a file with its newline: refused by name, the value not quoted
    const bad = () => connectArgs({ server: "x", header: ["Authorization: Bearer sekrit-1\nline2"] });
    expect(bad).toThrow(/--header Authorization: the value contains a line break/);
    expect(bad).not.toThrow(/sekrit/);
    expect(() => connectArgs({ server: "x", timeout: "soon" })).toThrow(/--timeout/);
  });

  it("reads --timeout as milliseconds or with a unit, and refuses seconds typed as milliseconds", () => {
    expect([parseTimeoutMs("30000"), parseTimeoutMs("30s"), parseTimeoutMs("500ms"), parseTimeoutMs("2m"), parseTimeoutMs("1.5s"), parseTimeoutMs("100")]).toEqual([30_000, 30_000, 500, 120_000, 1500, 100]);
    expect(connectArgs({ server: "x", timeout: "45s" }).options.timeoutMs).toBe(45_000);
    // read as the flag is parsed, into the milliseconds every command (train's config too) takes
    expect(addTargetOptions(new Command()).parse(["-s", "x", "--timeout", "2m"], { from: "user" }).opts().timeout).toBe("120000");
    // `--timeout 30` meaning 30 seconds: refused with the unit named and both spellings of 30 s
    expect(() => connectArgs({ server: "x", timeout: "30" })).toThrow("--timeout 30 is in milliseconds, too short to start a server or call a tool; for 30 s write 30000 or 30s");
    expect(() => parseTimeoutMs("1")).toThrow(/--timeout 1 is in milliseconds.*write 1000 or 1s/);
    expect(() => parseTimeoutMs("0")).toThrow(/above 0/);
    expect(() => parseTimeoutMs("-5")).toThrow(/expects milliseconds or a number with a unit/);
    expect(() => parseTimeoutMs("30 sec")).toThrow(/expects milliseconds or a number with a unit/);
    expect(() => parseTimeoutMs("48h")).toThrow(/at most 24 hours/);
    // no server answers within 100 ms, whatever the unit
    expect(() => parseTimeoutMs("50ms")).toThrow(/at least 100 ms, got "50ms"/);
    // a config file's field reads the same way, numbers or strings
    expect([TimeoutMsSchema.parse(30_000), TimeoutMsSchema.parse("30s")]).toEqual([30_000, 30_000]);
    expect(TimeoutMsSchema.safeParse(30).error?.issues[0].message).toMatch(/30 is in milliseconds/);
  });
});

describe("normalization", () => {
  it("handles empty, error-only and unknown content", () => {
    expect(normalizeResult({ content: [] }).text).toBe("(no output)");
    // a base64 resource of a text type is text the model can read; other bytes stay a summary
    const blob = (mimeType: string, bytes: Buffer) => normalizeResult({ content: [{ type: "resource", resource: { uri: "x://1", mimeType, blob: bytes.toString("base64") } }] }).text;
    expect(blob("text/plain", Buffer.from("Roses are red, ünïcode too"))).toBe("[resource: x://1]\nRoses are red, ünïcode too");
    expect(blob("application/vnd.api+json", Buffer.from('{"a":1}'))).toBe('[resource: x://1]\n{"a":1}');
    expect(blob("text/plain", Buffer.from([0xff, 0xfe, 0x00]))).toBe("[resource: x://1, text/plain, 3 bytes]");
    expect(blob("application/octet-stream", Buffer.from("abc"))).toBe("[resource: x://1, application/octet-stream, 3 bytes]");
    expect(normalizeResult({ content: [], isError: true })).toMatchObject({ isError: true, text: expect.stringContaining("without a message") });
    expect(normalizeResult({ content: [{ type: "hologram", data: "…" }] }).text).toBe("[hologram content]");
    expect(normalizeResult({ content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] }).text).toBe("a\nb");
  });

  it("shows structured content once, only when the text does not already carry it", () => {
    expect(normalizeResult({ content: [{ type: "text", text: '{"b":2,"a":1}' }], structuredContent: { a: 1, b: 2 } }).text).toBe('{"b":2,"a":1}');
    expect(normalizeResult({ content: [{ type: "text", text: "42" }], structuredContent: { answer: 42 } }).text).toBe("42");
    expect(normalizeResult({ content: [{ type: "text", text: "ok" }], structuredContent: { answer: 42 } }).text).toBe('ok\n{"answer":42}');
    expect(normalizeResult({ structuredContent: { answer: 42 } }).text).toBe('{"answer":42}');
  });

  it("truncates exactly past the limit", () => {
    expect(truncate("abcdef", 6)).toEqual({ text: "abcdef", truncated: false });
    expect(truncate("abcdefg", 6)).toEqual({ text: "abcdef\n…[truncated 1 chars]", truncated: true });
    const r = normalizeResult({ content: [{ type: "text", text: "y".repeat(50) }] }, 10);
    expect(r).toMatchObject({ truncated: true, text: "yyyyyyyyyy\n…[truncated 40 chars]" });
  });
});

describe("validator", () => {
  const v = new ArgumentValidator();

  it("compiles 2019-09 and 2020-12 schemas, and tools sharing an $id", () => {
    const s2020 = { $schema: "https://json-schema.org/draft/2020-12/schema", $id: "same", type: "object", prefixItems: [], properties: { n: { type: "number", exclusiveMinimum: 0 } } };
    const s2019 = { $schema: "https://json-schema.org/draft/2019-09/schema", $id: "same", type: "object", properties: { s: { type: "string", maxLength: 2 } } };
    expect(v.check("a", s2020, { n: 0 })).toEqual({ ok: false, message: "/n: must be > 0" });
    expect(v.check("b", s2019, { s: "abc" })).toEqual({ ok: false, message: "/s: must NOT have more than 2 characters" });
    expect(v.check("b", s2019, { s: "ab" }).ok).toBe(true);
  });

  it("leaves validation to the server when a schema cannot be compiled", () => {
    const broken = { type: "object", properties: { x: { $ref: "#/definitions/missing" } } };
    expect(v.check("broken", broken, { x: 1 })).toEqual({ ok: true, args: { x: 1 } });
  });

  it("caps the list of errors", () => {
    const schema = { type: "object", properties: Object.fromEntries("abcdefg".split("").map((k) => [k, { type: "string" }])) };
    const r = v.check("many", schema, Object.fromEntries("abcdefg".split("").map((k) => [k, 1])));
    expect(r.ok === false && r.message).toMatch(/^\/a: must be string; .*\(2 more\)$/);
  });
});

describe("semaphore", () => {
  it("limits holders and lets an aborted waiter leave the queue", async () => {
    const s = new Semaphore(1);
    const first = await s.acquire();
    const ac = new AbortController();
    const aborted = s.acquire(ac.signal);
    const third = s.acquire();
    ac.abort();
    await expect(aborted).rejects.toBeDefined();
    expect(s.inFlight).toBe(1);
    first();
    const release3 = await third;
    expect(s.inFlight).toBe(1);
    release3();
    release3(); // releasing twice frees one slot only
    expect(s.inFlight).toBe(0);
  });
});
