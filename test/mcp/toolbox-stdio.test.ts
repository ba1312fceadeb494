/**
 * The toolbox over stdio against test/servers/everything.ts, a real SDK server in a real child
 * process: discovery with pagination, argument validation, timeouts, progress, abort, result
 * normalization, junk on stdout, a kill -9 mid-call, concurrency, isolation and clean close.
 */
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type McpToolbox } from "../../src/mcp/connect.js";
import { liveChildren } from "../../src/mcp/children.js";
import { alive, stdioTarget } from "../servers/launch.js";
import { linksOutside } from "../../src/mcp/template-copy.js";

let tb: McpToolbox;
let logDir: string;

beforeAll(async () => {
  logDir = await mkdtemp(join(tmpdir(), "train-mcp-test-log-"));
  process.env.TRAIN_MCP_TEST_SECRET = "do-not-leak";
  tb = await connect(stdioTarget("everything", "--junk-on-start"), {
    timeoutMs: 5000,
    env: { GREETING: "hello from env" },
    serverLog: join(logDir, "server.log"),
  });
});

afterAll(async () => {
  await tb?.close();
  await rm(logDir, { recursive: true, force: true });
});

describe("discovery", () => {
  it("lists every tool across pages and converts them to OpenAI function tools", () => {
    const names = tb.tools.map((t) => t.name);
    expect(names).toHaveLength(19); // 5 pages of 4 on the server side
    expect(names.slice(0, 3)).toEqual(["echo", "order", "slow"]);
    const order = tb.openAiTools().find((t) => t.function.name === "order")!;
    expect(order.type).toBe("function");
    expect(order.function.description).toMatch(/Place an order/);
    expect(order.function.parameters).not.toHaveProperty("$schema");
    expect(order.function.parameters.required).toEqual(["customer", "items", "shipping"]);
  });

  it("sends stderr to the log file, not the terminal", async () => {
    expect(await readFile(join(logDir, "server.log"), "utf8")).toContain("everything: stdio server ready");
  });
});

describe("argument validation before sending", () => {
  const good = { customer: { name: "Ada" }, items: [{ sku: "a1", qty: 2 }], shipping: "express" };

  it("accepts valid nested arguments, optional fields and unknown formats", async () => {
    expect(await tb.call("order", good)).toMatchObject({ isError: false, text: "ordered 2xa1 by express" });
    const withNote = await tb.call("order", { ...good, note: "anything goes in x-house-style" });
    expect(withNote.isError).toBe(false);
  });

  it("names the failing path for arrays, nested objects, enums and extra properties", async () => {
    const r = await tb.call("order", {
      customer: { name: "", email: "not-an-email" },
      items: [{ sku: "a1", qty: 0, colour: "red" }],
      shipping: "overnight",
    });
    expect(r).toMatchObject({ isError: true, fault: "invalid_arguments" });
    expect(r.text).toContain("/items/0/qty: must be >= 1");
    expect(r.text).toContain("/customer/name: must NOT have fewer than 1 characters");
    expect(r.text).toContain('/customer/email: must match format "email"');
    expect(r.text).toContain('/shipping: must be equal to one of the allowed values: "standard", "express"');
    expect(r.text).toContain('/items/0: must NOT have additional properties ("colour")');
  });

  it("reports missing required properties, wrong types and non-object arguments", async () => {
    expect((await tb.call("order", { customer: { name: "A" }, items: [] })).text).toMatch(/\/: must have required property 'shipping'/);
    expect((await tb.call("order", { ...good, items: [] })).text).toContain("/items: must NOT have fewer than 1 items");
    expect((await tb.call("slow", { steps: "3", ms: 1 })).text).toContain("/steps: must be integer"); // draft-07 schema
    expect(await tb.call("echo", [1, 2])).toMatchObject({ fault: "invalid_arguments", text: expect.stringContaining("must be a JSON object") });
    expect(await tb.call("echo", "{not json")).toMatchObject({ fault: "invalid_arguments" });
    expect(await tb.call("echo", '{"text":"from a JSON string"}')).toMatchObject({ isError: false, text: "from a JSON string" });
  });

  it("answers an unknown tool with the list of known ones", async () => {
    const r = await tb.call("ehco", { text: "x" });
    expect(r).toMatchObject({ isError: true, fault: "unknown_tool" });
    expect(r.text).toContain("echo, order, slow");
    expect(r.text).toContain('unknown tool "ehco" (did you mean "echo"?)');
    // a name in the wrong case is named too; one far from every name is not guessed at
    expect((await tb.call("ECHO", { text: "x" })).text).toContain('(did you mean "echo"?)');
    expect((await tb.call("translate", { text: "x" })).text).not.toContain("did you mean");
  });
});

