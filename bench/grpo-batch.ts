/**
 * `npm run bench:grpo-batch`: one GRPO-shaped micro-batch on the built-in model's shape (d 256,
 * 4 layers, vocab 2048): G = 8 rollouts of one task sharing a 250-token prompt (system prompt,
 * tools block, task), each followed by 120 tokens of which 40 are the policy's own (the rest a
 * tool result). Times forward + backward of the masked log-prob loss three ways: the whole
 * sequence through the LM head (no `only`), the head only where the loss reads (`only`,
 * `sharePrefix: false`), and the default (`only`, the shared prefix run once). Medians of --runs N (default 5); the last line is one JSON object.
 */
import * as tf from "@tensorflow/tfjs-core";
import { initBackend } from "../src/policy/backend.js";
import { resolveConfig } from "../src/policy/config.js";
import { Transformer } from "../src/policy/model/transformer.js";
import { mulberry32 } from "../src/policy/weights.js";

const args = process.argv.slice(2);
const flag = (name: string, dflt: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) || dflt : dflt);
const RUNS = flag("--runs", 5);
const THREADS = flag("--threads", 1);
await initBackend({ device: "wasm", threads: THREADS });
const V = 2048, G = 8, PROMPT = 250, TAIL = 120;
const config = resolveConfig({ model_type: "llama", vocab_size: V, hidden_size: 256, intermediate_size: 768, num_hidden_layers: 4, num_attention_heads: 4, num_key_value_heads: 2, head_dim: 64, rms_norm_eps: 1e-6, rope_theta: 10000, max_position_embeddings: 2048, tie_word_embeddings: true });
const model = Transformer.random(config, 0);
const vars = [...model.trainableVariables().values()];
const rand = mulberry32(3);
const tok = () => Math.floor(rand() * V);
const prompt = Array.from({ length: PROMPT }, tok);
const ids = Array.from({ length: G }, () => [...prompt, ...Array.from({ length: TAIL }, tok)]);
// the policy's tokens: positions predicting 20 tokens right after the prompt and the last 20
const mask = ids.map((r) => Array.from({ length: r.length - 1 }, (_, t) => ((t >= PROMPT - 1 && t < PROMPT + 19) || t >= r.length - 21 ? 1 : 0)));
const masked = (logp: tf.Tensor2D, m: number[][]) => tf.neg(tf.sum(tf.mul(logp, tf.tensor2d(m, logp.shape)))) as tf.Scalar;

function time(fn: () => tf.Scalar): number {
  const t0 = performance.now();
  const { value, grads } = tf.variableGrads(fn, vars);
  value.dataSync();
  tf.dispose([value, ...Object.values(grads)]);
  return performance.now() - t0;
}
const variants: Record<string, () => tf.Scalar> = {
  full: () => masked(model.tokenLogprobs(ids).logp, mask),
  head_only: () => masked(model.tokenLogprobs(ids, { only: mask, sharePrefix: false }).logp, mask),
  shared_prefix: () => masked(model.tokenLogprobs(ids, { only: mask }).logp, mask),
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms: Record<string, number> = {};
for (const [name, fn] of Object.entries(variants)) {
  time(fn); // warm-up
  ms[name] = median(Array.from({ length: RUNS }, () => time(fn)));
  console.log(`${name}: ${ms[name].toFixed(0)} ms (forward + backward, ${G} x ${PROMPT + TAIL} tokens)`);
}
console.log(JSON.stringify({ threads: THREADS, runs: RUNS, full_ms: Math.round(ms.full), head_only_ms: Math.round(ms.head_only), shared_prefix_ms: Math.round(ms.shared_prefix), speedup_vs_full: +(ms.full / ms.shared_prefix).toFixed(2) }));
// with wasm threads, the pthread workers would keep the process alive after the figures
process.exit(0);
