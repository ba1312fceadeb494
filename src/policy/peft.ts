/**
 * LoRA adapters in PEFT's on-disk format (huggingface/peft `save_pretrained`), loadable by PEFT
 * and vLLM: `adapter_config.json` (peft_type LORA, r, lora_alpha, target_modules, ...) and
 * `adapter_model.safetensors` with names `base_model.model.<module>.lora_A.weight` [r, in] and
 * `.lora_B.weight` [out, r]. Also the merged model (W + alpha/r · B·A) as a Hugging Face folder.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import { TrainMcpError } from "../errors.js";
import { LORA_TARGETS, type LoraConfig, type LoraTarget, type Transformer } from "./model/transformer.js";
import { readSafetensors, writeFileAtomic, writeSafetensors } from "./safetensors.js";
import type { ModelConfig } from "./config.js";
import { saveCheckpoint, type NamedWeights } from "./weights.js";
import { makeDirs } from "../fs-dirs.js";

const PREFIX = "base_model.model.";

export const AdapterConfigSchema = z
  .object({
    peft_type: z.literal("LORA").describe("only LoRA adapters are supported"),
    r: z.number().int().positive(),
    lora_alpha: z.number().positive(),
    lora_dropout: z.number().min(0).max(1).default(0),
    target_modules: z.array(z.enum(LORA_TARGETS)).min(1),
    base_model_name_or_path: z.string().nullable().optional(),
    bias: z.literal("none").default("none"),
    use_rslora: z.literal(false).optional(),
    use_dora: z.literal(false).optional(),
    // PEFT writes these empty; filled, they change what the adapter computes, so folding the
    // adapter without them would give other weights than PEFT's
    alpha_pattern: emptyOr("per-module lora_alpha is not supported"),
    rank_pattern: emptyOr("per-module ranks are not supported"),
    modules_to_save: z.array(z.string()).max(0, "fully trained extra modules are not supported").nullable().optional(),
    layers_to_transform: z.null({ error: "LoRA on a subset of layers is not supported" }).optional(),
  })
  .passthrough();

function emptyOr(message: string) {
  return z
    .record(z.string(), z.unknown())
    .refine((o) => Object.keys(o).length === 0, message)
    .nullable()
    .optional();
}
export type AdapterConfig = z.infer<typeof AdapterConfigSchema>;

/** Writes adapter_config.json + adapter_model.safetensors (each atomically). */
export function saveAdapter(dir: string, model: Transformer, baseModel: string): void {
  const pairs = model.adapters();
  const cfg = model.loraConfig;
  if (!pairs || !cfg) throw new Error("saveAdapter: the model has no LoRA adapters");
  const tensors: NamedWeights = new Map();
  for (const [prefix, l] of pairs) {
    tensors.set(`${PREFIX}${prefix}.lora_A.weight`, { shape: [...l.a.shape], data: l.a.dataSync() as Float32Array });
    tensors.set(`${PREFIX}${prefix}.lora_B.weight`, { shape: [...l.b.shape], data: l.b.dataSync() as Float32Array });
  }
  const config = {
    peft_type: "LORA",
    task_type: "CAUSAL_LM",
    r: cfg.r,
    lora_alpha: cfg.alpha,
    lora_dropout: cfg.dropout,
    target_modules: cfg.targetModules,
    base_model_name_or_path: baseModel,
    bias: "none",
    fan_in_fan_out: false,
    inference_mode: true,
    init_lora_weights: true,
    modules_to_save: null,
    layers_to_transform: null,
    use_rslora: false,
    use_dora: false,
    revision: null,
  };
  makeDirs(dir);
  writeSafetensors(path.join(dir, "adapter_model.safetensors"), tensors, { format: "pt" });
  writeFileAtomic(path.join(dir, "adapter_config.json"), JSON.stringify(config, null, 2) + "\n");
}

/** A PEFT folder's config and its adapters by module prefix (A [r, in], B [out, r]), checked
 *  against the base model's weight shapes. */
