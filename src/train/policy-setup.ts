/**
 * Loads what a run trains: the model folder (the built-in default or a Hugging Face checkpoint),
 * its tokenizer and chat template, the trainable tfjs model (full or LoRA), and the rollout
 * sampler — onnxruntime when it loads (several times faster on CPU), tfjs otherwise — with a
 * `refresh()` that hands the sampler the weights of the latest update.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { TrainMcpError } from "../errors.js";
import { initBackend } from "../policy/backend.js";
import { defaultModelDir } from "../policy/default-model/index.js";
import type { LoraTarget } from "../policy/model/transformer.js";
import { Transformer } from "../policy/model/transformer.js";
import type { Sampler } from "../policy/sampler.js";
import { TfjsSampler } from "../policy/tfjs-sampler.js";
import { ChatTokenizer } from "../policy/tokenizer.js";
import { Trainable } from "../policy/trainable.js";
import { assertFitsWasm, assertWeightsFitWasm } from "../policy/wasm-memory.js";
import { initRandomWeights, loadCheckpoint, readModelConfig } from "../policy/weights.js";

export interface PolicySetupOptions {
  model: string; // "default" or a folder
  seed: number;
  device: "auto" | "cpu" | "gpu" | "wasm";
  engine: "auto" | "ort" | "tfjs";
  learningRate: number;
  weightDecay: number;
  maxGradNorm: number;
  lora?: { r: number; alpha: number; dropout: number; targetModules: LoraTarget[] };
  /** wasm threads for training (default 1) */
  threads?: number;
  /** a run's checkpoint whose weights replace the folder's (resume, eval of a checkpoint) */
  log?: (line: string) => void;
}

export interface RolloutSampler extends Sampler {
  readonly engine: "ort" | "tfjs";
  /** the sampler uses the model's current weights from now on */
  refresh(): Promise<void>;
  close(): Promise<void>;
}

export interface PolicySetup {
  modelDir: string;
  /** true when the folder had no weights and the model starts from a seeded random init */
  randomInit: boolean;
  tokenizer: ChatTokenizer;
  model: Transformer;
  trainable: Trainable;
  sampler: RolloutSampler;
  backend: string;
}

export function resolveModelDir(model: string): string {
  const dir = model === "default" ? defaultModelDir() : path.resolve(model);
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory())
    throw new TrainMcpError("ModelInvalid", `--model ${model}: no such folder (expected "default" or a Hugging Face model folder)`);
  for (const f of ["config.json", "tokenizer.json"])
    if (!fs.existsSync(path.join(dir, f))) throw new TrainMcpError("ModelInvalid", `--model ${model}: ${path.join(dir, f)} is missing`);
  return dir;
}

export async function setupPolicy(o: PolicySetupOptions): Promise<PolicySetup> {
  const modelDir = resolveModelDir(o.model);
  // two wasm threads train ~1.45x faster on an IDLE 2-core machine (bench:engine --threads 2),
  // and much slower on a busy one: opt-in
  const backend = await initBackend({ device: o.device, threads: Math.max(1, Math.min(o.threads ?? 1, os.availableParallelism())) });
  const config = readModelConfig(modelDir);
  // before the weights load: a model the wasm heap cannot train is refused in a second, not after minutes
  if (backend === "wasm") assertFitsWasm(config, { loraRank: o.lora?.r ?? 0, model: o.model });
  const tokenizer = await ChatTokenizer.fromDir(modelDir);
  const hasWeights = fs.existsSync(path.join(modelDir, "model.safetensors")) || fs.existsSync(path.join(modelDir, "model.safetensors.index.json"));
  let model: Transformer;
  if (hasWeights) model = await Transformer.load(modelDir);
  else if (o.model === "default") {
    model = new Transformer(config, initRandomWeights(config, o.seed));
  } else throw new TrainMcpError("ModelInvalid", `${modelDir}: no model.safetensors (or .index.json) in the model folder`);
  const trainable = new Trainable(model, {
    lr: o.learningRate,
    weightDecay: o.weightDecay,
    maxGradNorm: o.maxGradNorm,
    lora: o.lora ? { ...o.lora, seed: o.seed } : undefined,
  });
  const sampler = await createSampler(model, tokenizer, o.engine, o.log);
  return { modelDir, randomInit: !hasWeights, tokenizer, model, trainable, sampler, backend };
}

