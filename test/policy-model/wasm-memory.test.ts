/**
 * The wasm backend's memory check: the parameter count it reasons from equals the weights a
 * model really has, a lower bound that lets the built-in model train, turns on gradient
 * checkpointing where only that fits and refuses what cannot fit, and the wasm module's abort
 * turned into an error that says what ran out.
 */
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import { resolveConfig } from "../../src/policy/config.js";
import { defaultModelDir } from "../../src/policy/default-model/index.js";
import { assertFitsWasm, assertWeightsFitWasm, explainWasmAbort, parameterCount, trainingMemory, WASM_HEAP_BYTES } from "../../src/policy/wasm-memory.js";
import { initRandomWeights } from "../../src/policy/weights.js";
import { TrainMcpError } from "../../src/errors.js";

const base = { rms_norm_eps: 1e-6, rope_theta: 1e4, max_position_embeddings: 512, hidden_act: "silu" };
const qwen25 = resolveConfig({ ...base, max_position_embeddings: 32768, model_type: "qwen2", vocab_size: 151936, hidden_size: 896, intermediate_size: 4864, num_hidden_layers: 24, num_attention_heads: 14, num_key_value_heads: 2, tie_word_embeddings: true }, "qwen2.5-0.5b");

describe("wasm memory", () => {
  it.each([
    ["tied, GQA", { model_type: "llama", vocab_size: 300, hidden_size: 64, intermediate_size: 96, num_hidden_layers: 3, num_attention_heads: 4, num_key_value_heads: 2, tie_word_embeddings: true }],
    ["untied, head_dim apart", { model_type: "qwen3", vocab_size: 200, hidden_size: 48, intermediate_size: 80, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 4, head_dim: 16, tie_word_embeddings: false }],
    ["every bias (attention_bias, mlp_bias)", { model_type: "llama", vocab_size: 90, hidden_size: 32, intermediate_size: 40, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, tie_word_embeddings: false, attention_bias: true, mlp_bias: true }],
    ["qkv biases", { model_type: "qwen2", vocab_size: 100, hidden_size: 32, intermediate_size: 48, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, tie_word_embeddings: true }],
  ])("counts the parameters a model has (%s)", (_, raw) => {
    const c = resolveConfig({ ...base, ...raw }, "t");
    const total = [...initRandomWeights(c, 0)].reduce((s, [, w]) => s + w.data.length, 0);
    expect(parameterCount(c)).toBe(total);
  });

  it("lets the built-in model train as it is, Qwen2.5-0.5B's adapters only with checkpointing, and refuses its full fine-tuning", () => {
    const tiny = resolveConfig(JSON.parse(fs.readFileSync(`${defaultModelDir()}/config.json`, "utf8")), "default");
    expect(assertFitsWasm(tiny, { loraRank: 0, model: "default" })).toEqual({ checkpointing: false });
    expect(assertFitsWasm(tiny, { loraRank: 0, model: "default", checkpointing: "on" })).toEqual({ checkpointing: true });
    expect(trainingMemory(tiny, { loraRank: 0 }).total).toBeLessThan(WASM_HEAP_BYTES / 4);
    const m = trainingMemory(qwen25, { loraRank: 16 });
    expect(m.weights).toBe(4 * 494_032_768);
    expect(m.optimizer).toBeLessThan(m.weights / 10); // adapters only
    expect(m.activations).toBeGreaterThan(WASM_HEAP_BYTES);
    expect(trainingMemory(qwen25, { loraRank: 0 }).optimizer).toBe(3 * m.weights);
    // recomputed: every layer's [T, D] input and one layer's activations at a time
    const recomputed = trainingMemory(qwen25, { loraRank: 16, checkpointing: true });
    expect(recomputed.activations).toBeLessThan(m.activations / 15);
    expect(recomputed.total).toBeLessThan(WASM_HEAP_BYTES);
    expect(assertFitsWasm(qwen25, { loraRank: 16, model: "q" })).toEqual({ checkpointing: true });

    const refusal = (o: Parameters<typeof assertFitsWasm>[1]) => {
      try {
        assertFitsWasm(qwen25, o);
      } catch (e) {
        expect(e).toBeInstanceOf(TrainMcpError);
        expect((e as TrainMcpError).usage).toBe(true);
        return (e as Error).message;
      }
      throw new Error("not refused");
    };
    // asked not to recompute: refused, and told that checkpointing would fit
    expect(refusal({ loraRank: 16, model: "./Qwen2.5-0.5B", checkpointing: "off" })).toMatch(
      /^--model \.\/Qwen2\.5-0\.5B: training this 494M-parameter model .* needs at least 1\d\.\d GiB .*With gradient checkpointing .* it needs 3\.\d GiB, which fits\.$/,
    );
    // full fine-tuning's optimizer alone is 5.5 GiB: refused either way, with the native backends as the remedy
    expect(refusal({ loraRank: 0, model: "./Qwen2.5-0.5B" })).toMatch(/needs at least 9\.1 GiB .*, with gradient checkpointing\); the wasm heap stops at 4 GiB\. Install @tensorflow\/tfjs-node/);
  });

  it("holds a 0.6B model's weights for inference and refuses a 1.5B model's", () => {
    const qwen3 = resolveConfig({ ...base, model_type: "qwen3", vocab_size: 151936, hidden_size: 1024, intermediate_size: 3072, num_hidden_layers: 28, num_attention_heads: 16, num_key_value_heads: 8, head_dim: 128, tie_word_embeddings: true }, "qwen3-0.6b");
    expect(() => assertWeightsFitWasm(qwen3, "m")).not.toThrow();
    const big = resolveConfig({ ...base, model_type: "qwen2", vocab_size: 151936, hidden_size: 1536, intermediate_size: 8960, num_hidden_layers: 28, num_attention_heads: 12, num_key_value_heads: 2, tie_word_embeddings: true }, "qwen2.5-1.5b");
    expect(() => assertWeightsFitWasm(big, "--model x")).toThrow(/^--model x: this 1544M-parameter model's weights take 5\.8 GiB/);
  });

  it("doubles the attention part with the rollout length", () => {
    const short = trainingMemory(qwen25, { loraRank: 0, rowTokens: 512 }).activations;
    const long = trainingMemory(qwen25, { loraRank: 0, rowTokens: 1024 }).activations;
    expect(long / short).toBeGreaterThan(2); // linear in tokens, and each token attends to twice as many
  });

  it("explains the wasm module's abort, and leaves other errors alone", () => {
    const abort = new Error("Aborted(). Build with -sASSERTIONS for more info.");
    const explained = explainWasmAbort(abort, "wasm");
    expect(explained).toBeInstanceOf(TrainMcpError);
    expect((explained as TrainMcpError).usage).toBe(false);
    expect((explained as Error).message).toContain("most likely out of memory. The wasm heap stops at 4 GiB");
    expect((explained as Error).cause).toBe(abort);
    expect(explainWasmAbort(abort, "tensorflow")).toBe(abort);
    const other = new Error("something else");
    expect(explainWasmAbort(other, "wasm")).toBe(other);
  });
});
