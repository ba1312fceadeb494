/**
 * `npm run bench:engine`: the reference shape of ../shared/peer/torch_llama_peer.py (vocab 2048,
 * d 256, 4 layers, 4 heads / 2 KV heads, SwiGLU 768, tied embeddings, batch 8, seq 256) trained
 * (forward + backward + Adam, causal LM loss) and sampled (prompt 16, 240 new tokens, KV cache)
 * in our tfjs engine, then the PyTorch peer on the same machine in the same run (sequentially, so
 * they do not compete for cores). Prints medians and ratios; the last line is one JSON object.
 *
 * The machine may be shared, so the engines alternate: each round times RUNS train steps and one
 * generation of ours, then one peer process (itself a median of 5 steps and 3 generations);
 * the figures are medians over all rounds.
 *
 * Flags: --rounds N (default 3), --runs N (our train steps per round, default 3), --skip-peer,
 * --threads N (wasm threads, default 2: the peer's best configuration uses two cores too — one
 * torch thread with two OpenBLAS threads; 1 loads the single-threaded build, see backend.ts).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import * as tf from "@tensorflow/tfjs-core";
import { initBackend } from "../src/policy/backend.js";
import { resolveConfig } from "../src/policy/config.js";
import { Transformer } from "../src/policy/model/transformer.js";
import { TfjsSampler } from "../src/policy/tfjs-sampler.js";
import { Trainable } from "../src/policy/trainable.js";
import { mulberry32 } from "../src/policy/weights.js";

const args = process.argv.slice(2);
const flag = (name: string, dflt: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const RUNS = flag("--runs", 3);
const ROUNDS = flag("--rounds", 3);
const THREADS = flag("--threads", 2);
const SKIP_PEER = args.includes("--skip-peer");
const V = 2048, D = 256, L = 4, H = 4, KVH = 2, FF = 768, B = 8, T = 256, PROMPT = 16, GEN = 240;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Ours {
  backend: string;
  params: number;
  trainStep: () => number; // seconds
  sampleRate: (seed: number) => Promise<number>; // tokens/s
  dispose: () => void;
}

async function ours(): Promise<Ours> {
  const backend = await initBackend({ device: "wasm", threads: THREADS });
  const config = resolveConfig({
    model_type: "llama", vocab_size: V, hidden_size: D, intermediate_size: FF, num_hidden_layers: L,
    num_attention_heads: H, num_key_value_heads: KVH, rms_norm_eps: 1e-6, rope_theta: 10000,
    max_position_embeddings: 1024, tie_word_embeddings: true,
  });
  const model = Transformer.random(config, 0);
  const params = [...model.params.values()].reduce((s, v) => s + v.size, 0);
  const tr = new Trainable(model, { lr: 1e-3, maxGradNorm: 0 });
  const rand = mulberry32(1);
  const ids = Array.from({ length: B }, () => Array.from({ length: T + 1 }, () => Math.floor(rand() * V)));
  const loss = (logp: tf.Tensor2D) => tf.neg(tf.mean(logp)) as tf.Scalar; // cross-entropy
  const sampler = new TfjsSampler(model, { decode: () => "", eosTokenIds: [], batchSize: B });
  const prompts = Array.from({ length: B }, () => Array.from({ length: PROMPT }, () => Math.floor(rand() * V)));
  tr.step([{ ids }], loss); // warm-up (first call packs kernels, allocates moments)
  return {
    backend,
    params,
    trainStep: () => {
      const t0 = performance.now();
      tr.step([{ ids }], loss);
      return (performance.now() - t0) / 1000;
    },
    sampleRate: async (seed) => {
      const t0 = performance.now();
      const out = await sampler.generate(prompts, { maxTokens: GEN, temperature: 1, topP: 1, topK: 0, stop: [], seed });
      const n = out.reduce((s, r) => s + r.ids.length, 0);
      return n / ((performance.now() - t0) / 1000); // prefill included (the peer times decode only)
    },
    dispose: () => {
      tr.dispose();
      model.dispose();
    },
  };
}

function peer(): Record<string, unknown> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const script = path.resolve(root, "..", "shared", "peer", "torch_llama_peer.py");
  if (!fs.existsSync(script)) return { error: `peer script not found at ${script}` };
  const r = spawnSync("/usr/bin/python3", [script, "--torch-threads", "1"], {
    env: { ...process.env, OPENBLAS_NUM_THREADS: "2" },
    encoding: "utf8",
    timeout: 600_000,
  });
  if (r.status !== 0) return { error: `peer exited ${r.status}: ${(r.stderr || String(r.error)).slice(-500)}` };
  const last = r.stdout.trim().split("\n").at(-1)!;
  return JSON.parse(last) as Record<string, unknown>;
}

// The machine may be shared: alternate the engines, round by round, so both see similar load.
const o = await ours();
const steps: number[] = [], srates: number[] = [], peers: Record<string, unknown>[] = [];
let peerError = "";
for (let r = 0; r < ROUNDS; r++) {
  for (let i = 0; i < RUNS; i++) steps.push(o.trainStep());
  srates.push(await o.sampleRate(r));
  console.log(`round ${r + 1}/${ROUNDS} ours: train ${Math.round((B * T) / median(steps.slice(-RUNS)))} tok/s, sample ${Math.round(srates.at(-1)!)} tok/s`);
  if (SKIP_PEER) continue;
  const p = peer();
  if ("error" in p) {
    peerError = String(p.error);
    console.log(`peer: ${peerError}`);
    continue;
  }
  peers.push(p);
  console.log(`round ${r + 1}/${ROUNDS} peer (torch ${p.torch}, 1 thread, OpenBLAS 2): train ${p.train_tok_s} tok/s (${p.train_step_ms} ms/step), sample ${p.sample_tok_s} tok/s, matmul1024 ${p.matmul1024_gflops} GFLOP/s`);
}
o.dispose();
const step = median(steps);
const trainTok = Math.round((B * T) / step), sampleTok = Math.round(median(srates));
const pt = peers.length ? median(peers.map((p) => Number(p.train_tok_s))) : NaN;
const ps = peers.length ? median(peers.map((p) => Number(p.sample_tok_s))) : NaN;
console.log(`ours (tfjs ${o.backend}, ${THREADS} thread(s), ${o.params} params): train ${trainTok} tok/s (median ${Math.round(step * 1000)} ms/step over ${steps.length}), sample ${sampleTok} tok/s (median of ${srates.length})`);
if (peers.length) console.log(`peer: train ${pt} tok/s, sample ${ps} tok/s (medians of ${peers.length} runs)`);
const round = (x: number) => (Number.isFinite(x) ? Math.round(x * 1000) / 1000 : null);
const result = {
  train_tok_s: trainTok,
  peer_train_tok_s: Number.isFinite(pt) ? pt : null,
  train_ratio: round(trainTok / pt),
  sample_tok_s: sampleTok,
  peer_sample_tok_s: Number.isFinite(ps) ? ps : null,
  sample_ratio: round(sampleTok / ps),
  train_step_ms: Math.round(step * 1000),
  backend: o.backend,
  threads: THREADS,
  rounds: ROUNDS,
  peer_error: peerError || undefined,
  params: o.params,
  shape: { vocab: V, dim: D, layers: L, heads: H, kv_heads: KVH, ffn: FF, batch: B, seq: T },
};
console.log(`ratios: train ${result.train_ratio}, sample ${result.sample_ratio}`);
console.log(JSON.stringify(result));
// with wasm threads, the pthread workers would keep the process alive after the figures
process.exit(0);
