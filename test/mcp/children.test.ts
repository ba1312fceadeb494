/**
 * Tracked server processes and signals: a process that handles SIGINT itself (train finishing
 * its step) keeps its servers until it exits; one that does not ends by the signal, servers
 * killed first; one killed outright (SIGKILL, no exit hook) has its guard end them. None
 * outlives it.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const HOST = path.resolve("test/mcp/signal-host.mjs");

/** running: it exists and is not a zombie (a killed child whose parent is gone may stay one) */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function start(mode: "handled" | "unhandled") {
  const host = spawn(process.execPath, [HOST, mode], { stdio: ["ignore", "pipe", "inherit"] });
  const [pid, guard] = await new Promise<number[]>((resolve) => host.stdout.once("data", (d: Buffer) => resolve(d.toString().trim().split(" ").map(Number))));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => host.once("exit", (code, signal) => resolve({ code, signal })));
  return { host, pid, guard, exited };
}

describe("tracked children and signals", () => {
  it("keeps the servers of a process that handles SIGINT until it exits", async () => {
    const { host, pid, exited } = await start("handled");
    expect(alive(pid)).toBe(true);
    host.kill("SIGINT");
    await sleep(250); // the host's handler exits after 500 ms
    expect(alive(pid)).toBe(true);
    expect(await exited).toEqual({ code: 130, signal: null });
    await sleep(100);
    expect(alive(pid)).toBe(false);
  });

  it("removes the working copies of a --template-dir too when it ends by a signal", async () => {
    const host = spawn(process.execPath, [HOST, "unhandled", "tempdir"], { stdio: ["ignore", "pipe", "inherit"] });
    const [, , dir] = await new Promise<string[]>((resolve) => host.stdout.once("data", (d: Buffer) => resolve(d.toString().trim().split(" "))));
    expect(fs.existsSync(path.join(dir, "private.txt"))).toBe(true);
    const exited = new Promise((resolve) => host.once("exit", resolve));
    host.kill("SIGINT");
    await exited;
    expect(fs.existsSync(dir)).toBe(false);
  });

  it("kills the servers and ends by the signal when nothing else handles it", async () => {
    const { host, pid, exited } = await start("unhandled");
    host.kill("SIGINT");
    expect(await exited).toEqual({ code: null, signal: "SIGINT" });
    await sleep(100);
    expect(alive(pid)).toBe(false);
  });

  it("ends the servers of a process killed with SIGKILL (the guard), and the guard with them", async () => {
    const { host, pid, guard, exited } = await start("handled");
    expect(Number.isInteger(guard) && guard > 0).toBe(true);
    expect(alive(guard)).toBe(true);
    await sleep(100); // the guard has read the child's pid
    host.kill("SIGKILL");
    expect(await exited).toEqual({ code: null, signal: "SIGKILL" });
    // `sleep 60` ignores its closed stdin: only the guard's signal ends it
    for (let i = 0; i < 40 && alive(pid); i++) await sleep(50);
    expect(alive(pid)).toBe(false);
    for (let i = 0; i < 40 && alive(guard); i++) await sleep(50);
    expect(alive(guard)).toBe(false);
  });

  it("spares a server untracked before the process is killed", async () => {
    const { host, pid, guard, exited } = await start("handled");
    const said = new Promise<string>((resolve) => host.stdout.once("data", (d: Buffer) => resolve(d.toString().trim())));
    host.kill("SIGUSR2");
    expect(await said).toBe("untracked");
    await sleep(100); // the guard has read the "del" line
    host.kill("SIGKILL");
    await exited;
    for (let i = 0; i < 40 && alive(guard); i++) await sleep(50);
    expect(alive(guard)).toBe(false);
    expect(alive(pid)).toBe(true); // the guard killed only what was still listed
    process.kill(-pid, "SIGKILL");
  });
});
