/**
 * `--sandbox` (sandbox.ts) on a real shell server (test/servers/shell.ts, a `run {command}` tool):
 * the same commands with and without it, so each test shows what the sandbox stops — writes
 * outside the --template-dir copy, the network, signals to this process — and what it lets
 * through (the copy, reads). Needs Debian's bubblewrap (the pretest installs it as root).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type McpToolbox } from "../../src/mcp/connect.js";
import { findBwrap, sandboxHint, tmpFoldersNamed } from "../../src/mcp/sandbox.js";
import { cli } from "../train/helpers.js";
import { copyFileSync } from "node:fs";
import { serverCommand, stdioTarget } from "../servers/launch.js";

const SHELL = stdioTarget("shell");
// outside /tmp: the sandbox lays an empty /tmp of its own over the host's
const outside = resolve("node_modules/.cache/sandbox-test-" + process.pid);
// the sandbox's rules are about /tmp itself, whatever TMPDIR says (the tests' is a folder of their own)
const template = mkdtempSync("/tmp/sandbox-template-");
let http: Server;
let url = "";

beforeAll(async () => {
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(template, "data.txt"), "kept\n");
  http = createServer((_req, res) => res.end("reached the host")).listen(0, "127.0.0.1");
  await new Promise((r) => http.once("listening", r));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  rmSync(outside, { recursive: true, force: true });
  rmSync(template, { recursive: true, force: true });
  await new Promise((r) => http.close(r));
});

async function withShell<T>(options: Parameters<typeof connect>[1], body: (tb: McpToolbox) => Promise<T>): Promise<T> {
  const tb = await connect(SHELL, { templateDir: template, timeoutMs: 20_000, ...options });
  try {
    return await body(tb);
  } finally {
    await tb.close();
  }
}
const run = async (tb: McpToolbox, command: string) => (await tb.call("run", { command })).text;
const fetchCommand = () => `node -e "fetch('${url}').then(r => r.text()).then(console.log, e => { console.error(String(e.cause ?? e)); process.exit(3) })"`;

describe("--sandbox", () => {
  it("keeps every file but the working copy read-only: a write outside fails there and works without it", async () => {
    const target = join(outside, "written.txt");
    const sandboxed = await withShell({ sandbox: {} }, (tb) => run(tb, `echo escaped > ${target}`));
    expect(sandboxed).toMatch(/^exit [1-9]/);
    expect(sandboxed).toContain("Read-only file system");
    expect(existsSync(target)).toBe(false);
    const free = await withShell({}, (tb) => run(tb, `echo escaped > ${target}`));
    expect(free).toMatch(/^exit 0/);
    expect(readFileSync(target, "utf8")).toBe("escaped\n");
  });

  it("lets the server read and write its --template-dir copy, which is all a rollout changes; the original stays out of reach", async () => {
    const inCopy = await withShell({ sandbox: {} }, async (tb) => {
      const wrote = await run(tb, "echo made > made.txt && cat data.txt made.txt && pwd");
      const original = await run(tb, `ls ${template}`);
      return { wrote, original, cwd: tb.workingDirectory };
    });
    expect(inCopy.wrote).toMatch(/^exit 0\nstdout: kept\nmade\n\/tmp\/\S+/);
    expect(inCopy.original).toMatch(/No such file or directory/);
    expect(existsSync(join(template, "made.txt"))).toBe(false);
  });

  it("has no network unless --sandbox-network: the host's 127.0.0.1 is out of reach", async () => {
    const cut = await withShell({ sandbox: {} }, (tb) => run(tb, fetchCommand()));
    expect(cut).toMatch(/^exit 3\nstdout: \nstderr: Error: connect ECONNREFUSED 127\.0\.0\.1/);
    const kept = await withShell({ sandbox: { network: true } }, (tb) => run(tb, fetchCommand()));
    expect(kept).toContain("stdout: reached the host");
  });

  it("sees no process outside it, and leaves none behind once closed", async () => {
    const signal = `kill -0 ${process.pid} && echo alive`;
    let pid: number | undefined;
    const sandboxed = await withShell({ sandbox: {} }, async (tb) => {
      pid = tb.pid;
      return run(tb, signal);
    });
    expect(sandboxed).toMatch(/^exit [1-9]/);
    expect(sandboxed).toMatch(/No such process/i);
    expect(await withShell({}, (tb) => run(tb, signal))).toContain("stdout: alive");
    expect(pid).toBeGreaterThan(0);
    expect(() => process.kill(pid!, 0)).toThrow(/ESRCH/);
  });

  it("starts a server that lives under /tmp (a clone there, as CI's may be), read-only, though the sandbox's /tmp is its own", async () => {
    const home = mkdtempSync("/tmp/sandbox-server-");
    try {
      const script = join(home, "shell.mjs");
      copyFileSync(serverCommand("shell").args.at(-1)!, script);
      const tb = await connect(`stdio:'${process.execPath}' '${script}'`, { templateDir: template, sandbox: {}, timeoutMs: 20_000 });
      try {
        expect(await run(tb, `ls ${home} && touch ${join(home, "x")}`)).toMatch(/^exit [1-9]\nstdout: shell\.mjs\nstderr: .*Read-only file system/);
        expect(await run(tb, "ls /tmp | wc -l")).toMatch(/stdout: 2\n/); // the server's own folder and its working copy
        // the sandbox's own /tmp is its temp folder, whatever TMPDIR says outside (the tests' is a folder of their own)
        expect(await run(tb, `echo "$TMPDIR" && touch "$TMPDIR/x"`)).toMatch(/^exit 0\nstdout: \/tmp\n/);
      } finally {
        await tb.close();
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
    expect(tmpFoldersNamed(["node", "/tmp", "/tmp/../etc/x", `--root=${template}/a`, "/tmp/no-such-folder-here/x.js"])).toEqual([template]);
  });

  it("refuses an HTTP server and a machine without bwrap, saying what to do", async () => {
    await expect(connect("http://127.0.0.1:9/mcp", { sandbox: {} })).rejects.toThrow("--sandbox runs the stdio servers train-mcp starts; http://127.0.0.1:9/mcp is an HTTP server");
    expect(() => findBwrap("/nonexistent")).toThrow("no `bwrap` is on PATH: install it (Debian/Ubuntu: apt-get install bubblewrap");
    expect(sandboxHint("bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces")).toMatch(/unprivileged user namespaces are off/);
    expect(sandboxHint("npm error code EROFS\nnpm error path /root/.npm/_cacache")).toContain("install the package (npm i) and start the server by its path");
  });

  it("train --sandbox runs its rollouts in it and saves the setting", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "sandbox-train-")), "run");
    try {
      const t = await cli(["train", "--server", "fixture:calculator", "--sandbox", "--steps", "1", "--groups-per-step", "1", "--group-size", "2", "--eval-n", "2", "--sft", "off", "--out", out, "--json"]);
      expect(t.code, t.stderr).toBe(0);
      expect(JSON.parse(t.stdout.trim().split("\n").at(-1)!)).toMatchObject({ steps: 1, heldout_n: 2 });
      expect(JSON.parse(readFileSync(join(out, "config.json"), "utf8"))).toMatchObject({ server_sandbox: true, server_sandbox_network: false });
    } finally {
      rmSync(resolve(out, ".."), { recursive: true, force: true });
    }
  }, 120_000);
});
