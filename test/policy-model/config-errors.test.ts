/**
 * A config.json train-mcp cannot run is a usage error (exit 2) naming the file and the field:
 * a missing field says it is missing, and a RoPE scaling the engine lacks (Qwen2.5's cards
 * suggest "yarn" for long context) is refused when the folder is read, not mid-run.
 */
import { describe, expect, it } from "vitest";
import { TrainMcpError } from "../../src/errors.js";
import { resolveConfig } from "../../src/policy/config.js";

const base = { model_type: "qwen2", vocab_size: 16, hidden_size: 8, intermediate_size: 12, num_hidden_layers: 2, num_attention_heads: 2, num_key_value_heads: 1 };

function errorOf(cfg: Record<string, unknown>): TrainMcpError {
  try {
    resolveConfig(cfg, "/m/config.json");
  } catch (e) {
    return e as TrainMcpError;
  }
  throw new Error("resolveConfig accepted the config");
}

describe("config.json errors", () => {
  it.each([
    ["a missing field", { ...base, num_attention_heads: undefined }, '/m/config.json: field "num_attention_heads": is missing'],
    ["a field of the wrong type", { ...base, hidden_size: "8" }, '/m/config.json: field "hidden_size": Invalid input: expected number, received string'],
    ["heads that do not divide the width", { ...base, hidden_size: 9 }, "/m/config.json: hidden_size 9 is not divisible by num_attention_heads 2"],
    [
      "another family in a Llama-shaped config",
      { ...base, model_type: "gemma" },
      '/m/config.json: model_type "gemma" is not supported (expected one of llama, mistral, qwen2, qwen3: the architectures train-mcp\'s engine implements)',
    ],
    [
      "yarn RoPE scaling",
      { ...base, rope_scaling: { type: "yarn", factor: 4, original_max_position_embeddings: 32768 } },
      '/m/config.json: field "rope_scaling": RoPE scaling type "yarn" is not supported (supported: default, linear, llama3); remove it to run at the model\'s native context length',
    ],
  ])("%s is a usage error naming the file and field", (_what, cfg, message) => {
    const e = errorOf(cfg);
    expect(e).toBeInstanceOf(TrainMcpError);
    expect(e.usage).toBe(true);
    expect(e.message).toBe(message);
  });

  it("reads linear and llama3 scaling", () => {
    expect(resolveConfig({ ...base, rope_scaling: { rope_type: "linear", factor: 2 } }).ropeScaling).toMatchObject({ factor: 2 });
  });
});
