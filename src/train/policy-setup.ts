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
import type { ModelConfig } from "../policy/config.js";
import { defaultModelDir } from "../policy/default-model/index.js";
import type { LoraTarget } from "../policy/model/transformer.js";
import { Transformer } from "../policy/model/transformer.js";
import type { Sampler } from "../policy/sampler.js";
import { TfjsSampler } from "../policy/tfjs-sampler.js";
import { ChatTokenizer } from "../policy/tokenizer.js";
import { Trainable } from "../policy/trainable.js";
import { assertFitsWasm, assertWeightsFitWasm } from "../policy/wasm-memory.js";
import { adapterBaseName, hubIdHint, loadModelFolder, refuseRunDirectory, resolveModelFolder, tokenizerDirOf } from "../policy/model-folder.js";
import { hasWeights, initRandomWeights, readModelConfig, type NamedWeights } from "../policy/weights.js";

export interface PolicySetupOptions {
  model: string; // "default" or a folder
  seed: number;
  device: "auto" | "cpu" | "gpu" | "wasm";
  engine: "auto" | "ort" | "tfjs";
  learningRate: number;
  weightDecay: number;
  maxGradNorm: number;
  lora?: { r: number; alpha: number; dropout: number; targetModules: LoraTarget[] };
  /** recompute activations in the backward pass: "auto" (default) = when the wasm heap needs it */
  gradientCheckpointing?: "auto" | "on" | "off";
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
    throw new TrainMcpError("ModelInvalid", `--model ${model}: ${fs.existsSync(dir) ? "a file, not a folder" : "no such folder"} (expected "default" or a Hugging Face model folder)${hubIdHint(model)}`);
  if (!hasWeights(dir)) refuseRunDirectory(model);
  // a LoRA checkpoint is weights on top of a base: training starts from a whole model
  const adapterCfg = path.join(dir, "adapter_config.json");
  if (fs.existsSync(adapterCfg) && !fs.existsSync(path.join(dir, "config.json"))) {
    const base = adapterBaseName(adapterCfg);
    const run = path.basename(path.dirname(dir)) === "checkpoints" ? path.dirname(path.dirname(dir)) : undefined;
    throw new TrainMcpError(
      "ModelInvalid",
      `--model ${model} is a LoRA adapter (adapter_config.json), not a whole model: train from its base${base ? ` (${base})` : ""} with --model${run ? `, or continue its run with --resume ${run}` : ""}; eval, serve and export-onnx take the adapter as it is`,
    );
  }
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
  const checkpointing =
    backend === "wasm"
      ? assertFitsWasm(config, { loraRank: o.lora?.r ?? 0, model: o.model, checkpointing: o.gradientCheckpointing }).checkpointing
      : o.gradientCheckpointing === "on";
  const tokenizer = await ChatTokenizer.fromDir(modelDir);
  const withWeights = hasWeights(modelDir);
  let model: Transformer;
  if (withWeights) model = await Transformer.load(modelDir);
  else if (o.model === "default") {
    model = new Transformer(config, initRandomWeights(config, o.seed));
  } else throw new TrainMcpError("ModelInvalid", `${modelDir}: no model.safetensors (or .index.json) in the model folder`);
  model.gradientCheckpointing = checkpointing;
  const trainable = new Trainable(model, {
    lr: o.learningRate,
    weightDecay: o.weightDecay,
    maxGradNorm: o.maxGradNorm,
    lora: o.lora ? { ...o.lora, seed: o.seed } : undefined,
  });
  const sampler = await createSampler(model, tokenizer, o.engine, o.log);
  return { modelDir, randomInit: !withWeights, tokenizer, model, trainable, sampler, backend };
}

/** The text the chat template closes an assistant turn with, for LocalPolicy's ledger. */
export function turnEndTextOf(tokenizer: ChatTokenizer): string | undefined {
  const id = tokenizer.turnEndId();
  return id === undefined ? undefined : tokenizer.decode([id]);
}

/** The ids that end a generation: the tokenizer's, and the model config's. */
export function endOfTurnIds(tokenizer: ChatTokenizer, config: ModelConfig): number[] {
  return [...new Set([...tokenizer.eosTokenIds, ...config.eosTokenIds])];
}

