/**
 * Element symbols that are also English words pass only where the answer gives them as the
 * symbol; other symbols stay a case-sensitive whole word.
 */
import { describe, expect, it } from "vitest";
import { checkAnswer } from "../../src/scenarios/check.js";
import { symbolCheck } from "../../src/scenarios/verified/fixtures/symbol-check.js";

const passes = (symbol: string, answer: string) => checkAnswer(symbolCheck(symbol), answer).pass;

describe("symbolCheck", () => {
  it("refuses the word where it is only a word", () => {
    expect(passes("As", "As far as I know, arsenic is a metalloid.")).toBe(false);
    expect(passes("In", "In the periodic table, indium sits below gallium.")).toBe(false);
    expect(passes("Be", "To be honest, I could not find it.")).toBe(false);
    expect(passes("He", "He could not find the symbol.")).toBe(false);
    expect(passes("I", "I think the symbol is Ir.")).toBe(false);
    expect(passes("No", "No, I cannot look that up.")).toBe(false);
    expect(passes("As", "Note: As far as I can tell, it has none.")).toBe(false);
    expect(passes("I", "The symbol, as I recall, is unknown.")).toBe(false);
    expect(passes("I", "I searched for the symbol I found nothing")).toBe(false);
  });

  it("passes the symbol given as the answer", () => {
    for (const a of ["As", "As.", "**As**", "The chemical symbol of arsenic is As.", "Arsenic has the symbol As.", "It's As.", "symbol: As", "Arsenic (As), atomic number 33", "As is arsenic's symbol.", "The symbol for arsenic is \"As\"."])
      expect(passes("As", a), a).toBe(true);
    expect(passes("I", "The symbol for iodine is I.")).toBe(true);
    expect(passes("In", "Indium's symbol is In")).toBe(true);
    expect(passes("He", "He is the chemical symbol of helium.")).toBe(true);
    // capitalised, in markdown, in a table, after a question
    for (const a of ["Symbol: As (arsenic)", "**Symbol:** As", "| Arsenic | As | 33 |", "Arsenic | As | 33", "The symbol of arsenic? As", "Symbol of arsenic:\nAs\n"]) expect(passes("As", a), a).toBe(true);
  });

  it("keeps other symbols a case-sensitive whole word", () => {
    expect(passes("Fe", "Iron is written Fe in formulas")).toBe(true);
    expect(passes("Fe", "iron ore fell")).toBe(false);
    expect(passes("Fe", "FE")).toBe(false);
  });
});
