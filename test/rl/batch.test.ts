/** lossBatch: the one-token shift, padding, truncation flags and the token count. */
import { describe, expect, it } from "vitest";
import { lossBatch } from "../../src/rl/batch.js";

describe("lossBatch", () => {
  it("shifts mask and sampler log-probs by one token and right-pads", () => {
    const b = lossBatch([
      { tokenIds: [1, 2, 3, 4], assistantMask: [0, 0, 1, 1], sampleLogprobs: [0, 0, -0.5, -0.25], finish: "answer" },
      { tokenIds: [1, 9, 8], assistantMask: [0, 1, 1], sampleLogprobs: [0, -1, -2], finish: "max_tokens" },
    ]);
    expect(b.mask).toEqual([[0, 1, 1], [1, 1, 0]]);
    expect(b.samplerLogp).toEqual([[0, -0.5, -0.25], [-1, -2, 0]]);
    expect(b.truncated).toEqual([false, true]);
    expect(b.tokens).toBe(4);
    expect(b.ids[1]).toEqual([1, 9, 8]);
  });

  it("rejects rows whose arrays disagree in length, naming the row", () => {
    expect(() => lossBatch([{ tokenIds: [1, 2], assistantMask: [0], sampleLogprobs: [0, 0], finish: "answer" }])).toThrow(/trajectory 0 has 2 tokens, 1 mask/);
  });
});
