/**
 * Deletions by id (test/servers/notes.ts: `delete_note {id}`, answered only "Deleted note N", as
 * most todo, notes and ticket servers answer): the id is a number no read can be seen to lose, so
 * the task is checked by what the note held beside its id (its title) going from the listing, and
 * another note's title staying. An update answered by a receipt (`update_note` → "Updated note
 * 12") is checked by the note read back. Also the note that one tool took most of a small server's set.
 */
import { afterAll, describe, expect, it } from "vitest";
import { connect } from "../../src/mcp/connect.js";
import type { Toolbox } from "../../src/mcp/types.js";
import { passesAfter, replaysOnFresh } from "../helpers/checks-after.js";
import type { StateCheck } from "../../src/scenarios/schema.js";
import { valuesBesideIds } from "../../src/scenarios/verified/deletions.js";
import { generateVerified, lopsidedNote } from "../../src/scenarios/verified/generate.js";
import type { Recipe } from "../../src/scenarios/verified/recipe.js";
import { stdioTarget } from "../servers/launch.js";

const boxes: Toolbox[] = [];
afterAll(async () => {
  for (const b of boxes) await b.close();
});

async function notes(...flags: string[]): Promise<Toolbox> {
  const box = await connect(stdioTarget("notes", ...flags));
  boxes.push(box);
  return box;
}


const titles: Record<number, string> = { 11: "Groceries", 12: "Dentist", 13: "Birthday gift", 14: "Bike repair" };

