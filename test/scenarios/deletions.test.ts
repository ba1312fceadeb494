/**
 * Verified tasks for deletions (a knowledge graph shaped like server-memory,
 * test/servers/memory-graph.ts): with --allow-writes, delete_entities, delete_observations and
 * delete_relations get tasks checked by a read that no longer shows the given values
 * (not_contains) and still shows another one. On a fresh copy of the graph the reference solution
 * passes them; doing nothing, deleting everything, or deleting in part fails them.
 */
import { describe, expect, it } from "vitest";
import type { Toolbox } from "../../src/mcp/types.js";
import { replayScenario } from "../../src/scenarios/replay.js";
import { passesAfter, replaysOnFresh } from "../helpers/checks-after.js";
import type { StateCheck } from "../../src/scenarios/schema.js";
import { goneAndKept, isDeletingTool } from "../../src/scenarios/verified/deletions.js";
import type { RecipeContext } from "../../src/scenarios/verified/recipe.js";
import { generateVerified } from "../../src/scenarios/verified/generate.js";
import { memoryGraphs } from "../helpers/memory-graph.js";

const graph = memoryGraphs();

const SEED = [
  { type: "entity", name: "Ada Lovelace", entityType: "person", observations: ["Born in London in 1815"] },
  { type: "entity", name: "Acme Robotics", entityType: "organization", observations: ["Headquartered in Oslo"] },
  { type: "entity", name: "Grace Hopper", entityType: "person", observations: ["Rear admiral in the US Navy"] },
  { type: "relation", from: "Ada Lovelace", to: "Acme Robotics", relationType: "advises" },
];
const DELETIONS = ["delete_entities", "delete_observations", "delete_relations"];


describe("deletions (server-memory's delete tools)", () => {
  // --echo-missing: open_nodes lists the names it did not find, so a name it is asked for is no proof that something stays
  it.each([{ flags: [] as string[] }, { flags: ["--echo-missing"] }])("builds a task for each delete tool, checked by a value gone and another kept: the reference passes, doing nothing and deleting everything fail (server flags $flags)", async ({ flags }) => {
    const box = await graph(SEED, ...flags);
    const { scenarios } = await generateVerified(box, { n: 24, seed: 1, allowWrites: true, acceptFewer: true });
    let partly = 0;
    for (const tool of DELETIONS) {
      const made = scenarios.filter((s) => s.reference!.calls[0].name === tool);
      expect(made.length, tool).toBeGreaterThan(0);
      for (const s of made) {
        const checks = s.expected as StateCheck[];
        const gone = checks.slice(0, -1).map((c) => c.expect as { kind: string; value: string });
        const kept = checks[checks.length - 1].expect as { kind: string; value: string };
        expect([...new Set(gone.map((c) => c.kind)), kept.kind], s.task).toEqual(["not_contains", "contains"]);
        // the values to delete are ones the task gives, and not the one that must stay
        for (const c of gone) expect(s.task).toContain(c.value);
        expect(gone.map((c) => c.value)).not.toContain(kept.value);
        expect(s.reference!.answer).toBe("Done.");
        expect(await replaysOnFresh(box, s), s.task).toBe(true);
        expect(await passesAfter(box, s, async () => {}), `doing nothing: ${s.task}`).toBe(false);
        const everything = async (b: Toolbox) => {
          const names = (JSON.parse((await b.call("read_graph", {})).text) as { entities: Array<{ name: string }> }).entities.map((e) => e.name);
          expect((await b.call("delete_entities", { entityNames: names })).isError).toBeFalsy();
        };
        expect(await passesAfter(box, s, everything), `deleting everything: ${s.task}`).toBe(false);
        if (tool === "delete_entities" && gone.length > 1) {
          // a deletion done in part fails: every name that goes is checked
          const part = async (b: Toolbox) => void (await b.call("delete_entities", { entityNames: [gone[0].value] }));
          expect(await passesAfter(box, s, part), `deleting in part: ${s.task}`).toBe(false);
          partly++;
        }
      }
    }
    expect(partly, "a delete_entities task that deletes two entities").toBeGreaterThan(0);
  }, 240_000);

  it("takes no value to keep from a lookup that was asked for it: an echoing lookup shows it with everything deleted", async () => {
    const box = await graph(SEED, "--echo-missing");
    const pending = async (tool: string, args: Record<string, unknown>, shown: string[]) => ({ tool, arguments: args, before: (await box.call(tool, args)).text, wanted: [], shown });
    // the lookup of Grace Hopper first, then the whole graph
    const reads = [await pending("open_nodes", { names: ["Grace Hopper"] }, ["Grace Hopper"]), await pending("read_graph", {}, ["Ada Lovelace", "Grace Hopper"])];
    const ctx = { probe: (tool: string, args: Record<string, unknown>) => box.call(tool, args) } as unknown as RecipeContext;
    await box.call("delete_entities", { entityNames: ["Ada Lovelace"] });
    const checks = (await goneAndKept(ctx, reads, ["Ada Lovelace"])) as StateCheck[];
    expect(checks.map((c) => [c.tool, c.expect.kind, (c.expect as { value: string }).value])).toEqual([
      ["read_graph", "not_contains", "Ada Lovelace"],
      // Grace Hopper kept as the graph shows her, not as the lookup asked for her would
      ["read_graph", "contains", "Grace Hopper"],
    ]);
  });

  it("calls no delete tool without --allow-writes", async () => {
    const box = await graph(SEED);
    const { scenarios } = await generateVerified(box, { n: 6, seed: 3, allowWrites: false, acceptFewer: true });
    expect(scenarios.flatMap((s) => s.reference!.calls.map((c) => c.name)).filter((n) => DELETIONS.includes(n))).toEqual([]);
  }, 120_000);

  it("tells deletions by their annotations, else by their name", () => {
    expect(isDeletingTool({ name: "delete_entities", annotations: { readOnlyHint: false, destructiveHint: true } })).toBe(true);
    expect(isDeletingTool({ name: "create_entities", annotations: { readOnlyHint: false, destructiveHint: false } })).toBe(false);
    // annotations decide: a name alone only when they say nothing
    expect(isDeletingTool({ name: "spring_clean", annotations: { destructiveHint: true } })).toBe(true);
    expect(isDeletingTool({ name: "removeTodo" })).toBe(true);
    expect(isDeletingTool({ name: "delete_todo" })).toBe(true);
    expect(isDeletingTool({ name: "add_todo" })).toBe(false);
    expect(isDeletingTool({ name: "dropdown_options" })).toBe(false);
  });
});

describe("replaying a not_contains answer check", () => {
  const toolbox = { call: async () => ({ text: "The total is 4, not 5.", isError: false, truncated: false }) };
  const reference = { calls: [{ name: "calc", arguments: {} }], answer: "4" };
  it("holds on the reference answer alone: an absence is nothing a result states", async () => {
    const r = await replayScenario(toolbox, { expected: [{ kind: "contains", value: "4", caseSensitive: false }, { kind: "not_contains", value: "5", caseSensitive: false }], reference });
    expect(r).toMatchObject({ pass: true });
    expect(r.unconfirmed).toBeUndefined();
    const wrong = await replayScenario(toolbox, { expected: [{ kind: "not_contains", value: "4", caseSensitive: false }, { kind: "contains", value: "4", caseSensitive: false }], reference });
    expect(wrong.pass).toBe(false);
    expect(wrong.detail).toMatch(/^reference answer: expected not to contain "4"/);
  });
});
