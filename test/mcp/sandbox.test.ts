/**
 * `--sandbox` (sandbox.ts) on a real shell server (test/servers/shell.ts, a `run {command}` tool):
 * the same commands with and without it, so each test shows what the sandbox stops — writes
 * outside the --template-dir copy, the network, signals to this process, the home's credential
 * stores, the host's sockets — and what it lets through (the copy, reads, a throwaway home). Needs Debian's bubblewrap (the pretest installs it as root).
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer as createNetServer } from "node:net";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type McpToolbox } from "../../src/mcp/connect.js";
import { findBwrap, homeMounts, hostSockets, MAX_HOME_ENTRIES, sandboxCommand, sandboxHint, tmpFoldersNamed } from "../../src/mcp/sandbox.js";
import { cli } from "../train/helpers.js";
import { copyFileSync } from "node:fs";
import { serverCommand, stdioTarget } from "../servers/launch.js";

const SHELL = stdioTarget("shell");
const execFileAsync = promisify(execFile);
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
// folders made outside `outside`, removed at the end
const cleanups: string[] = [];
afterAll(async () => {
  for (const dir of cleanups) rmSync(dir, { recursive: true, force: true });
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

  it("gives the server a throwaway home: what the home holds is readable but for its credential stores, and new files vanish", async () => {
    const home = join(outside, "home");
    const files: Record<string, string> = { ".ssh/id_ed25519": "PRIVATE KEY", ".netrc": "machine x password hunter2", ".config/gh/hosts.yml": "oauth_token: gho_x", ".bash_history": "psql postgres://u:pw@db", ".config/app/app.ini": "theme=dark", "notes.txt": "hello" };
    for (const [name, body] of Object.entries(files)) {
      mkdirSync(join(home, name, ".."), { recursive: true });
      writeFileSync(join(home, name), `${body}\n`);
    }
    symlinkSync("notes.txt", join(home, "link.txt"));
    const read = "cat .ssh/id_ed25519 .netrc .config/gh/hosts.yml .bash_history .config/app/app.ini notes.txt link.txt 2>&1";
    const write = "mkdir -p .cache/tool && echo made > .cache/tool/state && cat .cache/tool/state; echo more >> notes.txt";
    const inside = await withShell({ sandbox: {}, env: { HOME: home } }, async (tb) => ({ read: await run(tb, `cd "$HOME" && ${read}`), write: await run(tb, `cd "$HOME" && ${write}`), ls: await run(tb, `ls -A "$HOME"`) }));
    for (const secret of ["PRIVATE KEY", "hunter2", "gho_x", "postgres://"]) expect(inside.read).not.toContain(secret);
    expect(inside.read).toMatch(/\.ssh\/id_ed25519: No such file or directory/);
    expect(inside.read).toContain("theme=dark\nhello\nhello");
    expect(inside.write).toMatch(/stdout: made\nstderr: .*notes\.txt: Read-only file system/);
    expect(inside.ls).toMatch(/stdout: \.cache\n\.config\nlink\.txt\nnotes\.txt$/m);
    // nothing reached the real home, and without the sandbox every one of them is there to read
    expect(existsSync(join(home, ".cache"))).toBe(false);
    expect(readFileSync(join(home, "notes.txt"), "utf8")).toBe("hello\n");
    const free = await withShell({ env: { HOME: home } }, (tb) => run(tb, `cd "$HOME" && ${read}`));
    for (const secret of ["PRIVATE KEY", "hunter2", "gho_x", "postgres://"]) expect(free).toContain(secret);
    expect(homeMounts("/")).toEqual([]);
    expect(homeMounts(join(outside, "no-such-home"))).toEqual([]);
  });

  it("covers secrets where their symlinks lead, through a home that is a symlink, in a big home, and in the user's home when the server's HOME is another", async () => {
    // under /var/tmp: these run bwrap on `sh` and `node` alone, so a checkout under /tmp (hidden by the sandbox's own) would hide `outside` too
    const base = mkdtempSync("/var/tmp/train-mcp-sandbox-homes-");
    cleanups.push(base);
    const real = join(base, "real");
    mkdirSync(join(real, "dotfiles", "ssh"), { recursive: true });
    writeFileSync(join(real, "dotfiles", "ssh", "id_rsa"), "LINKED KEY\n");
    symlinkSync("dotfiles/ssh", join(real, ".ssh"));
    writeFileSync(join(real, ".netrc"), "password hunter2\n");
    writeFileSync(join(real, "notes.txt"), "hello\n");
    const linked = join(base, "linked");
    symlinkSync(real, linked); // HOME=/home/ada where /home is a link to /data
    const big = join(base, "big");
    mkdirSync(join(big, ".ssh"), { recursive: true });
    writeFileSync(join(big, ".ssh", "id_rsa"), "BIG KEY\n");
    for (let i = 0; i < MAX_HOME_ENTRIES; i++) writeFileSync(join(big, `f${i}.txt`), "x");
    const inSandbox = async (home: string, script: string, userHomes: string[] = []) => {
      const c = sandboxCommand(findBwrap(), "sh", ["-c", script], { cwd: "/", home, userHomes, hiddenSockets: [] });
      return execFileAsync(c.command, c.args, { encoding: "utf8", timeout: 20_000, env: { ...process.env, HOME: home } }).then((r) => r.stdout, (e: { stdout: string; stderr: string }) => `${e.stdout}${e.stderr}`);
    };
    const read = (home: string) => `cat ${home}/.ssh/id_rsa ${home}/dotfiles/ssh/id_rsa ${home}/.netrc ${home}/notes.txt 2>&1; true`;
    for (const home of [real, linked]) {
      const out = await inSandbox(home, read(home));
      expect(out).not.toMatch(/LINKED KEY|hunter2/);
      expect(out).toContain("hello");
    }
    // over MAX_HOME_ENTRIES entries: read-only as it is, its secrets covered all the same
    const bigOut = await inSandbox(big, `cat ${big}/.ssh/id_rsa 2>&1; cat ${big}/f0.txt; touch ${big}/new 2>&1; true`);
    expect(bigOut).not.toContain("BIG KEY");
    expect(bigOut).toMatch(/^x.*Read-only file system/ms);
    // --env 'HOME=${cwd}': the server's home is another, and the user's still has its secrets covered
    const elsewhere = join(base, "server-home");
    mkdirSync(elsewhere);
    const other = await inSandbox(elsewhere, read(real), [real]);
    expect(other).not.toMatch(/LINKED KEY|hunter2/);
    expect(other).toContain("hello");
    expect(await inSandbox(elsewhere, read(real), [])).toMatch(/LINKED KEY[^]*hunter2/);
  });

  it("drops every capability: run by root, the sandbox cannot unmount what covers a secret", async () => {
    const c = sandboxCommand(findBwrap(), "sh", ["-c", "grep CapEff /proc/self/status; umount -l /tmp 2>&1 || echo refused"], { cwd: "/", hiddenSockets: [] });
    const { stdout } = await execFileAsync(c.command, c.args, { encoding: "utf8", timeout: 20_000 });
    expect(stdout).toMatch(/CapEff:\s+0+\n/);
    expect(stdout).toContain("refused");
  });

  it("hides the host's service sockets, which a read-only mount would leave open to connect()", async () => {
    const socketDir = mkdtempSync("/var/tmp/train-mcp-sandbox-sockets-");
    cleanups.push(socketDir);
    const socket = join(socketDir, "docker.sock");
    const service = createNetServer((c) => c.end("root on the host\n")).listen(socket);
    await new Promise((r) => service.once("listening", r));
    try {
      const probe = `require("net").connect(${JSON.stringify(socket)}).on("data", (d) => process.stdout.write(d)).on("error", (e) => { console.log(e.code); })`;
      // not spawnSync: the socket's server answers on this process's event loop
      const inSandbox = async (hiddenSockets: string[]) => {
        const c = sandboxCommand(findBwrap(), process.execPath, ["-e", probe], { cwd: "/", hiddenSockets });
        return (await execFileAsync(c.command, c.args, { encoding: "utf8", timeout: 20_000 })).stdout;
      };
      expect(await inSandbox([])).toBe("root on the host\n");
      expect(await inSandbox([socket])).toMatch(/^(ECONNREFUSED|ENOTSOCK)\n$/);
      expect(await inSandbox([socketDir])).toBe("ENOENT\n");
      expect(hostSockets({ XDG_RUNTIME_DIR: socketDir, DOCKER_HOST: `unix://${socket}` })).toEqual(expect.arrayContaining([socketDir, socket]));
    } finally {
      await new Promise((r) => service.close(r));
    }
    expect(hostSockets({ XDG_RUNTIME_DIR: "/tmp" })).not.toContain("/tmp");
  });

  it("refuses an HTTP server and a machine without bwrap, saying what to do", async () => {
    await expect(connect("http://127.0.0.1:9/mcp", { sandbox: {} })).rejects.toThrow("--sandbox runs the stdio servers train-mcp starts; http://127.0.0.1:9/mcp is an HTTP server");
    expect(() => findBwrap("/nonexistent")).toThrow("no `bwrap` is on PATH: install it (Debian/Ubuntu: apt-get install bubblewrap");
    expect(sandboxHint("bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces")).toMatch(/unprivileged user namespaces are off/);
    expect(sandboxHint("npm error code EROFS\nnpm error path /root/.npm/_cacache")).toContain("install the package (npm i) and start the server by its path");
    expect(sandboxHint("Error: EROFS: read-only file system, open '/home/ada/.tool/config.json'", "/home/ada")).toContain("--env 'HOME=${cwd}'");
    expect(sandboxHint("Error: EROFS: read-only file system, open '/srv/data/x'", "/home/ada")).not.toContain("HOME=");
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
