/**
 * The reference server-memory (a devDependency: a knowledge graph kept in a JSONL file) through
 * the CLI, as a user runs it: its data in a --template-dir copy per server instance, the file
 * named by MEMORY_FILE_PATH. Read-only by default; with --allow-writes its write tools, whose
 * results only repeat their arguments, get tasks checked by a read afterwards.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readScenarioFile } from "../../src/scenarios/io.js";
import { cli } from "../train/helpers.js";

const SERVER = `node ${resolve("node_modules/@modelcontextprotocol/server-memory/dist/index.js")}`;

const GRAPH = [
  { type: "entity", name: "Ada Lovelace", entityType: "person", observations: ["Born in London in 1815", "Wrote the first published algorithm"] },
  { type: "entity", name: "Charles Babbage", entityType: "person", observations: ["Designed the Analytical Engine"] },
  { type: "entity", name: "Analytical Engine", entityType: "machine", observations: ["Proposed in 1837", "Never completed"] },
  { type: "entity", name: "Acme Robotics", entityType: "organization", observations: ["Founded in 2011", "Headquartered in Oslo"] },
  { type: "entity", name: "Mira Tanaka", entityType: "person", observations: ["Works as a firmware engineer"] },
  { type: "relation", from: "Ada Lovelace", to: "Charles Babbage", relationType: "collaborated_with" },
  { type: "relation", from: "Charles Babbage", to: "Analytical Engine", relationType: "designed" },
  { type: "relation", from: "Mira Tanaka", to: "Acme Robotics", relationType: "works_at" },
];

describe("server-memory (the npm package) through the CLI", () => {
  const dir = mkdtempSync(join(tmpdir(), "memory-real-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const template = join(dir, "template");
  mkdirSync(template);
  const memory = join(template, "memory.json");
  writeFileSync(memory, GRAPH.map((l) => JSON.stringify(l)).join("\n") + "\n");
  const connectFlags = ["--server", SERVER, "--template-dir", template, "--env", "MEMORY_FILE_PATH=${cwd}/memory.json"];

  it("builds write tasks with --allow-writes that replay on fresh copies, and leaves the template's graph as it was", async () => {
    const out = join(dir, "rw.jsonl");
    const g = await cli(["scenarios", "generate", ...connectFlags, "--allow-writes", "--n", "20", "--seed", "3", "--out", out]);
    expect(g.code, g.stderr).toBe(0);
    const scenarios = readScenarioFile(out);
    const writers = new Set(["create_entities", "add_observations", "create_relations"]);
    const writing = scenarios.filter((s) => s.reference!.calls.some((c) => writers.has(c.name)));
    expect(writing.length).toBeGreaterThan(0);
    // a write task is checked by what a read shows afterwards
    for (const s of writing) expect(s.expected!.some((e) => e.kind === "state")).toBe(true);
    // a deletion, by the read no longer showing what went and still showing what stays
    const deleting = scenarios.filter((s) => s.reference!.calls.some((c) => c.name.startsWith("delete_")));
    expect(deleting.length).toBeGreaterThan(0);
    for (const s of deleting) {
      const states = s.expected!.filter((e) => e.kind === "state");
      expect(states.some((e) => e.expect.kind === "not_contains")).toBe(true);
      expect(states.some((e) => e.expect.kind === "contains")).toBe(true);
    }
    const c = await cli(["scenarios", "check", out, ...connectFlags, "--fresh"]);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toContain(`${scenarios.length} ok, 0 failing`);
    expect(readFileSync(memory, "utf8")).toBe(GRAPH.map((l) => JSON.stringify(l)).join("\n") + "\n");
    // two CLI runs, each starting the npm server for every fresh instance: ~40 s on 2 busy cores
  }, 180_000);

  it("gives an empty graph a starting state: every task's setup calls make entries its reads and deletions work on", async () => {
    const empty = join(dir, "empty");
    mkdirSync(empty);
    const flags = ["--server", SERVER, "--template-dir", empty, "--env", "MEMORY_FILE_PATH=${cwd}/memory.json"];
    const out = join(dir, "seeded.jsonl");
    const g = await cli(["scenarios", "generate", ...flags, "--allow-writes", "--n", "16", "--seed", "2", "--out", out]);
    expect(g.code, g.stderr).toBe(0);
    expect(g.stderr).toMatch(/note: the server held nothing to ask about, so every task starts from \d+ setup calls \(create_entities/);
    const scenarios = readScenarioFile(out);
    const setup = scenarios[0].setup!;
    expect(setup.length).toBeGreaterThan(1);
    for (const s of scenarios) expect(s.setup).toEqual(setup);
    // before, an empty graph gave "create" tasks only: now reads and deletions have entries to work on
    const called = new Set(scenarios.flatMap((s) => s.reference!.calls.map((c) => c.name)));
    expect([...called].filter((n) => ["read_graph", "search_nodes", "open_nodes"].includes(n)).length).toBeGreaterThan(0);
    expect([...called].some((n) => n.startsWith("delete_"))).toBe(true);
    // a read's answer is a name or type the setup calls made
    const made = JSON.stringify(setup.map((c) => c.arguments)).toLowerCase();
    for (const s of scenarios.filter((x) => x.expected!.every((e) => e.kind === "contains"))) {
      for (const e of s.expected!) if (e.kind === "contains") expect(made).toContain(e.value.toLowerCase());
    }
    const c = await cli(["scenarios", "check", out, ...flags, "--fresh"]);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toContain(`${scenarios.length} ok, 0 failing`);
  }, 240_000);

  it("calls no write tool without --allow-writes, and says which it left out", async () => {
    const out = join(dir, "ro.jsonl");
    const g = await cli(["scenarios", "generate", ...connectFlags, "--n", "6", "--seed", "3", "--out", out]);
    expect(g.code, g.stderr).toBe(0);
    expect(g.stderr).toMatch(/note: not calling [a-z_, ]*create_entities[a-z_, ]*: they change the server's state/);
    const called = new Set(readScenarioFile(out).flatMap((s) => s.reference!.calls.map((c) => c.name)));
    expect([...called].every((n) => ["read_graph", "search_nodes", "open_nodes"].includes(n))).toBe(true);
  });
});
