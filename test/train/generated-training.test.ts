/**
 * `generate_train_scenarios`: fresh execution-verified training tasks on the real calculator
 * fixture beside its bundled set, saved in the run directory, none asking what a held-out
 * scenario asks, and the same set again for the same seed (so --resume trains on it).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HeldOutGuard } from "../../src/scenarios/held-out-guard.js";
import { readScenarioFile } from "../../src/scenarios/io.js";
import { loadScenarios } from "../../src/train/scenario-source.js";
import { ServerSet } from "../../src/train/servers.js";
import { stdioTarget } from "../servers/launch.js";

describe("generated training scenarios", () => {
  let servers: ServerSet;
  const dirs: string[] = [];
  const runDir = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), "train-mcp-gen-"));
    dirs.push(d);
    return d;
  };
  beforeAll(async () => {
    servers = await ServerSet.connect(["fixture:calculator"], "auto");
  });
  afterAll(async () => {
    await servers.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it("adds fresh training tasks, none held out, saved and reproducible", async () => {
    const log: string[] = [];
    const opts = { seed: 1, log: (l: string) => log.push(l), generateTrain: 400 };
    const plain = await loadScenarios(["auto"], servers, { seed: 1, runDir: runDir(), log: () => undefined });
    const dir = runDir();
    const more = await loadScenarios(["auto"], servers, { ...opts, runDir: dir });

    // the bundled held-out set is untouched; the training set grows by what was kept
    expect(more.test.map((s) => s.id)).toEqual(plain.test.map((s) => s.id));
    const file = path.join(dir, "scenarios-train-0.jsonl");
    const saved = readScenarioFile(file);
    expect(more.sources).toContain(file);
    expect(more.train.length).toBe(plain.train.length + saved.length);
    // the generator's first tasks include some of the bundled held-out ones: dropped, and said so
    expect(saved.length).toBeGreaterThan(300);
    expect(saved.length).toBeLessThan(400);
    expect(log.join("\n")).toMatch(new RegExp(`kept ${saved.length} \\(${400 - saved.length} asked what a held-out scenario asks\\)`));
    const guard = new HeldOutGuard(more.test);
    expect(saved.filter((s) => guard.leaks(s))).toEqual([]);
    expect(saved.every((s) => s.split === "train" && s.server === "fixture:calculator")).toBe(true);
    const heldOutTexts = new Set(more.test.map((s) => s.task));
    expect(saved.some((s) => heldOutTexts.has(s.task))).toBe(false);

    // the same seed generates the same set again (a resumed run trains on what it trained on)
    const again = await loadScenarios(["auto"], servers, { ...opts, runDir: runDir() });
    expect(again.train.map((s) => s.task)).toEqual(more.train.map((s) => s.task));
  });

  it("keeps what a server with few distinct tasks offers, beside another server's, and goes on without one that offers none", async () => {
    const db = stdioTarget("sqlite"); // a few tables: a few dozen distinct tasks
    const echo = stdioTarget("everything", "--sampling"); // only `echo`, which hands its input back: none
    const three = await ServerSet.connect(["fixture:calculator", db, echo], "auto");
    try {
      const dir = runDir();
      const file = path.join(dir, "given.jsonl");
      const row = (id: string, split: string, server: string) => JSON.stringify({ id, task: `Task ${id}.`, difficulty: 1, split, server, tags: [], expected: [{ kind: "contains", value: id }] });
      fs.writeFileSync(file, [["c", "fixture:calculator"], ["d", db], ["e", echo]].flatMap(([id, server]) => [row(`${id}1`, "train", server), row(`${id}2`, "test", server)]).join("\n") + "\n");
      const log: string[] = [];
      const data = await loadScenarios([file], three, { seed: 1, runDir: dir, log: (l) => log.push(l), generateTrain: 60 });
      const fromCalculator = readScenarioFile(path.join(dir, "scenarios-train-0.jsonl"));
      const fromDb = readScenarioFile(path.join(dir, "scenarios-train-1.jsonl"));
      expect(fromCalculator).toHaveLength(60);
      expect(fromDb.length).toBeGreaterThan(0);
      expect(fromDb.length).toBeLessThan(60);
      expect(log.some((l) => l.startsWith(`note: built ${fromDb.length} distinct verified scenarios of the 60 asked for`))).toBe(true);
      expect(log.some((l) => l.startsWith("warning: no extra training scenarios for stdio:") && l.includes("could not build any verified scenario"))).toBe(true);
      expect(fs.existsSync(path.join(dir, "scenarios-train-2.jsonl"))).toBe(false);
      expect(data.train.length).toBe(3 + fromCalculator.length + fromDb.length);
    } finally {
      await three.close();
    }
  });
});