describe("results", () => {
  it("truncates long output with a visible marker", async () => {
    const r = await tb.call("big", { chars: 25_000 });
    expect(r.truncated).toBe(true);
    expect(r.text.startsWith("x".repeat(20_000))).toBe(true);
    expect(r.text.endsWith("…[truncated 5000 chars]")).toBe(true);
    expect((await tb.call("big", { chars: 100 })).truncated).toBe(false);
  });

  it("replaces images and audio with placeholders and lists resources", async () => {
    expect((await tb.call("image", {})).text).toBe("a tiny picture\n[image: image/png, 68 bytes]");
    expect((await tb.call("media", {})).text).toBe(
      [
        "[audio: audio/wav, 3000 bytes]",
        "[resource: file:///data/report.csv (report.csv)]",
        "[resource: mem://notes]",
        "embedded note",
        "[resource: mem://blob, application/octet-stream, 10 bytes]",
      ].join("\n"),
    );
  });

  it("keeps isError from the tool without a fault", async () => {
    const r = await tb.call("fail", {});
    expect(r).toMatchObject({ isError: true, text: "something went wrong: the warehouse is closed" });
    expect(r.fault).toBeUndefined();
  });

  it("keeps structuredContent and shows it once", async () => {
    const w = await tb.call("weather", { city: "Oslo" });
    expect(w.structuredContent).toEqual({ city: "Oslo", temp: 21.5, unit: "C" });
    expect(w.text).toBe('{"city":"Oslo","temp":21.5,"unit":"C"}'); // the text already is the JSON
    const s = await tb.call("stats", {});
    expect(s.text).toBe('the mean is about four\n{"mean":4.2}'); // prose alone would hide 4.2
  });
});

describe("time", () => {
  it("times out a silent slow tool and keeps the session usable", async () => {
    const t0 = Date.now();
    const r = await tb.call("sleep", { ms: 3000 }, { timeoutMs: 300 });
    expect(r).toMatchObject({ isError: true, fault: "timeout" });
    expect(Date.now() - t0).toBeLessThan(2500);
    expect(await tb.call("echo", { text: "still alive" })).toMatchObject({ text: "still alive" });
  });

  it("passes progress through, and progress keeps a slow tool alive past its timeout", async () => {
    const seen: Array<{ progress: number; total?: number; message?: string }> = [];
    const r = await tb.call("slow", { steps: 4, ms: 150 }, { timeoutMs: 400, onProgress: (p) => seen.push(p) });
    expect(r).toMatchObject({ isError: false, text: "done after 4 steps" });
    expect(seen.map((p) => p.progress)).toEqual([1, 2, 3, 4]);
    expect(seen[0]).toMatchObject({ total: 4, message: "step 1" });
    // progress stretches the limit up to 4x: the timeout says how long the call really ran
    const long = await tb.call("slow", { steps: 40, ms: 150 }, { timeoutMs: 400, onProgress: () => undefined });
    expect(long).toMatchObject({ isError: true, fault: "timeout" });
    expect(long.text).toMatch(/^call to slow timed out after \d{4} ms \(the tool reported progress, which restarts the 400 ms limit, up to 1600 ms in all\)/);
  });

  it("aborts on the caller's signal", async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const r = await tb.call("sleep", { ms: 3000 }, { signal: ac.signal });
    expect(r).toMatchObject({ isError: true, fault: "aborted" });
    const already = new AbortController();
    already.abort();
    expect(await tb.call("echo", { text: "x" }, { signal: already.signal })).toMatchObject({ fault: "aborted" });
  });

  it("leaves no listener on a long-lived signal after its calls (a run passes one to every call)", async () => {
    const run = new AbortController();
    const counted = { added: 0, removed: 0 };
    const add = run.signal.addEventListener.bind(run.signal);
    const remove = run.signal.removeEventListener.bind(run.signal);
    run.signal.addEventListener = ((...a: Parameters<typeof add>) => (counted.added++, add(...a))) as typeof add;
    run.signal.removeEventListener = ((...a: Parameters<typeof remove>) => (counted.removed++, remove(...a))) as typeof remove;
    for (let i = 0; i < 20; i++) expect(await tb.call("echo", { text: String(i) }, { signal: run.signal })).toMatchObject({ isError: false });
    expect(counted.added).toBeGreaterThan(0);
    expect(counted.removed).toBe(counted.added);
  });
});

