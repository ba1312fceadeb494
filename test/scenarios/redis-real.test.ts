/**
 * @modelcontextprotocol/server-redis (a devDependency) on a throwaway Redis. Its `list` answers in
 * plain text ("Found keys:\nuser:1:name\n…"), so the generator has to read the keys out of the
 * lines to ask `get` about one: before it did, no task could be built. Answers are checked
 * against redis-cli; the write tools (set, delete) are left alone without --allow-writes.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readScenarioFile } from "../../src/scenarios/io.js";
import { startRedis, type RedisServer } from "../helpers/redis.js";
import { cli } from "../train/helpers.js";

describe("server-redis (the npm package) on a throwaway Redis, through the CLI", () => {
  const dir = mkdtempSync(join(tmpdir(), "redis-real-"));
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
    for (const [k, v] of [["user:1:name", "Alice"], ["user:2:name", "Bob"], ["config:theme", "dark"], ["counter:visits", "1234"], ["greeting", "Hello, world"]]) redis.cli("set", k, v);
    redis.cli("hset", "product:1", "name", "Widget", "price", "9.99");
    redis.cli("rpush", "queue:jobs", "job-a", "job-b");
  });
  afterAll(async () => {
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("asks for the values of keys its listing names, as redis-cli reads them, and leaves the data as it was", async () => {
    const server = `node ${resolve("node_modules/@modelcontextprotocol/server-redis/dist/index.js")} redis://127.0.0.1:${redis.port}`;
    const out = join(dir, "redis.jsonl");
    const keysBefore = redis.cli("keys", "*").split("\n").sort();
    const g = await cli(["scenarios", "generate", "--server", server, "--n", "8", "--seed", "2", "--accept-fewer", "--out", out]);
    expect(g.code, g.stderr).toBe(0);
    expect(g.stderr).toContain("not calling set, delete");
    const scenarios = readScenarioFile(out);
    expect(scenarios.length).toBeGreaterThanOrEqual(4);
    for (const s of scenarios) {
      const [call] = s.reference!.calls;
      expect(call.name).toBe("get");
      const value = redis.cli("get", String(call.arguments.key));
      const check = s.expected![0];
      expect(check.kind === "numeric" ? String(check.value) : check.kind === "contains" ? check.value : undefined, s.task).toBe(value);
    }
    expect(redis.cli("keys", "*").split("\n").sort()).toEqual(keysBefore);
    const check = await cli(["scenarios", "check", "--fresh", "--server", server, out]);
    expect(check.code, check.stderr + check.stdout).toBe(0);
  });

  it("with --allow-writes: every server process shares the one Redis, so after a few changes it builds no more, says so, and keeps only tasks that still replay", async () => {
    const server = `node ${resolve("node_modules/@modelcontextprotocol/server-redis/dist/index.js")} redis://127.0.0.1:${redis.port}`;
    const out = join(dir, "redis-writes.jsonl");
    const g = await cli(["scenarios", "generate", "--server", server, "--n", "12", "--seed", "2", "--accept-fewer", "--allow-writes", "--out", out]);
    expect(g.stderr).toMatch(/note: no change task built: the checks of \d+ changes already passed on a server instance nothing was changed on, so the instances share their data/);
    if (g.code !== 0) return expect(g.stderr).toMatch(/could not build any verified scenario/); // the changes left nothing to ask
    const scenarios = readScenarioFile(out);
    expect(scenarios.filter((s) => s.reference!.calls.some((c) => c.name === "set" || c.name === "delete"))).toEqual([]);
    const check = await cli(["scenarios", "check", "--fresh", "--server", server, out]);
    expect(check.code, check.stderr + check.stdout).toBe(0);
  });
});
