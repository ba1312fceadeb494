/**
 * Generated training tasks kept apart from a held-out set: the same text, the same reference
 * calls or the same expected answer leak; a task that differs in a number does not.
 */
import { describe, expect, it } from "vitest";
import { HeldOutGuard } from "../../src/scenarios/held-out-guard.js";
import type { Scenario } from "../../src/scenarios/schema.js";

const compound = (id: string, task: string, args: Record<string, unknown>, value: number, split: "train" | "test" = "train"): Scenario => ({
  id,
  task,
  difficulty: 2,
  split,
  tags: [],
  expected: [{ kind: "numeric", value, tolerance: 0.01, relTolerance: 0 }],
  reference: { calls: [{ name: "compound_interest", arguments: args }], answer: String(value) },
});

const heldOut = compound("t1", "What is $2000 worth after 8 years at 4% interest, compounded yearly?", { principal: 2000, rate_percent: 4, years: 8 }, 2737.13810081, "test");
const guard = new HeldOutGuard([heldOut]);

describe("HeldOutGuard", () => {
  it("lets through a task that asks something else", () => {
    expect(guard.leaks(compound("a", "What is $2000 worth after 8 years at 5% interest, compounded yearly?", { principal: 2000, rate_percent: 5, years: 8 }, 2954.91102))).toBe(false);
  });

  it("catches the same text, case and punctuation aside", () => {
    expect(guard.leaks(compound("b", "what is $2000 worth after 8 years at 4% interest compounded yearly", { principal: 1, rate_percent: 1, years: 1 }, 1.01))).toBe(true);
  });

  it("catches the same calls in other words, argument order aside", () => {
    expect(guard.leaks(compound("c", "How much does $2000 grow to in 8 years at 4% a year?", { years: 8, rate_percent: 4, principal: 2000 }, 1))).toBe(true);
  });

  it("catches the same expected answer reached by a call spelt otherwise", () => {
    const explicit = { principal: 2000, rate_percent: 4, years: 8, compounds_per_year: 1 };
    expect(guard.leaks(compound("d", "Find the final amount when $2000 is invested for 8 years at 4%, compounded yearly.", explicit, 2737.13810081))).toBe(true);
  });

  it("holds nothing when the held-out set is empty", () => {
    expect(new HeldOutGuard([]).leaks(heldOut)).toBe(false);
  });
});
