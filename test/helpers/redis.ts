/**
 * A throwaway Redis server for tests: Debian's `redis-server` (installed by
 * scripts/ensure-test-packages.sh), listening on 127.0.0.1 at a free port only, its folder in the
 * temp dir, nothing saved to disk.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.js";

export interface RedisServer {
  port: number;
  /** runs one redis-cli command; its reply, trimmed */
  cli(...args: string[]): string;
  stop(): Promise<void>;
}

function findBinary(name: string): string {
  for (const dir of ["/usr/bin", "/usr/sbin", "/usr/local/bin"]) if (existsSync(join(dir, name))) return join(dir, name);
  throw new Error(`Redis is missing (${name}): apt-get install -y redis-server (scripts/ensure-test-packages.sh does it as root)`);
}

export async function startRedis(): Promise<RedisServer> {
  const server = findBinary("redis-server");
  const client = findBinary("redis-cli");
  const dir = mkdtempSync(join(tmpdir(), "redis-test-"));
  const port = await freePort();
  const child: ChildProcess = spawn(server, ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const cli = (...args: string[]) => {
    const r = spawnSync(client, ["-h", "127.0.0.1", "-p", String(port), ...args], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`redis-cli: ${r.stderr || r.error?.message}`);
    return r.stdout.trim();
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 15_000;
  while (spawnSync(client, ["-h", "127.0.0.1", "-p", String(port), "ping"], { encoding: "utf8" }).stdout?.trim() !== "PONG") {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error("redis-server did not start");
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { port, cli, stop };
}
