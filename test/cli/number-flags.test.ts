/** Numeric flags: one message shape for every command, and no silent 0 for an empty value. */
import { describe, expect, it } from "vitest";
import { intFlag, numberFlag } from "../../src/cli/number-flags.js";

describe("numeric flags", () => {
  it("parses what is in range", () => {
    expect(intFlag("--k", "4", 1)).toBe(4);
    expect(intFlag("--port", "0", 0, 65535)).toBe(0);
    expect(numberFlag("--temperature", "0.7", 0)).toBe(0.7);
    expect(numberFlag("--lr", "-1e-3")).toBe(-0.001);
  });

  it.each([
    [() => intFlag("--k", "0", 1), '--k expects a whole number of at least 1, got "0"'],
    [() => intFlag("--seed", "", 0), '--seed expects a whole number of at least 0, got ""'],
    [() => intFlag("--n", "2.5", 1), '--n expects a whole number of at least 1, got "2.5"'],
    [() => intFlag("--port", "70000", 0, 65535), '--port expects a whole number from 0 to 65535, got "70000"'],
    [() => numberFlag("--test-fraction", "1.5", 0, 1), '--test-fraction expects a number from 0 to 1, got "1.5"'],
    [() => numberFlag("--temperature", "abc", 0), '--temperature expects a number of at least 0, got "abc"'],
    [() => numberFlag("--steps", " "), '--steps expects a number, got " "'],
  ])("refuses with a usage error naming the flag: %#", (parse, message) => {
    expect(parse).toThrow(message);
    try {
      parse();
    } catch (e) {
      expect((e as { usage: boolean }).usage).toBe(true);
    }
  });
});
