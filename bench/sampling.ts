/**
 * `npm run bench:sampling`: sampling tokens/s on the reference shape of
 * ../shared/peer/torch_llama_peer.py (vocab 2048, d 256, 4 layers, 4 heads / 2 KV heads, SwiGLU
 * 768, tied embeddings; batch 8, 16-token prompt, 240 new tokens, temperature 1, no early stop)
 * for the onnxruntime sampler, the tfjs sampler and the PyTorch peer, one after the other in the
 * same run (so they do not compete for cores); plus the time to refresh the ORT sampler's weights
 * after a training step, for both ways of carrying them (initializers: rebuild the session from
 * in-memory bytes; inputs: swap the arrays fed each run). The last line is one JSON object.
 *
 * Our figures include the prefill (whole `generate` calls); the peer times decode only, so the
 * ratio is, if anything, unfair to us. The engines take turns: each round runs every engine once
 * (one generate call each, one peer invocation, itself a median of 3 decode runs), so on a shared
 * machine they see the same background load; the figures are medians over rounds, after one
 * warm-up call per engine.
 *
 * Flags: --rounds N (default 3), --threads N (ORT intra-op threads, default all cores),
 * --skip-peer, --skip-tfjs, --skip-input (the weights-as-inputs variant).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { initBackend } from "../src/policy/backend.js";
import { resolveConfig } from "../src/policy/config.js";
import { Transformer } from "../src/policy/model/transformer.js";
import { OrtSampler } from "../src/policy/onnx/ort-sampler.js";
import type { Sampler } from "../src/policy/sampler.js";
import { TfjsSampler } from "../src/policy/tfjs-sampler.js";
import { initRandomWeights, mulberry32 } from "../src/policy/weights.js";

const args = process.argv.slice(2);
const flag = (name: string, dflt: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const ROUNDS = flag("--rounds", 3);
const THREADS = flag("--threads", os.availableParallelism());
const skip = (what: string) => args.includes(`--skip-${what}`);

const V = 2048, D = 256, L = 4, H = 4, KVH = 2, FF = 768, B = 8, PROMPT = 16, GEN = 240;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x: number, d = 3) => (Number.isFinite(x) ? Math.round(x * 10 ** d) / 10 ** d : null);

const config = resolveConfig({
  model_type: "llama", vocab_size: V, hidden_size: D, intermediate_size: FF, num_hidden_layers: L,
  num_attention_heads: H, num_key_value_heads: KVH, rms_norm_eps: 1e-6, rope_theta: 10000,
  max_position_embeddings: 1024, tie_word_embeddings: true,
});
const weights = initRandomWeights(config, 0);
const rand = mulberry32(1);
const prompts = Array.from({ length: B }, () => Array.from({ length: PROMPT }, () => Math.floor(rand() * V)));

/** tokens/s of one whole generate call (prefill included) */
async function sampleRate(s: Sampler, seed: number): Promise<number> {
  const t0 = performance.now();
  const out = await s.generate(prompts, { maxTokens: GEN, temperature: 1, topP: 1, topK: 0, stop: [], seed });
  const n = out.reduce((sum, r) => sum + r.ids.length, 0);
  if (n !== B * GEN) throw new Error(`expected ${B * GEN} tokens, got ${n}`);
  return n / ((performance.now() - t0) / 1000);
}

async function refreshMs(s: OrtSampler, n = 5): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const w = initRandomWeights(config, 100 + i); // outside the timer: the trainer already has them
    const t0 = performance.now();
    await s.updateWeights(w);
    times.push(performance.now() - t0);
  }
  return median(times);
}

function peerScript(): string | null {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const script = path.resolve(root, "..", "shared", "peer", "torch_llama_peer.py");
  return fs.existsSync(script) ? script : null;
}

/** one peer invocation: its sample_tok_s is itself a median of 3 decode runs */
function peerOnce(script: string): { tok: number; detail: string } | { error: string } {
  const r = spawnSync("/usr/bin/python3", [script, "--torch-threads", "1"], {
    env: { ...process.env, OPENBLAS_NUM_THREADS: "2" },
    encoding: "utf8",
    timeout: 600_000,
  });
  if (r.status !== 0) return { error: `peer exited ${r.status}: ${(r.stderr || String(r.error)).slice(-500)}` };
  const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as { sample_tok_s: number; torch: string; matmul1024_gflops: number };
  return { tok: out.sample_tok_s, detail: `torch ${out.torch}, 1 thread, OpenBLAS 2, matmul1024 ${out.matmul1024_gflops} GFLOP/s` };
}

