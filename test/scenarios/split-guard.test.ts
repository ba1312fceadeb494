/**
 * The verified generator's split rule: a held-out phrasing may share an answer with a training
 * task only when it asks about other things; held-out values share no answer with training.
 */
import { describe, expect, it } from "vitest";
import type { ReferenceCall } from "../../src/scenarios/schema.js";
import { SplitGuard, type SplitCandidate } from "../../src/scenarios/verified/split-guard.js";
import { balanceHeldOut } from "../../src/scenarios/verified/generate.js";
import { Rng } from "../../src/scenarios/verified/rng.js";

const call = (name: string, args: Record<string, unknown>): ReferenceCall => ({ name, arguments: args });
const kyiv = JSON.stringify([{ kind: "contains", value: "Kyiv" }]);
const searchUkraine = call("search", { query: "capital Ukraine" });
const fetchUkraine = call("get_fact", { id: "capital-ukraine" });

const train = (expected: string, calls: ReferenceCall[]): SplitCandidate => ({ split: "train", heldOutTemplate: false, expected, calls });
const phrasing = (expected: string, calls: ReferenceCall[]): SplitCandidate => ({ split: "test", heldOutTemplate: true, expected, calls });
const values = (expected: string, calls: ReferenceCall[]): SplitCandidate => ({ split: "test", heldOutTemplate: false, expected, calls });

describe("SplitGuard", () => {
  it("refuses a held-out phrasing that re-asks a trained fact with more steps, or fewer", () => {
    const g = new SplitGuard();
    g.add(train(kyiv, [searchUkraine]));
    expect(g.clashes(phrasing(kyiv, [searchUkraine, fetchUkraine]))).toBe(true);
    const h = new SplitGuard();
    h.add(train(kyiv, [searchUkraine, fetchUkraine]));
    expect(h.clashes(phrasing(kyiv, [fetchUkraine]))).toBe(true);
  });

  it("sees the same question through another tool with the same arguments", () => {
    const g = new SplitGuard();
    const three = JSON.stringify([{ kind: "numeric", value: 3 }]);
    g.add(train(three, [call("read_file", { path: "b.json" })]));
    expect(g.clashes(phrasing(three, [call("read_text_file", { path: "b.json" })]))).toBe(true);
    expect(g.clashes(phrasing(three, [call("read_text_file", { path: "c.json" })]))).toBe(false);
  });

  it("lets a held-out phrasing share only its answer with a training task (two sums that are equal)", () => {
    const g = new SplitGuard();
    const twelve = JSON.stringify([{ kind: "numeric", value: 12 }]);
    g.add(train(twelve, [call("multiply", { a: 3, b: 4 })]));
    expect(g.clashes(phrasing(twelve, [call("multiply", { a: 2, b: 6 })]))).toBe(false);
    // held-out values may not share even the answer
    expect(g.clashes(values(twelve, [call("multiply", { a: 2, b: 6 })]))).toBe(true);
  });

  it("applies the rule both ways: a training task may not re-ask a committed held-out one", () => {
    const g = new SplitGuard();
    g.add(phrasing(kyiv, [searchUkraine, fetchUkraine]));
    expect(g.clashes(train(kyiv, [searchUkraine]))).toBe(true);
    expect(g.clashes(train(kyiv, [call("search", { query: "Kyiv population" })]))).toBe(false);
    g.add(values(JSON.stringify([{ kind: "contains", value: "Lima" }]), [call("search", { query: "capital Peru" })]));
    expect(g.clashes(train(JSON.stringify([{ kind: "contains", value: "Lima" }]), [call("get_fact", { id: "capital-peru" })]))).toBe(true);
  });

  it("keeps test scenarios apart from training ones only, not from each other", () => {
    const g = new SplitGuard();
    g.add(phrasing(kyiv, [searchUkraine]));
    expect(g.clashes(phrasing(kyiv, [searchUkraine, fetchUkraine]))).toBe(false);
  });
});

describe("balanceHeldOut (a generated set shorter than asked)", () => {
  const item = (split: "train" | "test", value: string, heldOutTemplate = false) => ({ split, built: { expected: [{ kind: "contains" as const, value, caseSensitive: false }], heldOutTemplate } });
  const tests = (list: Array<{ split: string }>) => list.filter((c) => c.split === "test").length;

  it("moves training scenarios to the test split until a quarter is held out, none whose answer training keeps", () => {
    // one held out of twelve, with a held-out-values one among them: the top-up still runs
    const list = [item("test", "t0"), ...Array.from({ length: 11 }, (_, i) => item("train", i < 2 ? "same" : `v${i}`))];
    balanceHeldOut(list, 3, new Rng("t"));
    expect(tests(list)).toBe(3);
    expect(list.filter((c) => c.split === "test").map((c) => c.built.expected[0].value)).not.toContain("same");
  });

  it("moves held-out values (not held-out phrasings) back to training towards a quarter, none whose answer another held-out task expects", () => {
    const list = [item("test", "a", true), item("test", "b", true), item("test", "dup"), item("test", "dup"), item("test", "c"), item("test", "d"), ...Array.from({ length: 6 }, (_, i) => item("train", `v${i}`))];
    balanceHeldOut(list, 3, new Rng("t"));
    // c and d move; the phrasings stay, and so do both "dup"s (moving one would train the other's answer)
    expect(list.filter((c) => c.split === "test").map((c) => c.built.expected[0].value).sort()).toEqual(["a", "b", "dup", "dup"]);
    const even = [item("test", "a", true), item("test", "c"), item("test", "d"), item("test", "e"), ...Array.from({ length: 8 }, (_, i) => item("train", `v${i}`))];
    balanceHeldOut(even, 3, new Rng("t"));
    expect(tests(even)).toBe(3);
    expect(even[0].split).toBe("test");
  });
});
