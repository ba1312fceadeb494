/**
 * `npm run bench:gradient-checkpointing`: what recomputing each layer's activations in the
 * backward pass (gradient_checkpointing) saves and costs, on the tfjs wasm backend.
 *
 * Default: the built-in model's shape (d 256, 4 layers, vocab 2048) on one GRPO-shaped
 * micro-batch (bench:grpo-batch's: 8 rollouts sharing a 250-token prompt, 120 tokens each after
 * it, 40 of them the policy's): forward + backward of the masked log-prob loss with and without
 * checkpointing, medians of --runs N, and tfjs's peak tensor bytes of each.
 *
 * `--shape qwen2.5-0.5b [--tokens 1024] [--lora 16]`: one rollout of that many tokens (the last
 * eighth of them the policy's) through a randomly initialised Qwen2.5-0.5B-shaped model with LoRA
 * adapters: whether a training step fits the 4 GiB wasm heap each way, the heap's size after, and
 * the step's time. Without checkpointing it is expected to run out of memory (a clear error).
 * The last line is one JSON object.
 */
import * as tf from "@tensorflow/tfjs-core";
import { initBackend } from "../src/policy/backend.js";
import { resolveConfig } from "../src/policy/config.js";
import { Transformer } from "../src/policy/model/transformer.js";
import { trainingMemory } from "../src/policy/wasm-memory.js";
import { mulberry32 } from "../src/policy/weights.js";

const args = process.argv.slice(2);
const flag = (name: string, dflt: string) => (args.includes(name) ? args[args.indexOf(name) + 1] ?? dflt : dflt);
const RUNS = Number(flag("--runs", "5"));
const SHAPE = flag("--shape", "default");
await initBackend({ device: "wasm" });
const heapBytes = () => (tf.backend() as unknown as { wasm: { HEAPU8: Uint8Array } }).wasm.HEAPU8.length;
const gib = (b: number) => +(b / 2 ** 30).toFixed(2);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const masked = (logp: tf.Tensor2D, m: number[][]) => tf.neg(tf.sum(tf.mul(logp, tf.tensor2d(m, logp.shape)))) as tf.Scalar;

function step(model: Transformer, ids: number[][], mask: number[][]): number {
  const vars = [...model.trainableVariables().values()];
  model.training = true;
  try {
    const t0 = performance.now();
    const { value, grads } = tf.variableGrads(() => masked(model.tokenLogprobs(ids, { only: mask }).logp, mask), vars);
    value.dataSync();
    tf.dispose([value, ...Object.values(grads)]);
    return performance.now() - t0;
  } finally {
    model.training = false;
  }
}

if (SHAPE === "default") {
  const V = 2048, G = 8, PROMPT = 250, TAIL = 120;
  const config = resolveConfig({ model_type: "llama", vocab_size: V, hidden_size: 256, intermediate_size: 768, num_hidden_layers: 4, num_attention_heads: 4, num_key_value_heads: 2, head_dim: 64, rms_norm_eps: 1e-6, rope_theta: 10000, max_position_embeddings: 2048, tie_word_embeddings: true });
  const model = Transformer.random(config, 0);
  const rand = mulberry32(3);
  const tok = () => Math.floor(rand() * V);
  const prompt = Array.from({ length: PROMPT }, tok);
  const ids = Array.from({ length: G }, () => [...prompt, ...Array.from({ length: TAIL }, tok)]);
  const mask = ids.map((r) => Array.from({ length: r.length - 1 }, (_, t) => ((t >= PROMPT - 1 && t < PROMPT + 19) || t >= r.length - 21 ? 1 : 0)));
  const out: Record<string, number> = {};
  for (const on of [false, true]) {
    model.gradientCheckpointing = on;
    const name = on ? "checkpointed" : "kept";
    step(model, ids, mask); // warm-up
    out[`${name}_ms`] = Math.round(median(Array.from({ length: RUNS }, () => step(model, ids, mask))));
    const profile = await tf.profile(() => void step(model, ids, mask));
    out[`${name}_peak_mib`] = +(profile.peakBytes / 2 ** 20).toFixed(1);
    console.log(`${name}: ${out[`${name}_ms`]} ms, peak ${out[`${name}_peak_mib`]} MiB of tensors (forward + backward, ${G} x ${PROMPT + TAIL} tokens)`);
  }
  console.log(JSON.stringify({ shape: SHAPE, runs: RUNS, ...out, time_ratio: +(out.checkpointed_ms / out.kept_ms).toFixed(2), peak_ratio: +(out.checkpointed_peak_mib / out.kept_peak_mib).toFixed(2) }));
} else if (SHAPE === "qwen2.5-0.5b") {
  const T = Number(flag("--tokens", "1024")), R = Number(flag("--lora", "16"));
  const config = resolveConfig({ model_type: "qwen2", vocab_size: 151936, hidden_size: 896, intermediate_size: 4864, num_hidden_layers: 24, num_attention_heads: 14, num_key_value_heads: 2, rms_norm_eps: 1e-6, rope_theta: 1e6, max_position_embeddings: 32768, tie_word_embeddings: true }, SHAPE);
  const t0 = performance.now();
  const model = Transformer.random(config, 0);
  model.enableLora({ r: R, alpha: 2 * R, dropout: 0, targetModules: ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"], seed: 1 });
  console.log(`model ready in ${((performance.now() - t0) / 1000).toFixed(0)} s; heap ${gib(heapBytes())} GiB`);
  const rand = mulberry32(3);
  const ids = [Array.from({ length: T }, () => Math.floor(rand() * 150000))];
  const mask = [Array.from({ length: T - 1 }, (_, t) => (t >= T - 1 - Math.floor(T / 8) ? 1 : 0))];
  const out: Record<string, unknown> = { shape: SHAPE, tokens: T, lora_rank: R };
  // checkpointed first: the run that runs out of memory may leave the heap grown
  for (const on of [true, false]) {
    const name = on ? "checkpointed" : "kept";
    model.gradientCheckpointing = on;
    const estimate = gib(trainingMemory(config, { loraRank: R, rowTokens: T, checkpointing: on }).total);
    try {
      const ms = step(model, ids, mask);
      out[name] = { fits: true, s: +(ms / 1000).toFixed(1), heap_gib: gib(heapBytes()), estimate_gib: estimate };
    } catch (e) {
      out[name] = { fits: false, error: (e as Error).message.slice(0, 160), heap_gib: gib(heapBytes()), estimate_gib: estimate };
    }
    console.log(`${name}: ${JSON.stringify(out[name])}`);
  }
  console.log(JSON.stringify(out));
} else {
  console.error(`--shape ${SHAPE}: expected "default" or "qwen2.5-0.5b"`);
  process.exit(2);
}
process.exit(0);
