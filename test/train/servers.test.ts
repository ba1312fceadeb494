/**
 * Which servers get a fresh instance per rollout: the bundled fixtures by name, any other server
 * by its tools (one whose name says it changes state makes the server stateful), or as asked.
 */
import { describe, expect, it } from "vitest";
import { fixtureCommand } from "../../src/mcp/fixtures.js";
import { ServerSet } from "../../src/train/servers.js";

/** a bundled fixture started as a plain command line: to the trainer, a third-party server */
const asCommand = (name: "shop" | "calculator") => {
  const { command, args } = fixtureCommand(name);
  return [command, ...args].map((a) => JSON.stringify(a)).join(" ");
};

describe("ServerSet isolation", () => {
  it("isolates a stateful third-party server on auto, and follows on / off", async () => {
    const shop = asCommand("shop");
    const calculator = asCommand("calculator");
    const set = await ServerSet.connect(["fixture:shop", "fixture:calculator", shop, calculator], "auto");
    try {
      expect(set.entries.map((e) => e.isolate)).toEqual([true, false, true, false]);
    } finally {
      await set.close();
    }
    for (const mode of ["on", "off"] as const) {
      const s = await ServerSet.connect([shop, "fixture:calculator"], mode);
      try {
        expect(s.entries.map((e) => e.isolate)).toEqual([mode === "on", mode === "on"]);
      } finally {
        await s.close();
      }
    }
  });
});