function readAdapter(dir: string, numLayers: number, weightShape: (prefix: string) => readonly number[] | undefined) {
  const cfgFile = path.join(dir, "adapter_config.json");
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(cfgFile, "utf8"));
  } catch (e) {
    // the parser's message quotes the text: a file that is not the config is not echoed
    throw new TrainMcpError("ModelInvalid", `${cfgFile}: ${e instanceof SyntaxError ? "not valid JSON" : (e as Error).message}`, true, { cause: e });
  }
  const parsed = AdapterConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw new TrainMcpError("ModelInvalid", `${cfgFile}: field "${i.path.join(".")}": ${i.message}`);
  }
  const cfg = parsed.data;
  const file = path.join(dir, "adapter_model.safetensors");
  const { tensors } = readSafetensors(file);
  const pairs = new Map<string, { a: Float32Array; b: Float32Array }>();
  const targets = new Set<string>(cfg.target_modules);
  for (const [name, t] of tensors) {
    const m = /^base_model\.model\.(model\.layers\.(\d+)\.(self_attn|mlp)\.(\w+))\.lora_([AB])\.weight$/.exec(name);
    // a module outside target_modules would be folded here and ignored by enableLora: refuse it
    if (!m || !targets.has(m[4]) || Number(m[2]) >= numLayers) throw new TrainMcpError("ModelInvalid", `${file}: unexpected tensor "${name}" (target_modules: ${cfg.target_modules.join(",")})`);
    const e = pairs.get(m[1]) ?? { a: new Float32Array(0), b: new Float32Array(0) };
    const w = weightShape(m[1] + ".weight");
    const want = m[5] === "A" ? [cfg.r, w?.[1]] : [w?.[0], cfg.r];
    if (w && t.shape.join(",") !== want.join(",")) throw new TrainMcpError("ModelInvalid", `${file}: tensor "${name}" has shape [${t.shape}], expected [${want}]`);
    if (m[5] === "A") e.a = t.data;
    else e.b = t.data;
    pairs.set(m[1], e);
  }
  const expected = numLayers * cfg.target_modules.length;
  if (pairs.size !== expected) throw new TrainMcpError("ModelInvalid", `${file}: ${pairs.size} adapted modules, expected ${expected} (${numLayers} layers × ${cfg.target_modules.join(",")})`);
  for (const [p, e] of pairs) {
    const w = weightShape(p + ".weight");
    if (!w) throw new TrainMcpError("ModelInvalid", `${file}: module "${p}" is not in the base model`);
    if (e.a.length !== cfg.r * w[1] || e.b.length !== w[0] * cfg.r)
      throw new TrainMcpError("ModelInvalid", `${file}: module "${p}": lora_A/lora_B sizes ${e.a.length}/${e.b.length} do not fit r=${cfg.r} and weight [${w}]`);
  }
  return { cfg, pairs };
}

/** Reads a PEFT folder and puts its adapters on `model` (which must have none yet). */
export function loadAdapter(dir: string, model: Transformer, seed = 0): AdapterConfig {
  const { cfg, pairs } = readAdapter(dir, model.config.numLayers, (name) => (model.has(name) ? model.get(name).shape : undefined));
  const lora: LoraConfig = { r: cfg.r, alpha: cfg.lora_alpha, dropout: cfg.lora_dropout, targetModules: cfg.target_modules as LoraTarget[], seed };
  model.enableLora(lora, pairs);
  return cfg;
}

/**
 * The base weights with a PEFT folder's adapters folded in (W + alpha/r · B·A), in plain
 * JavaScript: for an engine that needs no tfjs model (onnxruntime), so a model too large for the
 * wasm heap can still be served or evaluated with its adapters. `weights` is left unchanged.
 */
export function mergeAdapter(dir: string, config: ModelConfig, weights: NamedWeights): NamedWeights {
  const { cfg, pairs } = readAdapter(dir, config.numLayers, (name) => weights.get(name)?.shape);
  const scale = cfg.lora_alpha / cfg.r, r = cfg.r;
  const out: NamedWeights = new Map(weights);
  for (const [prefix, { a, b }] of pairs) {
    const base = weights.get(prefix + ".weight")!;
    const [rows, cols] = base.shape; // [out, in]
    const w = Float32Array.from(base.data);
    for (let o = 0; o < rows; o++) {
      const row = o * cols;
      for (let k = 0; k < r; k++) {
        const bk = scale * b[o * r + k];
        if (bk === 0) continue;
        const ak = k * cols;
        for (let i = 0; i < cols; i++) w[row + i] += bk * a[ak + i];
      }
    }
    out.set(prefix + ".weight", { shape: base.shape, data: w });
  }
  return out;
}

/** Writes the merged model (adapters folded in) as a Hugging Face folder: config.json + model.safetensors. */
export function saveMerged(dir: string, model: Transformer): void {
  saveCheckpoint(dir, model.config, model.exportWeights(true));
}