describe("faults", () => {
  it("survives junk on stdout at start-up and mid-session, and counts it", async () => {
    expect(await tb.call("junk", {})).toMatchObject({ isError: false, text: "still here" });
    expect(await tb.call("echo", { text: "after junk" })).toMatchObject({ text: "after junk" });
    expect(tb.stats().junkLines).toBeGreaterThanOrEqual(3); // 1 at start, 2 from the tool
  });

  it("fails the in-flight call when the server is killed, then reconnects transparently", async () => {
    const before = tb.stats().reconnects;
    const oldPid = tb.pid!;
    const inFlight = tb.call("sleep", { ms: 5000 });
    await new Promise((r) => setTimeout(r, 200));
    process.kill(oldPid, "SIGKILL");
    const r = await inFlight;
    expect(r).toMatchObject({ isError: true, fault: "connection" });
    expect(r.text).toContain("SIGKILL");
    expect(await tb.call("echo", { text: "back" })).toMatchObject({ isError: false, text: "back" });
    expect(tb.pid).not.toBe(oldPid);
    expect(alive(oldPid)).toBe(false);
    expect(tb.stats().reconnects).toBe(before + 1);
  });

  it("passes --env variables but not this process's secrets", async () => {
    expect((await tb.call("env", { name: "GREETING" })).text).toBe("hello from env");
    expect((await tb.call("env", { name: "TRAIN_MCP_TEST_SECRET" })).text).toBe("(unset)");
    expect((await tb.call("env", { name: "PATH" })).text).not.toBe("(unset)");
  });

  it("counts calls, errors, invalid arguments and timeouts", () => {
    const s = tb.stats();
    expect(s.calls).toBeGreaterThan(20);
    expect(s.invalidArguments).toBeGreaterThanOrEqual(6);
    expect(s.timeouts).toBe(2); // the hanging tool's, and the progress-stretched one's
    expect(s.errors).toBeGreaterThanOrEqual(s.invalidArguments + s.timeouts);
  });
});

describe("concurrency", () => {
  it("runs calls in parallel up to the cap", async () => {
    const capped = await connect(stdioTarget("everything"), { maxConcurrency: 2 });
    try {
      const t0 = Date.now();
      await Promise.all(Array.from({ length: 4 }, () => capped.call("sleep", { ms: 300 })));
      const cappedMs = Date.now() - t0;
      expect(cappedMs).toBeGreaterThanOrEqual(590); // two waves of two
      const t1 = Date.now();
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => tb.call("echo", { text: `n${i}` })));
      expect(results.map((r) => r.text)).toEqual(Array.from({ length: 8 }, (_, i) => `n${i}`));
      const parallel = await Promise.all(Array.from({ length: 4 }, () => tb.call("sleep", { ms: 300 })));
      expect(parallel.every((r) => !r.isError)).toBe(true);
      expect(Date.now() - t1).toBeLessThan(cappedMs + 300);
    } finally {
      await capped.close();
    }
  });
});

