/** A cut-down held-out set (--eval-n, eval --n) of several servers' scenarios holds each server's. */
import { describe, expect, it } from "vitest";
import type { Scenario } from "../../src/scenarios/schema.js";
import { takeAcrossServers } from "../../src/train/scenario-source.js";

const s = (id: string, server?: string) => ({ id, server }) as Scenario;

describe("takeAcrossServers", () => {
  it("takes the scenarios in turn from each server, each server's in order", () => {
    const all = [s("a1", "a"), s("a2", "a"), s("a3", "a"), s("b1", "b"), s("b2", "b"), s("c1", "c")];
    expect(takeAcrossServers(all, 4).map((x) => x.id)).toEqual(["a1", "b1", "c1", "a2"]);
    expect(takeAcrossServers(all, 6).map((x) => x.id)).toEqual(["a1", "b1", "c1", "a2", "b2", "a3"]);
    expect(takeAcrossServers(all, 99)).toHaveLength(6);
  });

  it("is the first n for a single server (or none named)", () => {
    const one = [s("x1"), s("x2"), s("x3")];
    expect(takeAcrossServers(one, 2).map((x) => x.id)).toEqual(["x1", "x2"]);
  });
});
