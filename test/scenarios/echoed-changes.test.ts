/**
 * Verified tasks for a server whose changes answer only with what they were given (a knowledge
 * graph shaped like server-memory, test/servers/memory-graph.ts): the change is checked by a
 * read-only tool, looked up by a given value, that shows another given value afterwards and
 * did not before. With --allow-writes the model gets tasks that create entities and add
 * observations, even on an empty graph; every task replays on a fresh copy of the graph.
 */
import { describe, expect, it } from "vitest";
import { replayScenario } from "../../src/scenarios/replay.js";
import { generateVerified } from "../../src/scenarios/verified/generate.js";
import { memoryGraphs } from "../helpers/memory-graph.js";

const graph = memoryGraphs();

const SEED = [
  { type: "entity", name: "Ada Lovelace", entityType: "person", observations: ["Born in London in 1815"] },
  { type: "entity", name: "Acme Robotics", entityType: "organization", observations: ["Headquartered in Oslo"] },
  { type: "relation", from: "Ada Lovelace", to: "Acme Robotics", relationType: "advises" },
];

describe("changes whose result repeats their arguments (server-memory)", () => {
  it("builds create and add tasks checked by a read that shows what was given, and they replay on a fresh copy", async () => {
    const box = await graph(SEED);
    const { scenarios } = await generateVerified(box, { n: 24, seed: 1, allowWrites: true, acceptFewer: true });
    const byTool = (name: string) => scenarios.filter((s) => s.reference!.calls[0].name === name);
    for (const tool of ["create_entities", "add_observations"]) {
      const made = byTool(tool);
      expect(made.length, tool).toBeGreaterThan(0);
      for (const s of made) {
        expect(s.expected!.map((e) => e.kind)).toEqual(["state"]);
        const state = s.expected![0] as { tool: string; expect: { value: string } };
        // what the check looks for was given in the task, and the graph did not hold it before
        expect(s.task).toContain(state.expect.value);
        const before = await box.isolated();
        try {
          expect((await before.call(state.tool, (s.expected![0] as { arguments: object }).arguments)).text.toLowerCase()).not.toContain(state.expect.value.toLowerCase());
        } finally {
          await before.close();
        }
      }
    }
    for (const s of scenarios.filter((x) => x.reference!.calls.some((c) => !["read_graph", "search_nodes", "open_nodes"].includes(c.name)))) {
      const fresh = await box.isolated();
      try {
        expect((await replayScenario(fresh, s)).pass, s.task).toBe(true);
      } finally {
        await fresh.close();
      }
    }
  }, 180_000);

  it("builds tasks on an empty graph with --allow-writes, where nothing could be read", async () => {
    const box = await graph([]);
    const { scenarios, notes } = await generateVerified(box, { n: 4, seed: 2, allowWrites: true, acceptFewer: true });
    expect(scenarios.length).toBeGreaterThan(0);
    // every task starts from the entities its setup creates (starting-state.ts)
    expect(notes.some((n) => /^the server held nothing to ask about/.test(n))).toBe(true);
    for (const s of scenarios) expect(s.setup?.[0].name).toBe("create_entities");
  }, 180_000);
});
