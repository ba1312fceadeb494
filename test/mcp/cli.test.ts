/**
 * The real CLI (`node bin/train-mcp.mjs`) for `tools`, `call` and the no-argument default:
 * output shapes and exit codes 0 (success), 1 (the tool reported an error) and 2 (the user's
 * input was wrong: bad JSON, unknown tool, unreachable server, a command that does not exist),
 * always one line on stderr and never a stack trace.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEverything, stdioTarget, type HttpServer } from "../servers/launch.js";
import { startChatServer } from "../helpers/chat-server.js";

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(...args: string[]): Promise<Run> {
  return cliWith({}, ...args);
}

function cliWith(env: Record<string, string>, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["bin/train-mcp.mjs", ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function oneCleanLine(stderr: string): void {
  const lines = stderr.trim().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^train-mcp: /);
  expect(stderr).not.toMatch(/\n\s+at /);
}

let http: HttpServer;
const everything = stdioTarget("everything");

/** `tools`' stderr after its first line, which names the server (`server "NAME" VERSION: N tools`) */
function notes(stderr: string): string {
  expect(stderr).toMatch(/^server "[^"\n]+"[^\n]*: \d+ tools?\n/);
  return stderr.replace(/^[^\n]*\n/, "");
}
beforeAll(async () => {
  http = await startEverything("http");
});
afterAll(async () => {
  await http?.close();
});