describe("isolation and close", () => {
  it("gives each isolated toolbox its own process and its own copy of templateDir", async () => {
    const template = await mkdtemp(join(tmpdir(), "train-mcp-template-"));
    await writeFile(join(template, "state.txt"), "initial");
    const base = await connect(stdioTarget("everything"), { templateDir: template });
    try {
      const a = await base.isolated();
      const b = await base.isolated();
      expect(await a.call("counter_inc", {})).toMatchObject({ text: "1" });
      expect(await a.call("counter_inc", {})).toMatchObject({ text: "2" });
      expect(await b.call("counter_get", {})).toMatchObject({ text: "0" });
      expect(await a.call("write", { file: "state.txt", text: "changed by a" })).toMatchObject({ text: "written" });
      expect((await b.call("read", { file: "state.txt" })).text).toBe("initial");
      expect((await a.call("read", { file: "state.txt" })).text).toBe("changed by a");
      expect(await readFile(join(template, "state.txt"), "utf8")).toBe("initial");
      const pids = [base.pid, Number((await a.call("pid", {})).text), Number((await b.call("pid", {})).text)];
      expect(new Set(pids).size).toBe(3);
      const dirs = [base.workingDirectory!, (a as McpToolbox).workingDirectory!, (b as McpToolbox).workingDirectory!];
      await a.close();
      expect(alive(pids[1]!)).toBe(false);
      expect(existsSync(dirs[1])).toBe(false);
      await base.close(); // closes b too
      expect(pids.some((p) => alive(p!))).toBe(false);
      expect(dirs.some((d) => existsSync(d))).toBe(false);
      expect(await b.call("echo", { text: "x" })).toMatchObject({ fault: "connection" });
    } finally {
      await base.close();
      await rm(template, { recursive: true, force: true });
    }
  });

  it("keeps a template's own symlinks inside each copy, so writes through them never reach the template", async () => {
    const template = await mkdtemp(join(tmpdir(), "train-mcp-template-"));
    const outside = await mkdtemp(join(tmpdir(), "train-mcp-outside-"));
    await mkdir(join(template, "real"));
    await writeFile(join(template, "real", "db.txt"), "original");
    await writeFile(join(outside, "o.txt"), "outside");
    await symlink("real/db.txt", join(template, "db-rel.txt"));
    await symlink(join(template, "real", "db.txt"), join(template, "db-abs.txt"));
    await symlink("real", join(template, "datalink"));
    await symlink(join(outside, "o.txt"), join(template, "out.txt"));
    const box = await connect(stdioTarget("everything"), { templateDir: template });
    try {
      for (const file of ["db-rel.txt", "db-abs.txt", "datalink/db.txt"]) {
        expect(await box.call("write", { file, text: `through ${file}` })).toMatchObject({ text: "written" });
        expect((await box.call("read", { file: "real/db.txt" })).text).toBe(`through ${file}`);
      }
      expect(await readFile(join(template, "real", "db.txt"), "utf8")).toBe("original");
      // the links read as they did in the template
      expect((await box.call("read", { file: "out.txt" })).text).toBe("outside");
      expect(await linksOutside(template)).toEqual(["out.txt"]);
    } finally {
      await box.close();
      await rm(template, { recursive: true, force: true });
      await rm(outside, { recursive: true, force: true });
    }
  });

  it("gives --env values the instance's working directory for ${cwd}: each isolated copy its own", async () => {
    const template = await mkdtemp(join(tmpdir(), "train-mcp-template-"));
    const base = await connect(stdioTarget("everything"), { templateDir: template, env: { DATA_PATH: "${cwd}/memory.json" } });
    try {
      const child = (await base.isolated()) as McpToolbox;
      expect((await base.call("env", { name: "DATA_PATH" })).text).toBe(join(base.workingDirectory!, "memory.json"));
      expect((await child.call("env", { name: "DATA_PATH" })).text).toBe(join(child.workingDirectory!, "memory.json"));
      expect(child.workingDirectory).not.toBe(base.workingDirectory);
    } finally {
      await base.close();
      await rm(template, { recursive: true, force: true });
    }
    // without a template copy, it is the --cwd the server runs in
    const plain = await connect(stdioTarget("everything"), { cwd: tmpdir(), env: { DATA_PATH: "${cwd}/x" } });
    try {
      expect((await plain.call("env", { name: "DATA_PATH" })).text).toBe(`${tmpdir()}/x`);
    } finally {
      await plain.close();
    }
  });

  it("leaves no child process after close, including wrapped grandchildren", async () => {
    // a shell wrapper: the server is a grandchild, reached only through the process group
    const target = stdioTarget("everything").replace(/^stdio:/, "");
    const wrapped = await connect(`stdio:sh -c '${target.replace(/'/g, "")}; sleep 30'`);
    const serverPid = Number((await wrapped.call("pid", {})).text);
    const shPid = wrapped.pid!;
    expect(alive(serverPid) && alive(shPid)).toBe(true);
    await wrapped.close();
    await new Promise((r) => setTimeout(r, 100));
    expect(alive(serverPid)).toBe(false);
    expect(alive(shPid)).toBe(false);
    expect(liveChildren()).not.toContain(shPid);
  });
});