/** The ids that end a generation: the tokenizer's, and the model config's. */
export function endOfTurnIds(tokenizer: ChatTokenizer, model: Transformer): number[] {
  return [...new Set([...tokenizer.eosTokenIds, ...model.config.eosTokenIds])];
}

export async function createSampler(
  model: Transformer,
  tokenizer: ChatTokenizer,
  engine: "auto" | "ort" | "tfjs",
  log: (line: string) => void = () => undefined,
): Promise<RolloutSampler> {
  const decode = (ids: number[]) => tokenizer.decode(ids);
  const eosTokenIds = endOfTurnIds(tokenizer, model);
  if (engine !== "tfjs") {
    try {
      const { OrtSampler } = await import("../policy/onnx/ort-sampler.js");
      const ort = await OrtSampler.create({ config: model.config, weights: model.exportWeights(true), eosTokenIds, decode, padTokenId: tokenizer.padTokenId ?? 0 });
      return {
        engine: "ort",
        generate: (p, opts) => ort.generate(p, opts),
        refresh: () => ort.updateWeights(model.exportWeights(true)),
        close: () => ort.close(),
      };
    } catch (e) {
      if (engine === "ort") throw new TrainMcpError("BackendUnavailable", `--engine ort: onnxruntime failed to load the policy: ${(e as Error).message}`);
      log(`onnxruntime unavailable (${(e as Error).message}); sampling with tfjs`);
    }
  }
  const tfjs = new TfjsSampler(model, { decode, eosTokenIds, batchSize: 32 });
  return {
    engine: "tfjs",
    generate: (p, opts) => tfjs.generate(p, opts),
    refresh: async () => undefined, // reads the live model weights at every call
    close: async () => undefined,
  };
}

export interface InferencePolicy {
  dir: string;
  tokenizer: ChatTokenizer;
  model: Transformer;
  sampler: RolloutSampler;
}

/**
 * A model for evaluation or serving: a Hugging Face folder, "default", or a run checkpoint —
 * with LoRA adapters (adapter_config.json) applied over their base model.
 */
export async function loadInferencePolicy(spec: string, o: { engine: "auto" | "ort" | "tfjs"; device?: "auto" | "cpu" | "gpu" | "wasm"; seed?: number; log?: (l: string) => void }): Promise<InferencePolicy> {
  const dir = spec === "default" ? defaultModelDir() : path.resolve(spec);
  if (!fs.existsSync(dir)) throw new TrainMcpError("ModelInvalid", `--model ${spec}: no such folder`);
  const backend = await initBackend({ device: o.device ?? "auto" });
  const adapterCfg = path.join(dir, "adapter_config.json");
  let model: Transformer;
  let tokenizerDir = dir;
  if (fs.existsSync(adapterCfg) && !fs.existsSync(path.join(dir, "model.safetensors"))) {
    const base = (JSON.parse(fs.readFileSync(adapterCfg, "utf8")) as { base_model_name_or_path?: string }).base_model_name_or_path;
    if (!base || !fs.existsSync(base)) throw new TrainMcpError("ModelInvalid", `${adapterCfg}: base model "${base ?? "(none)"}" not found`);
    if (backend === "wasm") assertWeightsFitWasm(readModelConfig(base), `--model ${spec}`);
    model = await Transformer.load(base);
    const { loadAdapter } = await import("../policy/peft.js");
    loadAdapter(dir, model, o.seed ?? 0);
    if (!fs.existsSync(path.join(dir, "tokenizer.json"))) tokenizerDir = base;
  } else if (fs.existsSync(path.join(dir, "model.safetensors")) || fs.existsSync(path.join(dir, "model.safetensors.index.json"))) {
    if (backend === "wasm") assertWeightsFitWasm(readModelConfig(dir), `--model ${spec}`);
    model = await Transformer.load(dir);
  } else if (spec === "default") {
    const config = readModelConfig(dir);
    model = new Transformer(config, initRandomWeights(config, o.seed ?? 0));
  } else throw new TrainMcpError("ModelInvalid", `--model ${spec}: no model.safetensors or adapter_config.json in the folder`);
  if (!fs.existsSync(path.join(tokenizerDir, "tokenizer.json"))) throw new TrainMcpError("ModelInvalid", `--model ${spec}: ${path.join(tokenizerDir, "tokenizer.json")} is missing`);
  const tokenizer = await ChatTokenizer.fromDir(tokenizerDir);
  const sampler = await createSampler(model, tokenizer, o.engine, o.log);
  return { dir, tokenizer, model, sampler };
}
