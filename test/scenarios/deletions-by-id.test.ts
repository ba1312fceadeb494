/**
 * Deletions by id (test/servers/notes.ts: `delete_note {id}`, answered only "Deleted note N", as
 * most todo, notes and ticket servers answer): the id is a number no read can be seen to lose, so
 * the task is checked by what the note held beside its id (its title) going from the listing, and
 * another note's title staying. Also the note that one tool took most of a small server's set.
 */
import { afterAll, describe, expect, it } from "vitest";
import { connect } from "../../src/mcp/connect.js";
import type { Toolbox } from "../../src/mcp/types.js";
import { passesAfter, replaysOnFresh } from "../helpers/checks-after.js";
import type { StateCheck } from "../../src/scenarios/schema.js";
import { valuesBesideIds } from "../../src/scenarios/verified/deletions.js";
import { generateVerified } from "../../src/scenarios/verified/generate.js";
import { stdioTarget } from "../servers/launch.js";

const boxes: Toolbox[] = [];
afterAll(async () => {
  for (const b of boxes) await b.close();
});

async function notes(): Promise<Toolbox> {
  const box = await connect(stdioTarget("notes"));
  boxes.push(box);
  return box;
}


describe("deletions by id", () => {
  it("builds delete_note tasks checked by the note's title gone from the listing and another's kept; doing nothing, deleting another note or every note fails", async () => {
    const box = await notes();
    const generatorNotes: string[] = [];
    const { scenarios } = await generateVerified(box, { n: 30, seed: 1, allowWrites: true, acceptFewer: true, onNote: (l) => generatorNotes.push(l) });
    const deletions = scenarios.filter((s) => s.reference!.calls[0].name === "delete_note");
    expect(deletions.length).toBeGreaterThanOrEqual(3);
    const titles: Record<number, string> = { 11: "Groceries", 12: "Dentist", 13: "Birthday gift", 14: "Bike repair" };
    for (const s of deletions) {
      const id = s.reference!.calls[0].arguments.id as number;
      expect(s.task).toContain(`id ${id}`);
      const checks = s.expected as StateCheck[];
      expect(checks.map((c) => [c.tool, c.expect.kind])).toEqual([["list_notes", "not_contains"], ["list_notes", "contains"]]);
      expect((checks[0].expect as { value: string }).value).toBe(titles[id]);
      const kept = (checks[1].expect as { value: string }).value;
      expect(Object.values(titles).filter((t) => t !== titles[id])).toContain(kept);
      expect(await replaysOnFresh(box, s), s.task).toBe(true);
      expect(await passesAfter(box, s, async () => {}), `doing nothing: ${s.task}`).toBe(false);
      const other = Number(Object.keys(titles).find((k) => titles[Number(k)] === kept));
      expect(await passesAfter(box, s, (b) => b.call("delete_note", { id: other })), `deleting note ${other}: ${s.task}`).toBe(false);
      const all = async (b: Toolbox) => {
        for (const k of Object.keys(titles)) await b.call("delete_note", { id: Number(k) });
      };
      expect(await passesAfter(box, s, all), `deleting every note: ${s.task}`).toBe(false);
    }
    // four ids to delete, four to look up, one listing: the rest of the 30 are create_note tasks
    expect(generatorNotes).toContainEqual(expect.stringMatching(/^\d+ of 30 scenarios call create_note: .*delete_note \(\d\).* gave every distinct task they could/));
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
});
