/**
 * A notes server with no tool that lists (test/servers/vault.ts, standing in for mcp-obsidian
 * 1.0.0): its search needs a query and a made-up one finds nothing, its reader gets only made-up
 * paths. The harvest's empty search lists every note, so the search is asked about notes that
 * are there, and a read is asked about what the note says (its title, a "Key: value" line),
 * each answered from the note named, and every task replays.
 */
import { afterAll, describe, expect, it } from "vitest";
import { connect } from "../../src/mcp/connect.js";
import type { Toolbox } from "../../src/mcp/types.js";
import { generateVerified } from "../../src/scenarios/verified/generate.js";
import { replaysOnFresh } from "../helpers/checks-after.js";
import { stdioTarget } from "../servers/launch.js";
import notes from "../servers/vault-notes.json" with { type: "json" };

const VAULT: Record<string, string> = notes;
let box: Toolbox | undefined;
afterAll(async () => {
  await box?.close();
});

/** "Weather: rainy" of a note as {weather: "rainy"}, its heading as its title */
function facts(note: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of note.split("\n")) {
    const heading = /^#\s+(.+)$/.exec(line);
    const keyed = /^([A-Za-z ]+):\s+(.+)$/.exec(line);
    if (heading) out.title = heading[1];
    else if (keyed) out[keyed[1].toLowerCase()] = keyed[2];
  }
  return out;
}

describe("a notes vault no tool lists (mcp-obsidian)", () => {
  it("searches for notes that are there and asks what the notes read say, each from its own note, and they replay", async () => {
    box = await connect(stdioTarget("vault"));
    const { scenarios, perRecipe } = await generateVerified(box, { n: 12, seed: 1 });
    expect(scenarios).toHaveLength(12);
    expect(perRecipe["generic.single.search_notes"]).toBeGreaterThan(0);
    expect(perRecipe["generic.single.read_notes"]).toBeGreaterThan(0);
    const asked = new Set<string>();
    for (const s of scenarios) {
      const call = s.reference!.calls[0];
      const check = s.expected![0] as { kind: string; value: string | number };
      if (call.name === "search_notes") {
        // a note's path, found by a part of its name
        expect(Object.keys(VAULT), s.task).toContain(check.value);
        expect(String(check.value).toLowerCase(), s.task).toContain(String(call.arguments.query).toLowerCase());
      } else {
        const read = (call.arguments.paths as string[]).map((p) => facts(VAULT[p]));
        // "… Report the owner." / "What is the title?": the field named, found in one note read only
        const label = /the ([\w ]+)[?.]$/.exec(s.task)?.[1] ?? "";
        const holding = read.filter((f) => label in f);
        expect(holding, s.task).toHaveLength(1);
        expect(String(check.value), s.task).toBe(holding[0][label]);
        asked.add(label);
      }
      expect(await replaysOnFresh(box, s), s.task).toBe(true);
    }
    expect(asked.size).toBeGreaterThan(1);
  }, 60_000);
});
