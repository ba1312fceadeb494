/** The run config's cross-field rules: what needs what, and what is derived from what. */
import { describe, expect, it } from "vitest";
import { resolveTrainConfig } from "../../src/train/config.js";

const server = ["fixture:calculator"];

describe("resolveTrainConfig", () => {
  it("rejects a KL coefficient without LoRA, naming the field and the source", () => {
    expect(() => resolveTrainConfig({ beta: 0.04 }, { server }, "train.json")).toThrow(/train\.json: field "beta": beta = 0\.04 needs a reference model: set lora_rank > 0/);
    expect(resolveTrainConfig({ beta: 0.04, lora_rank: 8 }, { server }).beta).toBe(0.04);
  });

  it("takes dr_grpo's divisor from the rollout's token limits unless one is given", () => {
    expect(resolveTrainConfig({}, { server, max_turns: 3, max_tokens_per_turn: 64 }).max_completion_length).toBe(192);
    expect(resolveTrainConfig({ max_completion_length: 100 }, { server, max_turns: 3 }).max_completion_length).toBe(100);
  });

  it("names an unknown field instead of ignoring it", () => {
    expect(() => resolveTrainConfig({}, { server, num_iteration: 2 }, "train.json")).toThrow(/train\.json: .*num_iteration/);
  });

  it("reads gradient_checkpointing as TRL writes it (a boolean) or as auto/on/off, auto by default", () => {
    expect(resolveTrainConfig({}, { server }).gradient_checkpointing).toBe("auto");
    expect(resolveTrainConfig({}, { server, gradient_checkpointing: true }).gradient_checkpointing).toBe("on");
    expect(resolveTrainConfig({}, { server, gradient_checkpointing: false }).gradient_checkpointing).toBe("off");
    expect(resolveTrainConfig({ gradient_checkpointing: "off" }, { server, gradient_checkpointing: true }).gradient_checkpointing).toBe("off");
    expect(() => resolveTrainConfig({}, { server, gradient_checkpointing: "yes" }, "train.json")).toThrow(/train\.json: field "gradient_checkpointing"/);
  });
});