/** The rollout sampler of a model being trained: it plays the model's latest weights after each `refresh()`. */
export function createSampler(model: Transformer, tokenizer: ChatTokenizer, engine: "auto" | "ort" | "tfjs", log: (line: string) => void = () => undefined): Promise<RolloutSampler> {
  return samplerFor(model.config, tokenizer, engine, log, () => model.exportWeights(true), async () => ({ model, owned: false }));
}

/**
 * onnxruntime (unless tfjs is asked for, or it fails to load under "auto") over `weights()`,
 * read again at each refresh; else tfjs over `tfjsModel()`, disposed on close when it is owned.
 */
async function samplerFor(
  config: ModelConfig,
  tokenizer: ChatTokenizer,
  engine: "auto" | "ort" | "tfjs",
  log: (line: string) => void,
  weights: () => NamedWeights,
  tfjsModel: () => Promise<{ model: Transformer; owned: boolean }>,
): Promise<RolloutSampler> {
  const decode = (ids: number[]) => tokenizer.decode(ids);
  const eosTokenIds = endOfTurnIds(tokenizer, config);
  if (engine !== "tfjs") {
    try {
      const { OrtSampler } = await import("../policy/onnx/ort-sampler.js");
      const ort = await OrtSampler.create({ config, weights: weights(), eosTokenIds, decode, padTokenId: tokenizer.padTokenId ?? 0 });
      return {
        engine: "ort",
        generate: (p, opts) => ort.generate(p, opts),
        refresh: () => ort.updateWeights(weights()),
        close: () => ort.close(),
      };
    } catch (e) {
      if (engine === "ort") throw new TrainMcpError("BackendUnavailable", `--engine ort: onnxruntime failed to load the policy: ${(e as Error).message}`);
      log(`onnxruntime unavailable (${(e as Error).message}); sampling with tfjs`);
    }
  }
  const { model, owned } = await tfjsModel();
  const tfjs = new TfjsSampler(model, { decode, eosTokenIds, batchSize: 32 });
  return {
    engine: "tfjs",
    generate: (p, opts) => tfjs.generate(p, opts),
    refresh: async () => undefined, // reads the live model weights at every call
    close: async () => {
      if (owned) model.dispose();
    },
  };
}

export interface InferencePolicy {
  dir: string;
  tokenizer: ChatTokenizer;
  config: ModelConfig;
  sampler: RolloutSampler;
}

/**
 * A model for evaluation: a Hugging Face folder, "default", or a run checkpoint, with LoRA
 * adapters (adapter_config.json) folded into their base model. On onnxruntime no tfjs model is
 * built, so a model too large for the wasm heap is evaluated all the same.
 */
export async function loadInferencePolicy(spec: string, o: { engine: "auto" | "ort" | "tfjs"; device?: "auto" | "cpu" | "gpu" | "wasm"; seed?: number; log?: (l: string) => void }): Promise<InferencePolicy> {
  const folder = resolveModelFolder(spec);
  // tfjs holds the model in the wasm heap: refuse what cannot fit before reading gigabytes
  if (o.engine === "tfjs" && folder.weightsDir && (await initBackend({ device: o.device ?? "auto" })) === "wasm") assertWeightsFitWasm(readModelConfig(folder.weightsDir), `--model ${spec}`);
  const loaded = await loadModelFolder(folder, o.seed ?? 0);
  const { config, weights } = loaded;
  const tokenizerDir = tokenizerDirOf(loaded, folder);
  const noTemplate = ChatTokenizer.missingChatTemplate(tokenizerDir);
  if (noTemplate) throw new TrainMcpError("ModelInvalid", `--model ${spec}: ${noTemplate}`);
  const tokenizer = await ChatTokenizer.fromDir(tokenizerDir);
  const sampler = await samplerFor(config, tokenizer, o.engine, o.log ?? (() => undefined), () => weights, async () => {
    if ((await initBackend({ device: o.device ?? "auto" })) === "wasm") assertWeightsFitWasm(config, `--model ${spec}`);
    return { model: new Transformer(config, weights, false), owned: true };
  });
  return { dir: folder.dir, tokenizer, config, sampler };
}
