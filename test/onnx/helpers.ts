/**
 * Shared helpers for the ONNX engine tests: four small configs that cover the architecture's
 * branches (GQA with tied head, Qwen2 biases with an untied head, Qwen3 q/k norms, Llama biases
 * on every projection with linear rope scaling and multi-query attention), seeded random
 * weights with non-trivial biases and norm scales (initRandomWeights leaves them at 0 and 1, which
 * would hide a mix-up), and the error metrics.
 */
import { resolveConfig, type ModelConfig } from "../../src/policy/config.js";
import { initRandomWeights, mulberry32, type NamedWeights } from "../../src/policy/weights.js";

export const CASES: Record<string, ModelConfig> = {
  "llama-gqa-tied": resolveConfig({ model_type: "llama", vocab_size: 96, hidden_size: 32, intermediate_size: 40, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, tie_word_embeddings: true, rope_theta: 10000, max_position_embeddings: 128 }),
  "qwen2-bias-untied": resolveConfig({ model_type: "qwen2", vocab_size: 80, hidden_size: 48, intermediate_size: 64, num_hidden_layers: 2, num_attention_heads: 6, num_key_value_heads: 2, tie_word_embeddings: false, rope_theta: 1000000, max_position_embeddings: 128 }),
  "qwen3-qknorm-mha": resolveConfig({ model_type: "qwen3", vocab_size: 72, hidden_size: 32, intermediate_size: 48, num_hidden_layers: 3, num_attention_heads: 2, num_key_value_heads: 2, head_dim: 24, tie_word_embeddings: true, rms_norm_eps: 1e-5, max_position_embeddings: 128 }),
  "llama-allbias-linear-rope": resolveConfig({ model_type: "llama", vocab_size: 64, hidden_size: 32, intermediate_size: 40, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 1, tie_word_embeddings: false, attention_bias: true, mlp_bias: true, rope_scaling: { rope_type: "linear", factor: 2 }, max_position_embeddings: 128 }),
};

/** Random weights (std 0.2 so the logits are far from uniform), biases and norm scales perturbed. */
export function randomWeights(c: ModelConfig, seed: number): NamedWeights {
  const w = initRandomWeights(c, seed, 0.2);
  const rand = mulberry32(seed + 1000);
  for (const [name, t] of w) {
    if (name.endsWith(".bias")) for (let i = 0; i < t.data.length; i++) t.data[i] = (rand() - 0.5) * 0.4;
    if (name.endsWith("norm.weight")) for (let i = 0; i < t.data.length; i++) t.data[i] = 0.7 + 0.6 * rand();
  }
  return w;
}

/** Seeded token ids in [1, V). */
export function randomIds(n: number, V: number, seed: number): number[] {
  const rand = mulberry32(seed);
  return Array.from({ length: n }, () => 1 + Math.floor(rand() * (V - 1)));
}

/** max|a - b| / (max|b| + 1e-8): the same error metric as the policy-model tests. */
export { relErr } from "../policy-model/helpers.js";

export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`length ${a.length} vs ${b.length}`);
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
  return d;
}

/** Log-softmax of every row of a [N, V] block, float64. */
export function logSoftmaxRows(logits: ArrayLike<number>, V: number): Float64Array {
  const out = new Float64Array(logits.length);
  for (let r = 0; r < logits.length / V; r++) {
    let max = -Infinity;
    for (let v = 0; v < V; v++) max = Math.max(max, logits[r * V + v]);
    let z = 0;
    for (let v = 0; v < V; v++) z += Math.exp(logits[r * V + v] - max);
    const lse = max + Math.log(z);
    for (let v = 0; v < V; v++) out[r * V + v] = logits[r * V + v] - lse;
  }
  return out;
}