describe.concurrent("train-mcp CLI", () => {
  it("tools prints a table of a fixture's tools", async () => {
    const r = await cli("tools", "--server", "fixture:calculator");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^TOOL\s+REQUIRED ARGS\s+DESCRIPTION/);
    expect(r.stdout).toMatch(/calculate\s+expression\s+Evaluate/);
  });

  it("tools says when a server gives instructions, and prints them with --server-instructions", async () => {
    const target = stdioTarget("everything", "--instructions", "Echo politely.");
    const r = await cli("tools", "--server", target);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("note: the server gives instructions for its tools (14 characters): --server-instructions prints them here, and shows them to a model in training");
    const shown = await cli("tools", "--server", target, "--server-instructions");
    expect(shown.stderr).toContain("the server's instructions (after the system prompt, --server-instructions):\nEcho politely.\n");
    const none = await cli("tools", "--server", "fixture:calculator");
    expect(none.stderr).not.toContain("instructions");
  });

  it("a server that exits just after initialize is a one-line exit 2 with its exit and last words, never a silent exit (Node's 13: a send waited for a drain that never came)", async () => {
    for (const delay of ["0", "50"]) {
      const r = await cliWith({}, "tools", "--server", stdioTarget("die-after-init", "--say-on-stdout", "Error: Access denied for user app"), "-e", `DELAY=${delay}`);
      expect(r.code, `DELAY=${delay}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/^train-mcp: cannot (start MCP server|list tools of) .*server exited with code 1; stdout: Error: Access denied for user app; log: /);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
    }
    // one that says nothing at all: where to look instead
    const mute = await cliWith({}, "tools", "--server", stdioTarget("die-after-init"));
    expect(mute.code, mute.stderr).toBe(2);
    expect(mute.stderr).toMatch(/server exited with code 1; it said nothing on stderr or stdout: run its command by hand to see why; a setting it reads from its environment goes with -e NAME=VALUE; log: /);
  });

  it("call notes a result that breaks the tool's own outputSchema, and still prints it", async () => {
    const broken = stdioTarget("everything", "--broken-output");
    const weather = await cli("call", "--server", broken, "weather", '{"city": "Oslo"}');
    expect(weather.code).toBe(0);
    expect(weather.stdout).toContain('"temp":"21.5"');
    expect(weather.stderr).toBe("note: weather: its structuredContent does not match its outputSchema: /temp: must be number\n");
    const stats = await cli("call", "--server", broken, "stats");
    expect(stats.stderr).toBe("note: stats: it declares an outputSchema but sent no structuredContent\n");
    const fine = await cli("call", "--server", stdioTarget("everything"), "weather", '{"city": "Oslo"}');
    expect(fine.stderr).toBe("");
  });

  it("tools --tokens counts each tool's share of a model's prompt and says whether they fit its context", async () => {
    const r = await cli("tools", "--server", "fixture:calculator", "--tokens");
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trim().split("\n");
    expect(rows[0]).toMatch(/^TOOL\s+REQUIRED ARGS\s+TOKENS\s+DESCRIPTION$/);
    const counts = rows.slice(1).map((row) => Number(/^\S+\s+.*?\s(\d+)\s{2}\S/.exec(row)![1]));
    expect(counts).toHaveLength(4);
    for (const c of counts) expect(c).toBeGreaterThan(20);
    const [, total, context, forTools] = /the system turn with these 4 tools takes (\d+) tokens of the built-in model's (\d+)-token context \((\d+) for the tools\); the task and the model's turns need the rest/.exec(r.stderr)!;
    expect(Number(context)).toBe(2048);
    // what leaving each out saves, together: the tools' share less the tool block's own frame
    const sum = counts.reduce((a, b) => a + b, 0);
    expect(sum).toBeLessThanOrEqual(Number(forTools));
    expect(Number(forTools) - sum).toBeLessThan(40);
    expect(Number(total)).toBeGreaterThan(Number(forTools));
    const json = await cli("tools", "--server", "fixture:calculator", "--tokens", "--json");
    expect((JSON.parse(json.stdout) as Array<{ tokens: number }>).map((t) => t.tokens)).toEqual(counts);
    // a --model that is not a model folder stops before any server starts
    const bad = await cli("tools", "--server", "fixture:calculator", "--tokens", "--model", "/nonexistent/model");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^train-mcp: --model \/nonexistent\/model: no such folder/);
  });

  it("tools --json prints name, description and inputSchema of every tool", async () => {
    const r = await cli("tools", "--server", everything, "--json");
    expect(r.code).toBe(0);
    const tools = JSON.parse(r.stdout) as Array<{ name: string; description: string; inputSchema: { type: string } }>;
    expect(tools).toHaveLength(19);
    expect(Object.keys(tools[0]).sort()).toEqual(["description", "inputSchema", "name"]);
    expect(tools[1]).toMatchObject({ name: "order", inputSchema: { type: "object" } });
  });

  it("tools notes a tool name a model may not be able to call", async () => {
    const r = await cli("tools", "--server", stdioTarget("everything", "--odd-name"));
    expect(r.code).toBe(0);
    // first the name the server gives itself (what --tools SERVER:PATTERN names it by), then the notes
    expect(r.stderr).toBe('server "everything" 1.0.0: 2 tools\nnote: "say \\"hi\\" <tool_call>": a tool name outside A-Z a-z 0-9 _ . - (or over 64 characters) may not be callable by a model\n');
    expect(notes((await cli("tools", "--server", "fixture:calculator")).stderr)).toBe("");
  });

  it("calls a tool that samples the client's model named by --sampling-model / --sampling-base-url, which go together", async () => {
    const llm = await startChatServer(() => ({ content: "the gist" }));
    try {
      const r = await cli("call", "--server", stdioTarget("everything", "--sampling"), "--sampling-model", "m", "--sampling-base-url", llm.url, "summarize", '{"text": "long"}');
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.trim()).toBe("m (endTurn): the gist");
    } finally {
      await llm.close();
    }
    for (const [args, message] of [
      [["--sampling-model", "m"], "--sampling-model and --sampling-base-url go together"],
      [["--sampling-model", "m", "--sampling-base-url", "ftp://x"], '--sampling-base-url expects an http(s) URL, got "ftp://x"'],
    ] as const) {
      const r = await cli("tools", "--server", "fixture:calculator", ...args);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
    }
  });

  it("answers a tool's elicitation form as --elicitation says; `model` needs --sampling-model", async () => {
    const r = await cli("call", "--server", stdioTarget("everything", "--elicitation"), "--elicitation", "defaults", "delete_note", '{"note": "n1"}');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("deleted n1");
    const listed = await cli("tools", "--server", stdioTarget("everything", "--elicitation"), "--elicitation", "decline");
    expect(listed.stdout).toMatch(/^book_table\b/m);
    const bad = await cli("tools", "--server", "fixture:calculator", "--elicitation", "sure");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("'sure' is invalid");
    const model = await cli("tools", "--server", "fixture:calculator", "--elicitation", "model");
    expect(model.code).toBe(2);
    expect(model.stderr).toContain("--elicitation model fills forms in with the client's model: name it with --sampling-model and --sampling-base-url");
  });

  it("leaves out a tool that runs only as an MCP task (a plain call is refused), saying so", async () => {
    const r = await cli("tools", "--server", stdioTarget("everything", "--task-only"));
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/^research\b/m);
    expect(r.stdout).toMatch(/^echo\b/m);
    expect(notes(r.stderr)).toBe('note: left out research: it runs only as MCP tasks (execution.taskSupport "required"), which train-mcp does not speak\n');
  });

  it("leaves out a tool whose input schema breaks JSON Schema's shape (a chat template cannot render it), naming it and the field", async () => {
    const r = await cli("tools", "--server", stdioTarget("sloppy", "--malformed"));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^loose\b/m);
    for (const name of ["badenum", "listprops", "stringargs", "noschema"]) expect(r.stdout).not.toMatch(new RegExp(`^${name}\\b`, "m"));
    expect(notes(r.stderr)).toBe(
      'note: left out "noschema": the server sent it in a shape MCP does not allow (no inputSchema)\n' +
        'note: left out "badenum": its inputSchema.properties.mode.enum is not a list, so no model could be shown it or call it\n' +
        'note: left out "listprops": its inputSchema.properties is not an object, so no model could be shown it or call it\n' +
        'note: left out "stringargs": its inputSchema.type is "string", not "object" (MCP tools take an object of arguments), so no model could be shown it or call it\n',
    );
  });

  it("tools notes a name the server lists twice with different definitions, not a page served again", async () => {
    const r = await cli("tools", "--server", stdioTarget("sloppy", "--conflict"));
    expect(r.code).toBe(0);
    expect(r.stdout.match(/^loose\b/gm)).toHaveLength(1);
    expect(notes(r.stderr)).toBe('note: the server lists tool "loose" more than once with different definitions: the first is the one a model sees\n');
    // the plain sloppy server serves the same page twice: nothing to note
    expect(notes((await cli("tools", "--server", stdioTarget("sloppy"))).stderr)).toBe("");
    // a server without the tools capability has no tools, said plainly (not "Method not found")
    const none = await cli("tools", "--server", stdioTarget("sloppy", "--resources-only"));
    expect(none.code).toBe(0);
    expect(none.stdout).toBe("(the server offers no tools)\n");
    expect(notes(none.stderr)).toBe("note: the server declares no tools capability (it may offer only resources or prompts)\n");
  });

  it("call --json prints {isError, text, structuredContent}", async () => {
    const r = await cli("call", "--server", "fixture:calculator", "calculate", '{"expression":"2+2"}', "--json");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ isError: false, text: "4", structuredContent: { result: 4 } });
  });

  it("call passes --env to a stdio server and --header to an HTTP one", async () => {
    const env = await cli("call", "-s", everything, "--env", "FOO=bar=baz", "env", '{"name":"FOO"}');
    expect(env).toMatchObject({ code: 0, stdout: "bar=baz\n" });
    const auth = await cli("call", "-s", http.url, "-H", "Authorization: Bearer abc", "auth");
    expect(auth).toMatchObject({ code: 0, stdout: "Bearer abc\n" });
    // user:pass@ in the URL: HTTP Basic auth (fetch refuses such a URL as it is)
    const basic = await cli("call", "-s", http.url.replace("http://", "http://alice:s%40cret@"), "auth");
    expect(basic).toMatchObject({ code: 0, stdout: `Basic ${Buffer.from("alice:s@cret").toString("base64")}\n` });
  });

  it("call exits 1 when the tool reports an error", async () => {
    const r = await cli("call", "--server", everything, "fail", "{}");
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("the warehouse is closed");
  });

  it("exits 2 with one line for bad JSON, unknown tools and invalid arguments", async () => {
    const bad = await cli("call", "-s", everything, "echo", "{text:");
    expect(bad.code).toBe(2);
    oneCleanLine(bad.stderr);
    expect(bad.stderr).toContain("not valid JSON");
    const unknown = await cli("call", "-s", everything, "ehco", "{}");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown tool "ehco" (did you mean "echo"?)');
    // commander's own usage errors too
    const typo = await cli("train", "--server", "fixture:calculator", "--stepz", "3");
    expect(typo.code).toBe(2);
    oneCleanLine(typo.stderr);
    expect(typo.stderr).toBe("train-mcp: unknown option '--stepz' (Did you mean --steps?)\n");
    // a misspelt required option is named as misspelt, not as missing; a missing one as missing
    const misspelt = await cli("eval", "--modle", "default", "--server", "fixture:calculator");
    expect([misspelt.code, misspelt.stderr]).toEqual([2, "train-mcp: unknown option '--modle' (Did you mean --model?)\n"]);
    const missing = await cli("tools");
    expect([missing.code, missing.stderr]).toEqual([2, "train-mcp: required option '-s, --server <target>' not specified\n"]);
    // a command of one server given two: refused, not the first dropped without a word
    for (const args of [["tools"], ["call", "calculate", "{}"], ["scenarios", "generate", "--n", "1", "--out", path.join(os.tmpdir(), "never-written.jsonl")]]) {
      const twice = await cli(...args, "--server", "fixture:calculator", "--server", "fixture:shop");
      expect([twice.code, twice.stderr]).toEqual([2, `train-mcp: ${args[0] === "scenarios" ? "scenarios generate" : args[0]} talks to one server: --server was given twice (fixture:calculator, then fixture:shop); run it once per server (train and eval take several)\n`]);
    }
    const invalid = await cli("call", "-s", everything, "slow", '{"steps":"many","ms":1}');
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain("/steps: must be integer");
  });

  it("with --template-dir, a script named by a path relative to here is said to be read in the copy, with the absolute path to give instead", async () => {
    const template = fs.mkdtempSync(path.join(os.tmpdir(), "relative-script-"));
    const script = "node_modules/@modelcontextprotocol/server-memory/dist/index.js";
    try {
      const r = await cli("tools", "-s", `node ${script}`, "--template-dir", template);
      expect(r.code).toBe(2);
      oneCleanLine(r.stderr);
      expect(r.stderr).toMatch(new RegExp(`; ${script.replace(/[./@-]/g, "\\$&")} is read from the server's working directory \\(\\S+train-mcp-work-\\S+, a copy of --template-dir\\), where it is not: give it as ${path.resolve(script).replace(/[./@-]/g, "\\$&")}\n$`));
    } finally {
      fs.rmSync(template, { recursive: true, force: true });
    }
  });

  it("exits 2 with one line for an unreachable server or a missing command", async () => {
    const down = await cli("tools", "-s", "http://127.0.0.1:9/mcp");
    expect(down.code).toBe(2);
    oneCleanLine(down.stderr);
    expect(down.stderr).toContain("cannot reach MCP server at http://127.0.0.1:9/mcp");
    const missing = await cli("tools", "-s", "stdio:train-mcp-no-such-command --flag");
    expect(missing.code).toBe(2);
    oneCleanLine(missing.stderr);
    expect(missing.stderr).toContain("spawn train-mcp-no-such-command ENOENT");
    // a shell's `VAR=value command` form: no shell runs the command, so say how to give the variable
    const shellEnv = await cli("tools", "-s", "GREETING=hi node server.js");
    expect(shellEnv.code).toBe(2);
    oneCleanLine(shellEnv.stderr);
    expect(shellEnv.stderr).toContain("spawn GREETING=hi ENOENT");
    expect(shellEnv.stderr).toMatch(/; "GREETING=…" before the command is shell syntax: give the variable with -e GREETING=…\n$/);
    // npx with no terminal refuses to install what it lacks: say to pass -y (an npx that answers as npm 10/11 does)
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), "npx-standin-"));
    const npx = path.join(bin, "npx");
    fs.writeFileSync(npx, `#!/bin/sh\necho 'npm error npx canceled due to missing packages and no YES option: ["@scope/some-server@1.0.0"]' >&2\nexit 1\n`, { mode: 0o755 });
    const canceled = await cli("tools", "-s", `${npx} @scope/some-server .`);
    expect(canceled.code).toBe(2);
    oneCleanLine(canceled.stderr);
    expect(canceled.stderr).toMatch(/; npx needs -y to install the package without asking: write `npx -y @scope\/some-server \.`, or run the server's script with node by its absolute path\n$/);
    fs.rmSync(bin, { recursive: true, force: true });
    const noEquals = await cli("tools", "-s", "fixture:calculator", "-e", "NOEQUALS");
    expect(noEquals.code).toBe(2);
    expect(noEquals.stderr).toBe('train-mcp: --env expects K=V, got a value with no "="\n');
    // a web server that is not an MCP endpoint answers with a page: one line of its text
    const web = createServer((_req, res) => res.writeHead(502, { "content-type": "text/html" }).end("<!DOCTYPE html>\n<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n<h1>502 Bad Gateway</h1>\n<hr><center>nginx</center>\n</body>\n</html>\n"));
    await new Promise<void>((ok) => web.listen(0, "127.0.0.1", ok));
    try {
      const page = await cli("tools", "-s", `http://127.0.0.1:${(web.address() as AddressInfo).port}/mcp`);
      expect(page.code).toBe(2);
      oneCleanLine(page.stderr);
      expect(page.stderr).toContain("502 Bad Gateway 502 Bad Gateway nginx");
      expect(page.stderr).not.toContain("<");
    } finally {
      await new Promise((ok) => web.close(ok));
    }
    const crash = await cli("tools", "-s", `${process.execPath} -e "console.error('boom: bad config'); process.exit(3)"`);
    expect(crash.code).toBe(2);
    oneCleanLine(crash.stderr);
    expect(crash.stderr).toContain("server exited with code 3; stderr: boom: bad config");
    // a program that talks on stdout but not MCP: the timeout says it wrote other text, and where
    const chatty = await cli("tools", "--timeout", "1500", "-s", `${process.execPath} -e "setInterval(() => console.log('hello from a REPL'), 100)"`);
    expect(chatty.code).toBe(2);
    oneCleanLine(chatty.stderr);
    expect(chatty.stderr).toMatch(/no reply to initialize within 1500 ms \(is it an MCP server on stdio\?\); it wrote \d+ lines? of other text on stdout, see \S+\.log/);
    // a silent server under a timeout too short for most servers to start: the timeout is named
    const silent = await cli("tools", "--timeout", "300", "-s", `${process.execPath} -e "setInterval(() => {}, 1000)"`);
    expect(silent.code).toBe(2);
    oneCleanLine(silent.stderr);
    expect(silent.stderr).toContain("no reply to initialize within 300 ms (the timeout may be too short for a server to start: try --timeout 30s, the default)");
    // Node's own error for a missing script: its "Error: …" line, not the properties printed after it
    const noScript = await cli("tools", "-s", `${process.execPath} /no/such/server.mjs`);
    expect(noScript.code).toBe(2);
    oneCleanLine(noScript.stderr);
    expect(noScript.stderr).toContain("stderr: Error: Cannot find module '/no/such/server.mjs'");
    expect(noScript.stderr).not.toContain("requireStack");
  });

  it("takes --timeout with a unit, and refuses seconds typed as milliseconds before connecting", async () => {
    const seconds = await cli("tools", "--timeout", "30", "-s", "fixture:calculator");
    expect(seconds.code).toBe(2);
    oneCleanLine(seconds.stderr);
    expect(seconds.stderr).toContain("--timeout 30 is in milliseconds");
    expect(seconds.stderr).toContain("write 30000 or 30s");
    // train reads the flag the same way, before anything starts
    const train = await cli("train", "--server", "fixture:calculator", "--timeout", "1");
    expect(train.code).toBe(2);
    oneCleanLine(train.stderr);
    expect(train.stderr).toContain("--timeout 1 is in milliseconds, too short to start a server or call a tool; for 1 s write 1000 or 1s");
    const withUnit = await cli("tools", "--timeout", "20s", "-s", "fixture:calculator");
    expect(withUnit.code).toBe(0);
    expect(withUnit.stdout).toMatch(/calculate\s+expression/);
  });

  it("removes its stdio server log at a clean exit and keeps the one a failure names", async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "server-log-"));
    const folder = path.join(tmp, `train-mcp-${process.getuid!()}`);
    const logs = () => (fs.existsSync(folder) ? fs.readdirSync(folder) : []);
    const ok = await cliWith({ TMPDIR: tmp }, "call", "--server", "fixture:calculator", "calculate", '{"expression":"1+1"}');
    expect(ok.code).toBe(0);
    expect(logs()).toEqual([]);
    const crash = await cliWith({ TMPDIR: tmp }, "tools", "-s", `${process.execPath} -e "console.error('boom'); process.exit(3)"`);
    expect(crash.code).toBe(2);
    const named = /log: (\S+)/.exec(crash.stderr)?.[1];
    expect(logs()).toHaveLength(1);
    expect(named).toBe(path.join(folder, logs()[0]));
    expect(fs.readFileSync(named!, "utf8")).toContain("boom");
    // all of it, though the CLI exits at once: its exit too, in the --server-log file as in the default one
    expect(fs.readFileSync(named!, "utf8")).toContain("--- server exited with code 3\n");
    const given = path.join(tmp, "logs", "servers.log");
    const logged = await cliWith({ TMPDIR: tmp }, "tools", "-s", `${process.execPath} -e "console.error('boom'); process.exit(3)"`, "--server-log", given);
    expect(logged.code).toBe(2);
    expect(logged.stderr).toContain(`log: ${given}`);
    expect(fs.readFileSync(given, "utf8")).toMatch(/boom\n--- server exited with code 3\n$/);
    const folder2 = await cliWith({ TMPDIR: tmp }, "tools", "-s", "fixture:calculator", "--server-log", tmp);
    expect([folder2.code, folder2.stderr]).toEqual([2, `train-mcp: --server-log ${tmp} is a folder: name a file in it\n`]);
  });

  it("routes no arguments to the demo and a bare --server, --config or --resume to train", async () => {
    const { routeArgs } = await import("../../src/cli/main.js");
    expect(routeArgs([])).toEqual(["demo"]);
    expect(routeArgs(["--json"])).toEqual(["demo", "--json"]);
    expect(routeArgs(["--server", "fixture:shop", "--steps", "3"])).toEqual(["train", "--server", "fixture:shop", "--steps", "3"]);
    expect(routeArgs(["-s", "http://x/mcp"])).toEqual(["train", "-s", "http://x/mcp"]);
    // a config file or a resumed run brings its own settings: train's defaults, not the demo's
    expect(routeArgs(["--config", "run.json"])).toEqual(["train", "--config", "run.json"]);
    expect(routeArgs(["--config=run.json", "--steps", "2"])).toEqual(["train", "--config=run.json", "--steps", "2"]);
    expect(routeArgs(["--resume", "runs/a"])).toEqual(["train", "--resume", "runs/a"]);
    expect(routeArgs(["--steps", "2", "--json"])).toEqual(["demo", "--steps", "2", "--json"]);
    expect(routeArgs(["--help"])).toEqual(["--help"]);
    expect(routeArgs(["tools", "-s", "fixture:calculator"])).toEqual(["tools", "-s", "fixture:calculator"]);
    const help = await cli("train", "--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--group-size");
  });
});