describe("deletions by id", () => {
  it("builds delete_note tasks checked by the note's title gone from the listing and another's kept; doing nothing, deleting another note or every note fails", async () => {
    const box = await notes();
    const { scenarios } = await generateVerified(box, { n: 30, seed: 1, allowWrites: true, acceptFewer: true });
    const deletions = scenarios.filter((s) => s.reference!.calls[0].name === "delete_note");
    expect(deletions.length).toBeGreaterThanOrEqual(3);
    for (const s of deletions) {
      const id = s.reference!.calls[0].arguments.id as number;
      expect(s.task).toContain(`id ${id}`);
      const checks = s.expected as StateCheck[];
      // the title and the id gone from the listing, another title kept
      expect(checks.map((c) => [c.tool, c.expect.kind, (c.expect as { value: string }).value]).slice(0, 2)).toEqual([["list_notes", "not_contains", titles[id]], ["list_notes", "not_contains", String(id)]]);
      expect(checks.map((c) => [c.tool, c.expect.kind])[2]).toEqual(["list_notes", "contains"]);
      const kept = (checks[2].expect as { value: string }).value;
      expect(Object.values(titles).filter((t) => t !== titles[id])).toContain(kept);
      expect(await replaysOnFresh(box, s), s.task).toBe(true);
      expect(await passesAfter(box, s, async () => {}), `doing nothing: ${s.task}`).toBe(false);
      expect(await passesAfter(box, s, (b) => b.call("update_note", { id, title: "Renamed" })), `renaming it: ${s.task}`).toBe(false);
      const other = Number(Object.keys(titles).find((k) => titles[Number(k)] === kept));
      expect(await passesAfter(box, s, (b) => b.call("delete_note", { id: other })), `deleting note ${other}: ${s.task}`).toBe(false);
      const all = async (b: Toolbox) => {
        for (const k of Object.keys(titles)) await b.call("delete_note", { id: Number(k) });
      };
      expect(await passesAfter(box, s, all), `deleting every note: ${s.task}`).toBe(false);
    }
  }, 240_000);

  it("builds update_note tasks (answered only \"Updated note N\") checked by the note read back by its id, not by the receipt; doing nothing or updating another note fails", async () => {
    const box = await notes();
    const { scenarios } = await generateVerified(box, { n: 30, seed: 2, allowWrites: true, acceptFewer: true });
    const updates = scenarios.filter((s) => s.reference!.calls[0].name === "update_note");
    expect(updates.length).toBeGreaterThanOrEqual(3);
    for (const s of updates) {
      const { id, title } = s.reference!.calls[0].arguments as { id: number; title: string };
      // the new title read back by the id, and the old one gone from there
      expect(s.expected).toEqual([
        { kind: "state", tool: "get_note", arguments: { id }, expect: { kind: "contains", value: title, caseSensitive: false } },
        { kind: "state", tool: "get_note", arguments: { id }, expect: { kind: "not_contains", value: titles[id], caseSensitive: false } },
      ]);
      expect(s.reference!.answer).toBe("Done.");
      expect(await replaysOnFresh(box, s), s.task).toBe(true);
      expect(await passesAfter(box, s, async () => {}), `doing nothing: ${s.task}`).toBe(false);
      const other = id === 11 ? 12 : 11;
      expect(await passesAfter(box, s, (b) => b.call("update_note", { id: other, title })), `updating note ${other}: ${s.task}`).toBe(false);
    }
    // no task asks for the receipt's wording
    expect(scenarios.some((s) => s.expected!.some((e) => e.kind === "contains" && /^updated note/i.test(e.value)))).toBe(false);
  }, 240_000);

  it("with no lookup by id, checks an update in the listing by the new title there and the old one gone: adding a note with the new title fails", async () => {
    const box = await notes("--no-get");
    // a change is given a title the listing does not show yet (one it shows could not show the
    // update): seed 2 drew only shown ones before, and built no update of 20 asked
    const { scenarios } = await generateVerified(box, { n: 20, seed: 2, allowWrites: true, acceptFewer: true });
    expect(scenarios).toHaveLength(20);
    const updates = scenarios.filter((s) => s.reference!.calls[0].name === "update_note");
    expect(updates.length).toBeGreaterThanOrEqual(5);
    for (const s of updates) {
      const { id, title } = s.reference!.calls[0].arguments as { id: number; title: string };
      expect(s.expected).toEqual([
        { kind: "state", tool: "list_notes", arguments: {}, expect: { kind: "contains", value: title, caseSensitive: false } },
        { kind: "state", tool: "list_notes", arguments: {}, expect: { kind: "not_contains", value: titles[id], caseSensitive: false } },
      ]);
      expect(await replaysOnFresh(box, s), s.task).toBe(true);
      expect(await passesAfter(box, s, (b) => b.call("create_note", { title, body: "x" })), `adding a note titled ${title}: ${s.task}`).toBe(false);
    }
  }, 240_000);

  it("takes the strings an object holds beside the given id, by the argument's own key or a bare id, and no other id field", () => {
    const listing = { notes: [{ id: 12, title: "Dentist", due: "Tuesday" }, { id: 13, title: "Kite", ownerId: 12 }, { note_id: 4, title: "Rent" }] };
    const fair = () => true;
    expect(valuesBesideIds({ id: 12 }, [listing], fair)).toEqual(["Dentist", "Tuesday"]);
    expect(valuesBesideIds({ note_id: 4 }, [listing], fair)).toEqual(["Rent"]);
    // a list of ids, given as text ("12") where the read shows a number
    expect(valuesBesideIds({ ids: ["12", 4] }, [listing], fair).sort()).toEqual(["Dentist", "Tuesday"]);
    expect(valuesBesideIds({ note_ids: [4, 12] }, [listing], fair).sort()).toEqual(["Dentist", "Rent", "Tuesday"]);
    // no id argument, or an id no read shows
    expect(valuesBesideIds({ title: "Dentist" }, [listing], fair)).toEqual([]);
    expect(valuesBesideIds({ id: 99 }, [listing, undefined, "text"], fair)).toEqual([]);
    expect(valuesBesideIds({ id: 12 }, [listing], (s) => s !== "Tuesday")).toEqual(["Dentist"]);
  });

  it("notes when one tool took most of the set because the others ran out of distinct tasks, and only then", () => {
    const recipe = (id: string, tools: string[], primary?: string) => ({ id, tools, primary, build: async () => undefined }) as Recipe;
    const recipes = [recipe("a", ["create_note"]), recipe("b", ["get_note"]), recipe("c", ["list_notes"]), recipe("d", ["list_notes", "get_note"], "get_note")];
    const built = { a: 21, b: 3, c: 1, d: 1 };
    expect(lopsidedNote(built, recipes, new Set(["b", "c", "d"]), 26)).toBe(
      "21 of 26 scenarios call create_note: get_note (4), list_notes (1) gave every distinct task they could, so a model trained on this set learns mostly one tool: lower --n, or add hand-written scenarios for the others",
    );
    // a tool with a recipe still live did not run out; half the set is not most of it; nor is a small set
    expect(lopsidedNote(built, recipes, new Set(["c"]), 26)).toMatch(/: list_notes \(1\) gave every distinct task it could/);
    expect(lopsidedNote(built, recipes, new Set(), 26)).toBeUndefined();
    expect(lopsidedNote({ a: 13, b: 13 }, recipes, new Set(["b"]), 26)).toBeUndefined();
    expect(lopsidedNote({ a: 7, b: 1 }, recipes, new Set(["b"]), 8)).toBeUndefined();
  });
});
