/**
 * What `--model` names for the commands that run a model (eval, serve, export-onnx): "default"
 * (the built-in model), a Hugging Face folder (config.json + safetensors), or a PEFT LoRA adapter
 * folder, as a LoRA run's checkpoints are, folded into the base model it names. A run directory
 * is refused with the checkpoint to name instead: its config.json is a run's, not a model's.
 */
import fs from "node:fs";
import path from "node:path";
import { TrainMcpError } from "../errors.js";
import type { ModelConfig } from "./config.js";
import { defaultModelDir } from "./default-model/index.js";
import { mergeAdapter } from "./peft.js";
import { hasWeights, initRandomWeights, loadCheckpoint, readModelConfig, type NamedWeights } from "./weights.js";

export interface ModelFolder {
  /** the folder `--model` named (resolved) */
  dir: string;
  /** where the full weights are: `dir`, an adapter's base, or null for the built-in model's random init */
  weightsDir: string | null;
  /** a PEFT adapter folder folded into `weightsDir` */
  adapterDir?: string;
}

/** A spec shaped like a Hugging Face Hub id ("Qwen/Qwen2.5-0.5B-Instruct", also once made
 *  absolute against the working directory) that is no local folder: how to fetch it. */
export function hubIdHint(spec: string): string {
  const id = path.isAbsolute(spec) ? path.relative(process.cwd(), spec) : spec;
  return /^[\w-][\w.-]*\/[\w.-]+$/.test(id) ? `; it looks like a Hugging Face Hub id: train-mcp never downloads, so fetch it first (huggingface-cli download ${id} --local-dir DIR) and give DIR` : "";
}

/** The base model an adapter_config.json names (`base_model_name_or_path`); a file that is not JSON is a usage error naming it. */
export function adapterBaseName(adapterCfg: string): string | undefined {
  try {
    const base = (JSON.parse(fs.readFileSync(adapterCfg, "utf8")) as { base_model_name_or_path?: unknown }).base_model_name_or_path;
    return typeof base === "string" ? base : undefined;
  } catch (e) {
    throw new TrainMcpError("ModelInvalid", `${adapterCfg}: not JSON (${(e as Error).message})`);
  }
}

/** Resolves `spec` without reading weights; bad input is a usage error naming `flag`. */
export function resolveModelFolder(spec: string, flag = "--model"): ModelFolder {
  const dir = spec === "default" ? defaultModelDir() : path.resolve(spec);
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new TrainMcpError("ModelInvalid", `${flag} ${spec}: ${fs.existsSync(dir) ? "a file, not a folder" : "no such folder"} (expected a Hugging Face model folder, a checkpoint, or "default")${hubIdHint(spec)}`);
  if (hasWeights(dir)) return { dir, weightsDir: dir };
  const adapterCfg = path.join(dir, "adapter_config.json");
  if (fs.existsSync(adapterCfg)) {
    const base = adapterBaseName(adapterCfg);
    const found = base ? findAdapterBase(base, dir) : undefined;
    if (!found)
      throw new TrainMcpError(
        "ModelInvalid",
        `${adapterCfg}: base model "${base ?? "(none)"}" not found; put the base model there, or set base_model_name_or_path to its folder (absolute, or relative to the adapter's folder)`,
      );
    return { dir, weightsDir: found, adapterDir: dir };
  }
  if (spec === "default") return { dir, weightsDir: null };
  refuseRunDirectory(spec, flag);
  throw new TrainMcpError("ModelInvalid", `${flag} ${spec}: no model.safetensors, model.safetensors.index.json or adapter_config.json in the folder`);
}

/**
 * The folder an adapter's `base_model_name_or_path` names: as written (absolute, or relative to
 * the working directory), relative to the adapter's own folder (an adapter moved with its base),
 * and the built-in model wherever this copy of train-mcp has it ("default", or the path of
 * another clone's `src/policy/default-model`: checkpoints of a LoRA run on it name that).
 */
function findAdapterBase(base: string, adapterDir: string): string | undefined {
  const builtIn = defaultModelDir();
  if (base === "default") return builtIn;
  const tries = path.isAbsolute(base) ? [base] : [path.resolve(adapterDir, base), path.resolve(base)];
  const hit = tries.find((d) => fs.existsSync(d) && fs.statSync(d).isDirectory());
  if (hit) return hit;
  return /(^|[\\/])src[\\/]policy[\\/]default-model[\\/]?$/.test(base) ? builtIn : undefined;
}

/** A usage error naming the latest checkpoint when `spec` is a run directory (it has checkpoints/). */
export function refuseRunDirectory(spec: string, flag = "--model"): void {
  const inRun = path.join(path.resolve(spec), "checkpoints");
  // the run folder itself, or its checkpoints/ folder (no model either)
  const isRun = fs.existsSync(inRun);
  const checkpoints = isRun ? inRun : path.resolve(spec);
  if (!isRun && !(path.basename(checkpoints) === "checkpoints" && fs.existsSync(path.join(checkpoints, "latest.json")))) return;
  const steps = fs.readdirSync(checkpoints).filter((f) => /^step-\d+$/.test(f)).sort();
  const hint = steps.length ? `name one of its checkpoints, e.g. ${path.join(spec, isRun ? "checkpoints" : "", steps[steps.length - 1])} (the latest)` : "it holds no checkpoint yet";
  throw new TrainMcpError("ModelInvalid", `${flag} ${spec} is ${isRun ? "a run directory" : "a run's checkpoints folder"}, not a model: ${hint}`);
}

export interface LoadedModel {
  config: ModelConfig;
  weights: NamedWeights;
  /** the folder with tokenizer.json: the model's, an adapter's base, or the built-in model's;
   *  null when none has one (export needs none; `tokenizerDirOf` says what is missing) */
  tokenizerDir: string | null;
  /** where the weights came from, in words */
  source: string;
}

/** Reads the weights (an adapter folded in) and finds the tokenizer. */
export async function loadModelFolder(f: ModelFolder, seed = 0): Promise<LoadedModel> {
  let config: ModelConfig;
  let weights: NamedWeights;
  let source: string;
  if (f.weightsDir === null) {
    config = readModelConfig(f.dir);
    weights = initRandomWeights(config, seed);
    source = `default model, random init (seed ${seed}): untrained, its output is noise`;
  } else {
    ({ config, weights } = await loadCheckpoint(f.weightsDir));
    source = f.dir;
    if (f.adapterDir) {
      weights = mergeAdapter(f.adapterDir, config, weights);
      source = `${f.adapterDir} (LoRA on ${f.weightsDir})`;
    }
  }
  // a training checkpoint of the built-in model may carry no tokenizer: use the embedded one
  // ("train-mcp-tiny": the model_type of checkpoints written before it said "llama")
  const builtIn = config.raw.train_mcp_builtin === true || config.modelType === "train-mcp-tiny";
  const candidates = [f.dir, f.weightsDir, builtIn ? defaultModelDir() : null];
  const tokenizerDir = candidates.find((d): d is string => d !== null && fs.existsSync(path.join(d, "tokenizer.json"))) ?? null;
  return { config, weights, tokenizerDir, source };
}

/** The tokenizer folder of a model that is to run (eval, serve). */
export function tokenizerDirOf(m: LoadedModel, f: ModelFolder): string {
  if (!m.tokenizerDir) throw new TrainMcpError("ModelInvalid", `${f.dir}: no tokenizer.json (a model that runs needs its tokenizer)`);
  return m.tokenizerDir;
}
