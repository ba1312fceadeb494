/**
 * Model weights by Hugging Face tensor name, as plain float32 arrays: the one exchange format
 * between the tfjs engine, the ONNX engine, checkpoints and exports. Names and [out, in] layouts
 * follow transformers' `modeling_qwen2.py` / `modeling_llama.py` / `modeling_qwen3.py`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { TrainMcpError } from "../errors.js";
import { resolveConfig, type ModelConfig } from "./config.js";
import { readSafetensors, writeFileAtomic, writeSafetensors, type FloatTensor } from "./safetensors.js";
import { makeDirs } from "../fs-dirs.js";

export type NamedWeights = Map<string, FloatTensor>;

/** Every tensor the model needs, with its HF shape ([out, in] for Linear weights). */
export function weightShapes(c: ModelConfig): Map<string, number[]> {
  const s = new Map<string, number[]>();
  const D = c.hiddenSize, hd = c.headDim, q = c.numHeads * hd, kv = c.numKvHeads * hd, I = c.intermediateSize;
  // Llama/Qwen3 `attention_bias: true` puts a bias on all four projections (Qwen2: q/k/v only,
  // via c.qkvBias); Llama's `mlp_bias: true` on the three MLP projections
  const oBias = c.raw.attention_bias === true;
  const mlpBias = (c.raw as Record<string, unknown>).mlp_bias === true;
  s.set("model.embed_tokens.weight", [c.vocabSize, D]);
  for (let l = 0; l < c.numLayers; l++) {
    const p = `model.layers.${l}.`;
    s.set(p + "input_layernorm.weight", [D]);
    s.set(p + "self_attn.q_proj.weight", [q, D]);
    s.set(p + "self_attn.k_proj.weight", [kv, D]);
    s.set(p + "self_attn.v_proj.weight", [kv, D]);
    if (c.qkvBias) {
      s.set(p + "self_attn.q_proj.bias", [q]);
      s.set(p + "self_attn.k_proj.bias", [kv]);
      s.set(p + "self_attn.v_proj.bias", [kv]);
    }
    if (c.qkNorm) {
      s.set(p + "self_attn.q_norm.weight", [hd]);
      s.set(p + "self_attn.k_norm.weight", [hd]);
    }
    s.set(p + "self_attn.o_proj.weight", [D, q]);
    if (oBias) s.set(p + "self_attn.o_proj.bias", [D]);
    s.set(p + "post_attention_layernorm.weight", [D]);
    s.set(p + "mlp.gate_proj.weight", [I, D]);
    s.set(p + "mlp.up_proj.weight", [I, D]);
    s.set(p + "mlp.down_proj.weight", [D, I]);
    if (mlpBias) {
      s.set(p + "mlp.gate_proj.bias", [I]);
      s.set(p + "mlp.up_proj.bias", [I]);
      s.set(p + "mlp.down_proj.bias", [D]);
    }
  }
  s.set("model.norm.weight", [D]);
  if (!c.tieWordEmbeddings) s.set("lm_head.weight", [c.vocabSize, D]);
  return s;
}

/** mulberry32: a tiny seeded PRNG, enough for reproducible initialization. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Deterministic init: N(0, 0.02) for matrices (GPT-2/Llama `initializer_range`), norms 1, biases 0. */
export function initRandomWeights(c: ModelConfig, seed: number, std = 0.02): NamedWeights {
  const rand = mulberry32(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand()); // Box-Muller
  const out: NamedWeights = new Map();
  for (const [name, shape] of weightShapes(c)) {
    const n = shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n);
    if (name.endsWith("norm.weight")) data.fill(1);
    else if (!name.endsWith(".bias")) for (let i = 0; i < n; i++) data[i] = gauss() * std;
    out.set(name, { shape, data });
  }
  return out;
}

/** Checks names and shapes against the config; drops a redundant lm_head of a tied model. */
export function validateWeights(c: ModelConfig, w: NamedWeights, where: string): NamedWeights {
  const want = weightShapes(c);
  for (const [name, shape] of want) {
    const t = w.get(name);
    if (!t) throw new TrainMcpError("ModelInvalid", `${where}: tensor "${name}" is missing`);
    if (t.shape.join(",") !== shape.join(","))
      throw new TrainMcpError("ModelInvalid", `${where}: tensor "${name}" has shape [${t.shape}], expected [${shape}]`);
  }
  const out: NamedWeights = new Map();
  for (const name of want.keys()) out.set(name, w.get(name)!);
  return out;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (e) {
    throw new TrainMcpError("ModelInvalid", `${file}: ${(e as Error).message}`, true, { cause: e });
  }
}

/** The folder holds weights: `model.safetensors` or a sharded `model.safetensors.index.json`. */
export function hasWeights(dir: string): boolean {
  return fs.existsSync(path.join(dir, "model.safetensors")) || fs.existsSync(path.join(dir, "model.safetensors.index.json"));
}

/** A model folder's `config.json`, checked. */
export function readModelConfig(dir: string): ModelConfig {
  const cfgFile = path.join(dir, "config.json");
  if (!fs.existsSync(cfgFile)) throw new TrainMcpError("ModelInvalid", `${dir}: no config.json (expected a Hugging Face model folder)`);
  return resolveConfig(readJson(cfgFile), cfgFile);
}

/** Loads `config.json` plus `model.safetensors` or the sharded `model.safetensors.index.json`. */
export async function loadCheckpoint(dir: string): Promise<{ config: ModelConfig; weights: NamedWeights }> {
  const config = readModelConfig(dir);
  const all: NamedWeights = new Map();
  const index = path.join(dir, "model.safetensors.index.json");
  if (fs.existsSync(index)) {
    const map = (readJson(index) as { weight_map?: Record<string, string> }).weight_map;
    if (!map) throw new TrainMcpError("ModelInvalid", `${index}: no "weight_map" field`);
    for (const shard of new Set(Object.values(map)))
      for (const [k, v] of readSafetensors(path.join(dir, shard)).tensors) all.set(k, v);
  } else {
    const single = path.join(dir, "model.safetensors");
    if (!fs.existsSync(single)) throw new TrainMcpError("ModelInvalid", `${dir}: neither model.safetensors nor model.safetensors.index.json found`);
    for (const [k, v] of readSafetensors(single).tensors) all.set(k, v);
  }
  return { config, weights: validateWeights(config, all, dir) };
}

/** Writes `config.json` and `model.safetensors` (float32, HF names), each atomically. */
export function saveCheckpoint(dir: string, config: ModelConfig, weights: NamedWeights): void {
  makeDirs(dir);
  const w = validateWeights(config, weights, dir);
  writeSafetensors(path.join(dir, "model.safetensors"), w, { format: "pt" });
  writeFileAtomic(path.join(dir, "config.json"), JSON.stringify({ ...config.raw, torch_dtype: "float32" }, null, 2) + "\n");
}