describe("start-up", () => {
  it("says a silent process gave no reply to initialize, not that it was killed", async () => {
    const err = await connect(`${JSON.stringify(process.execPath)} -e "setTimeout(() => {}, 60000)"`, { connectTimeoutMs: 500 }).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toMatch(/no reply to initialize within 500 ms/);
    expect(err?.message).not.toMatch(/SIGTERM|killed/);
  });

  it("waits for initialize as long as the per-call timeout (--timeout) when no connect timeout is given", async () => {
    const err = await connect(`${JSON.stringify(process.execPath)} -e "setTimeout(() => {}, 60000)"`, { timeoutMs: 700 }).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toMatch(/no reply to initialize within 700 ms/);
  });
});

describe("servers with small mistakes", () => {
  it("reads an input schema without type as an object, and lists a tool once when a page repeats", async () => {
    const box = await connect(stdioTarget("sloppy"));
    try {
      expect(box.tools.map((t) => t.name)).toEqual(["loose", "nullprops"]);
      expect(box.tools[0].inputSchema).toMatchObject({ type: "object" });
      expect(box.tools[1].inputSchema).not.toHaveProperty("properties");
      const r = await box.call("loose", { a: 1 });
      expect(r.isError).toBe(false);
      expect(r.text).toBe('{"a":1}');
    } finally {
      await box.close();
    }
  });
});

describe("MCP roots", () => {
  it("offers a server its working directory (--cwd, or its --template-dir copy) as a root, and no roots without one", async () => {
    const dir = await mkdtemp(join(tmpdir(), "roots-"));
    const text = async (options: { cwd?: string; templateDir?: string }) => {
      const box = await connect(stdioTarget("roots"), options);
      try {
        return (await box.call("list_roots", {})).text;
      } finally {
        await box.close();
      }
    };
    try {
      expect(await text({})).toBe("the client offers no roots");
      expect(await text({ cwd: dir })).toBe(pathToFileURL(dir).href);
      // a template's copy, not the template itself
      const copy = await text({ templateDir: dir });
      expect(copy).toMatch(/^file:\/\/.*train-mcp-work-/);
      expect(copy).not.toBe(pathToFileURL(dir).href);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("offers the folders its command line names too (server-filesystem puts roots in place of them), but not a --template-dir's original", async () => {
    const work = await mkdtemp(join(tmpdir(), "roots-work-"));
    const data = await mkdtemp(join(tmpdir(), "roots-data-"));
    const roots = async (options: { cwd?: string; templateDir?: string }, ...args: string[]) => {
      const box = await connect(stdioTarget("roots", ...args), options);
      try {
        return (await box.call("list_roots", {})).text.split("\n");
      } finally {
        await box.close();
      }
    };
    try {
      // a file, a flag and a word that is no folder are not roots; `--allow=DIR` is
      await writeFile(join(data, "notes.txt"), "x");
      expect(await roots({ cwd: work }, data, join(data, "notes.txt"), "-y", "no-such-folder", `--allow=${tmpdir()}`)).toEqual([
        pathToFileURL(work).href,
        pathToFileURL(data).href,
        pathToFileURL(tmpdir()).href,
      ]);
      // the server is started on the template itself, but works on its copy: the original is no root
      const copied = await roots({ templateDir: data }, data, ".");
      expect(copied).toHaveLength(1);
      expect(copied[0]).toMatch(/train-mcp-work-/);
    } finally {
      await rm(work, { recursive: true, force: true });
      await rm(data, { recursive: true, force: true });
    }
  });
});
