import { describe, expect, it } from "vitest";
import { otherServerWarning } from "../../src/scenarios/other-server.js";
import type { Scenario } from "../../src/scenarios/schema.js";

const scenario = (server?: string): Scenario => ({ id: `s${Math.random()}`, task: "t", difficulty: 1, split: "train", tags: [], ...(server ? { server } : {}) });

describe("otherServerWarning", () => {
  it("names the other servers (credentials blanked, three at most) and ignores scenarios of this server or of none", () => {
    const list = [
      scenario("node a.mjs --api-key sk-abcdefghijklmnopqrstuvwx"),
      scenario("node b.mjs"),
      scenario("node c.mjs"),
      scenario("node d.mjs"),
      scenario("stdio:node calc.mjs"),
      scenario(),
    ];
    expect(otherServerWarning(list, "node calc.mjs", "played on")).toBe(
      "warning: 4 of 6 scenarios name another server (node a.mjs --api-key [redacted], node b.mjs, node c.mjs, …) and are played on node calc.mjs",
    );
    expect(otherServerWarning(list.slice(4), "node calc.mjs", "checked against")).toBeNull();
  });
});
