/**
 * Which servers get a fresh instance per rollout: the bundled fixtures by name, any other server
 * by its tools (one whose name says it changes state makes the server stateful), or as asked.
 */
import { describe, expect, it } from "vitest";
import { fixtureCommand } from "../../src/mcp/fixtures.js";
import { ServerSet, stderrNote } from "../../src/train/servers.js";
import { redactTargetCredentials } from "../../src/mcp/target.js";
import { stdioTarget } from "../servers/launch.js";
import { loadScenarios } from "../../src/train/scenario-source.js";
import { bundledPath } from "../../src/scenarios/bundled.js";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** a bundled fixture started as a plain command line: to the trainer, a third-party server */
const asCommand = (name: "shop" | "calculator") => {
  const { command, args } = fixtureCommand(name);
  return [command, ...args].map((a) => JSON.stringify(a)).join(" ");
};

describe("ServerSet isolation", () => {
  it("isolates a stateful third-party server on auto, and follows on / off", async () => {
    const shop = asCommand("shop");
    const calculator = asCommand("calculator");
    const set = await ServerSet.connect(["fixture:shop", "fixture:calculator", shop, calculator], "auto");
    try {
      expect(set.entries.map((e) => e.isolate)).toEqual([true, false, true, false]);
    } finally {
      await set.close();
    }
    for (const mode of ["on", "off"] as const) {
      const s = await ServerSet.connect([shop, "fixture:calculator"], mode);
      try {
        expect(s.entries.map((e) => e.isolate)).toEqual([mode === "on", mode === "on"]);
      } finally {
        await s.close();
      }
    }
  });

  it("matches a scenario's server however its target is spelt", async () => {
    const calculator = asCommand("calculator");
    const set = await ServerSet.connect([`stdio:${calculator}`, "fixture:shop"], "off");
    try {
      const scenario = (server: string) => ({ id: server, task: "t", difficulty: 1, split: "train" as const, tags: [], server });
      // the same command line without the stdio: prefix and with other spacing
      const other = scenario(` ${calculator.replace(" ", "   ")}`);
      expect(set.entryFor(other).target).toBe(`stdio:${calculator}`);
      expect(set.playable([other, scenario("fixture:shop"), scenario("fixture:knowledge")]).map((s) => s.server)).toEqual([other.server, "fixture:shop"]);
      expect(() => set.entryFor(scenario("node elsewhere.mjs"))).toThrow(/is not among the run's servers/);
    } finally {
      await set.close();
    }
  });

  it("says which scenarios of a several-server run name none of its servers, instead of dropping them silently", async () => {
    const set = await ServerSet.connect(["fixture:calculator", "fixture:knowledge"], "off");
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "dropped-")), "s.jsonl");
    const line = (id: string, split: string, server?: string) => JSON.stringify({ id, task: `task ${id}`, difficulty: 1, split, tags: [], ...(server ? { server } : {}) });
    fs.writeFileSync(file, [line("a", "train", "fixture:calculator"), line("b", "test", "fixture:calculator"), line("c", "train", "node elsewhere.mjs"), line("d", "train")].join("\n") + "\n");
    const logs: string[] = [];
    try {
      const r = await loadScenarios([file], set, { seed: 1, runDir: os.tmpdir(), log: (l) => logs.push(l) });
      expect(r.train.map((x) => x.id)).toEqual(["a"]);
      expect(logs).toEqual([
        `warning: 2 of 4 scenarios name no server of this run and are left out: node elsewhere.mjs, (no server field) (the run's servers: fixture:calculator, fixture:knowledge; with several servers each scenario's "server" must name one of them)`,
      ]);
      fs.writeFileSync(file, [line("c", "train", "node elsewhere.mjs"), line("b", "test", "fixture:calculator")].join("\n") + "\n");
      await expect(loadScenarios([file], set, { seed: 1, runDir: os.tmpdir(), log: () => undefined })).rejects.toThrow(`no training scenarios (split "train") for the run's servers in ${file}`);
    } finally {
      await set.close();
    }
  });
  it("warns that a server's state-changing tools are called for real, unless it runs on a --template-dir copy", async () => {
    const logs: string[] = [];
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "todo-template-"));
    const bare = await ServerSet.connect([stdioTarget("todo-file")], "auto", {}, (l) => logs.push(l));
    await bare.close();
    expect(logs.filter((l) => l.startsWith("warning:"))).toEqual([expect.stringMatching(/^warning: stdio:.*todo-file.* has tools that change state \(.*add_todo.*\), and the model calls them for real: each rollout gets a fresh server process, but data the server keeps outside it .* --template-dir DIR/)]);
    logs.length = 0;
    const copied = await ServerSet.connect([stdioTarget("todo-file")], "auto", { templateDir: dir }, (l) => logs.push(l));
    await copied.close();
    const fixture = await ServerSet.connect(["fixture:shop"], "auto", {}, (l) => logs.push(l));
    await fixture.close();
    expect(logs.filter((l) => l.startsWith("warning:"))).toEqual([]);
  });

  it("with one server, says how many scenarios were written for another server (they are played on this one)", async () => {
    const set = await ServerSet.connect(["fixture:calculator"], "off");
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "other-server-")), "s.jsonl");
    const line = (id: string, server?: string) => JSON.stringify({ id, task: `task ${id}`, difficulty: 1, split: "train", tags: [], ...(server ? { server } : {}) });
    fs.writeFileSync(file, [line("a", "fixture:calculator"), line("b", "node weather.mjs"), line("c")].join("\n") + "\n");
    const logs: string[] = [];
    try {
      const r = await loadScenarios([file], set, { seed: 1, runDir: os.tmpdir(), log: (l) => logs.push(l) });
      expect(r.train.map((x) => x.id)).toEqual(["a", "b", "c"]);
      expect(logs).toEqual(["warning: 1 of 3 scenarios name another server (node weather.mjs) and are played on fixture:calculator"]);
    } finally {
      await set.close();
    }
  });

  it("refuses a scenario whose state check or reference names a tool its server lacks, or arguments the tool refuses, by file, line and field", async () => {
    const set = await ServerSet.connect(["fixture:calculator", "fixture:knowledge"], "off");
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "against-tools-")), "s.jsonl");
    const line = (o: Record<string, unknown>) => JSON.stringify({ task: "a task", difficulty: 1, split: "train", tags: [], ...o });
    const state = (tool: string, args: Record<string, unknown>) => [{ kind: "state", tool, arguments: args, expect: { kind: "contains", value: "x" } }];
    fs.writeFileSync(
      file,
      [
        line({ id: "ok", server: "fixture:knowledge", expected: state("search", { query: "pi" }), reference: { calls: [{ name: "get_fact", arguments: { id: "pi" } }], answer: "3.14" } }),
        line({ id: "other-server", server: "fixture:calculator", expected: state("search", { query: "pi" }) }),
        line({ id: "bad-args", server: "fixture:knowledge", reference: { calls: [{ name: "search", arguments: { q: "pi" } }], answer: "x" } }),
      ].join("\n") + "\n",
    );
    try {
      const e = await loadScenarios([file], set, { seed: 1, runDir: os.tmpdir(), log: () => undefined }).then(() => undefined, (x: Error) => x);
      expect(e?.message).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: 2 problems in 2 lines:`));
      expect(e?.message).toContain(`${file}:2: field "expected[0].tool": the server has no tool "search" (its tools: calculate, percentage, compound_interest, statistics)`);
      expect(e?.message).toContain(`${file}:3: field "reference.calls[0].arguments": search refuses these arguments:`);
      expect(e?.message).not.toContain(":1:");
    } finally {
      await set.close();
    }
  });

  it("generates --scenarios auto with the server's state-changing tools only under --allow-writes", async () => {
    const set = await ServerSet.connect([stdioTarget("kv")], "auto");
    const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "auto-writes-"));
    try {
      // read-only: kv_get of a key nobody set is an error, so nothing can be built, and the note says why
      const logs: string[] = [];
      const e = await loadScenarios(["auto"], set, { seed: 1, runDir, log: (l) => logs.push(l), generateN: 6 }).then(() => undefined, (x: Error) => x);
      expect(e?.message).toMatch(/^could not build any verified scenario/);
      expect(logs.join("\n")).toMatch(/note: not calling kv_set: it changes the server's state .*--allow-writes calls it, best against a copy of the server's data \(--template-dir\)/);
      // given a --template-dir, the note does not ask for one
      const copied: string[] = [];
      await loadScenarios(["auto"], set, { seed: 1, runDir, log: (l) => copied.push(l), generateN: 6, templateDir: runDir }).catch(() => undefined);
      expect(copied.join("\n")).toContain("--allow-writes calls it, each server instance on its own copy of the data (--template-dir, as given)");
      // --allow-writes: the empty store gets keys first (each task's setup), and kv_set tasks are read back
      const r = await loadScenarios(["auto"], set, { seed: 1, runDir, log: () => undefined, generateN: 6, allowWrites: true });
      const all = [...r.train, ...r.test];
      expect(all.length).toBeGreaterThan(0);
      for (const s of all) expect(s.setup?.every((c) => c.name === "kv_set")).toBe(true);
    } finally {
      await set.close();
      fs.rmSync(runDir, { recursive: true, force: true });
    }
  }, 60_000);

  it("refuses a scenario with setup calls where rollouts share one server instance (--isolate off), and takes it where each has its own", async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "setup-isolate-")), "s.jsonl");
    const setup = [{ name: "place_order", arguments: { customer_id: 5, items: [{ product_id: 701, quantity: 1 }] } }];
    fs.writeFileSync(file, JSON.stringify({ id: "seeded", task: "How many orders are there?", difficulty: 1, split: "train", tags: [], setup }) + "\n");
    for (const [mode, refused] of [["off", true], ["on", false]] as const) {
      const set = await ServerSet.connect(["fixture:shop"], mode);
      try {
        const e = await loadScenarios([file], set, { seed: 1, runDir: os.tmpdir(), log: () => undefined }).then(() => undefined, (x: Error) => x);
        if (refused) expect(e?.message).toContain(`${file}:1: field "setup": setup calls need a fresh server instance per rollout, and this run shares one (--isolate off)`);
        else expect(e).toBeUndefined();
      } finally {
        await set.close();
      }
    }
  });

  it("refuses a file written for another server in a few lines: what they have in common, the first ten, a count of the rest", async () => {
    const set = await ServerSet.connect(["fixture:shop"], "off");
    try {
      const e = await loadScenarios([bundledPath("calculator")], set, { seed: 1, runDir: os.tmpdir(), log: () => undefined }).then(() => undefined, (x: Error) => x);
      const lines = e!.message.split("\n");
      expect(lines[0]).toMatch(/calculator\.jsonl: \d+ problems in 400 lines \(none of its scenarios' tools is on fixture:shop: these scenarios are for another server\):$/);
      expect(lines).toHaveLength(12);
      expect(lines[1]).toMatch(/calculator\.jsonl:1: field "reference\.calls\[0\]\.name": the server has no tool "/);
      expect(lines[11]).toMatch(/^… and \d+ more \(`train-mcp scenarios check .*calculator\.jsonl \[--server …\]` lists every one\)$/);
    } finally {
      await set.close();
    }
  });

  it("tells apart two servers that differ only by a secret, and refuses a redacted name that fits both", async () => {
    const a = stdioTarget("everything", "--token", "alpha-123");
    const b = stdioTarget("everything", "--token", "bravo-456");
    const set = await ServerSet.connect([a, b], "off");
    try {
      const scenario = (server: string) => ({ id: "s", task: "t", difficulty: 1, split: "train" as const, tags: [], server });
      expect(set.entryFor(scenario(b)).target).toBe(b);
      expect(set.entryFor(scenario(a)).target).toBe(a);
      expect(() => set.entryFor(scenario(redactTargetCredentials(b)))).toThrow(/is not among the run's servers/);
    } finally {
      await set.close();
    }
  });
});

describe("scenarios auto on a server with no bundled set", () => {
  it("trains on what the generator could build when the server's tools offer fewer tasks than asked, and says so", async () => {
    const shop = asCommand("shop");
    const set = await ServerSet.connect([shop], "auto");
    const log: string[] = [];
    const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "auto-fewer-"));
    try {
      const split = await loadScenarios(["auto"], set, { seed: 3, runDir, log: (l) => log.push(l), generateN: 400 });
      const built = split.train.length + split.test.length;
      expect(built).toBeGreaterThan(20);
      expect(built).toBeLessThan(400);
      expect(split.test.length).toBeGreaterThan(0);
      expect(log).toContain(`generating 400 execution-verified scenarios for ${shop} ...`);
      expect(log.some((l) => l.startsWith(`note: built ${built} distinct verified scenarios of the 400 asked for`))).toBe(true);
      // the set is saved in the run directory, as --resume and eval read it back
      expect(fs.readFileSync(path.join(runDir, "scenarios-0.jsonl"), "utf8").trim().split("\n")).toHaveLength(built);
    } finally {
      await set.close();
    }
  }, 120_000);
});

describe("stderrNote", () => {
  it("names the stderr file of stdio servers only: an HTTP server has none here", () => {
    expect(stderrNote(["http://127.0.0.1:8000/mcp"], "/r/server.log")).toBe("");
    expect(stderrNote(["fixture:calculator"], "/r/server.log")).toBe(" (its stderr: /r/server.log)");
    expect(stderrNote(["node calc.mjs"], "/r/server.log")).toBe(" (its stderr: /r/server.log)");
    expect(stderrNote(["http://127.0.0.1:8000/mcp", "fixture:shop"], "/r/server.log")).toBe(" (the stdio servers' stderr: /r/server.log)");
    expect(stderrNote(["fixture:calculator"], undefined)).toBe("");
  });
});
