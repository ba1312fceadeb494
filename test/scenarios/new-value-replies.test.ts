/**
 * A change whose whole reply is its own new value (test/servers/links.ts: `shorten_link {url}`
 * answers only "s9f99bd", the new code) is asked for that value, and checked by the listing
 * too; a reply that only confirms (a sentence, a word like "OK") is not asked for
 * (deletions-by-id.test.ts has update_note's "Updated note 12").
 */
import { afterAll, describe, expect, it } from "vitest";
import { connect } from "../../src/mcp/connect.js";
import type { Toolbox } from "../../src/mcp/types.js";
import { generateVerified } from "../../src/scenarios/verified/generate.js";
import { isReceipt } from "../../src/scenarios/verified/generic.js";
import { passesAfter, replaysOnFresh } from "../helpers/checks-after.js";
import { stdioTarget } from "../servers/launch.js";

let box: Toolbox | undefined;
afterAll(async () => {
  await box?.close();
});

describe("a change that replies with its new value alone", () => {
  it("asks shorten_link's tasks for the new code, checked by the link in the listing; doing nothing or answering without the code fails", async () => {
    box = await connect(stdioTarget("links"));
    const { scenarios } = await generateVerified(box, { n: 12, seed: 1, allowWrites: true, acceptFewer: true });
    const shortened = scenarios.filter((s) => s.reference!.calls[0].name === "shorten_link");
    expect(shortened.length).toBeGreaterThanOrEqual(3);
    for (const s of shortened) {
      const { url } = s.reference!.calls[0].arguments as { url: string };
      const code = (await box.isolated().then(async (b) => (await b.call("shorten_link", { url }).finally(() => b.close())).text)).trim();
      expect(code).toMatch(/^s[0-9a-f]{6}$/);
      expect(s.expected).toEqual([
        { kind: "contains", value: code, caseSensitive: false },
        { kind: "state", tool: "list_links", arguments: {}, expect: { kind: "contains", value: url, caseSensitive: false } },
      ]);
      expect(s.reference!.answer).toContain(code);
      expect(await replaysOnFresh(box, s), s.task).toBe(true);
      expect(await passesAfter(box, s, async () => {}), `doing nothing: ${s.task}`).toBe(false);
      const withoutCode = { ...s, reference: { ...s.reference!, answer: "Done." } };
      expect(await passesAfter(box, withoutCode, (b) => b.call("shorten_link", { url })), `no code in the answer: ${s.task}`).toBe(false);
    }
  }, 120_000);

  it("tells a whole reply that confirms from one that is a new value", () => {
    const whole = (value: string) => isReceipt({ label: "result", value }, { url: "https://example.com/a" });
    for (const receipt of ["Updated note 12", "OK", "Done.", "success", "Gespeichert!"]) expect(whole(receipt), receipt).toBe(true);
    for (const value of ["s9f99bd", "42", "https://sho.rt/x7K", "a1b2-c3"]) expect(whole(value), value).toBe(false);
    // a field's text repeating what was given is a receipt whatever its label
    expect(isReceipt({ label: "message", value: "Shortened https://example.com/a" }, { url: "https://example.com/a" })).toBe(true);
    expect(isReceipt({ label: "code", value: "s9f99bd" }, { url: "https://example.com/a" })).toBe(false);
  });
});