// engines, each warmed up once
const ortInit = await OrtSampler.create({ config, weights, eosTokenIds: [], weightsAs: "initializer", session: { intraOpThreads: THREADS } });
await sampleRate(ortInit, 0);
const ortInput = skip("input") ? null : await OrtSampler.create({ config, weights, eosTokenIds: [], weightsAs: "input", session: { intraOpThreads: THREADS } });
if (ortInput) await sampleRate(ortInput, 0);
let tfjsBackend = "";
let tfjsSampler: TfjsSampler | null = null;
let tfjsModel: Transformer | null = null;
if (!skip("tfjs")) {
  tfjsBackend = await initBackend({ device: "wasm" });
  tfjsModel = new Transformer(config, weights);
  tfjsSampler = new TfjsSampler(tfjsModel, { decode: () => "", eosTokenIds: [], batchSize: B });
  await sampleRate(tfjsSampler, 0);
}
const script = skip("peer") ? null : peerScript();
let peerError: string | null = skip("peer") ? "skipped" : script ? null : "peer script not found (../shared/peer/torch_llama_peer.py)";
let peerDetail = "";

// rounds: every engine once per round, so each sees the same background load (the machine may be
// shared); medians over rounds
const rates = { ort: [] as number[], input: [] as number[], tfjs: [] as number[], peer: [] as number[] };
for (let r = 1; r <= ROUNDS; r++) {
  rates.ort.push(await sampleRate(ortInit, r));
  if (ortInput) rates.input.push(await sampleRate(ortInput, r));
  if (tfjsSampler) rates.tfjs.push(await sampleRate(tfjsSampler, r));
  if (script && !peerError) {
    const p = peerOnce(script);
    if ("error" in p) peerError = p.error;
    else {
      rates.peer.push(p.tok);
      peerDetail = p.detail;
    }
  }
  const fmt = (xs: number[]) => (xs.length ? String(Math.round(xs.at(-1)!)) : "-");
  console.log(`round ${r}/${ROUNDS}: ort ${fmt(rates.ort)}, ort(inputs) ${fmt(rates.input)}, tfjs ${fmt(rates.tfjs)}, peer ${fmt(rates.peer)} tok/s (load ${os.loadavg()[0].toFixed(1)})`);
}
const refresh = await refreshMs(ortInit);
const refreshInput = ortInput ? await refreshMs(ortInput) : NaN;
await ortInit.close();
await ortInput?.close();
tfjsModel?.dispose();

const o = { tok: median(rates.ort), refresh };
console.log(`ort (weights as initializers, ${THREADS} intra-op threads): ${Math.round(o.tok)} tok/s, refresh ${o.refresh.toFixed(1)} ms (session rebuilt from memory)`);
const oi = ortInput ? { tok: median(rates.input), refresh: refreshInput } : null;
if (oi) console.log(`ort (weights as inputs): ${Math.round(oi.tok)} tok/s, refresh ${oi.refresh.toFixed(1)} ms`);
const t = tfjsSampler ? { tok: median(rates.tfjs), backend: tfjsBackend } : null;
if (t) console.log(`tfjs (${t.backend}): ${Math.round(t.tok)} tok/s`);
const peerTok = rates.peer.length ? median(rates.peer) : NaN;
if (peerError) console.log(`peer: ${peerError}`);
else console.log(`peer (${peerDetail}): ${peerTok} tok/s (decode only)`);

const result = {
  ort_tok_s: Math.round(o.tok),
  tfjs_tok_s: t ? Math.round(t.tok) : null,
  peer_tok_s: Number.isFinite(peerTok) ? peerTok : null,
  ort_ratio: round(o.tok / peerTok),
  ort_vs_tfjs: t ? round(o.tok / t.tok) : null,
  refresh_ms: round(o.refresh, 1),
  ort_input_tok_s: oi ? Math.round(oi.tok) : null,
  refresh_input_ms: oi ? round(oi.refresh, 1) : null,
  ort_threads: THREADS,
  rounds: ROUNDS,
  load_avg_1m: round(os.loadavg()[0], 2),
  shape: { vocab: V, dim: D, layers: L, heads: H, kv_heads: KVH, ffn: FF, batch: B, prompt: PROMPT, gen: GEN },
};
console.log(`ratios: ort/peer ${result.ort_ratio}, ort/tfjs ${result.ort_vs_tfjs}`);
console.log(JSON.stringify(result));
// with wasm threads, the pthread workers would keep the process alive after the figures
process.exit(0);
