/**
 * What the server serves: one base model (a Hugging Face checkpoint folder, or `default`, the
 * embedded tiny model) and any number of LoRA adapters loaded at run time in vLLM's form, each
 * under its own model name. An adapter is merged into a copy of the base weights (W + alpha/r ·
 * B·A, PEFT's merge) and gets its own engine: requests naming the adapter use it, requests naming
 * the base use the base, and nothing is swapped in place. Costs one weight copy per adapter,
 * which is fine for the models this runs on the CPU.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { TrainMcpError } from "../errors.js";
import type { ModelConfig } from "../policy/config.js";
import { mergeAdapter } from "../policy/peft.js";
import { ChatTokenizer } from "../policy/tokenizer.js";
import { loadModelFolder, refuseRunDirectory, resolveModelFolder, tokenizerDirOf } from "../policy/model-folder.js";
import type { NamedWeights } from "../policy/weights.js";
import { isSameBase, recordedBase } from "./adapter-base.js";
import { ApiError } from "./api-error.js";
import { createEngine, type EngineKind, type EngineOptions, type StepEngine } from "./engine.js";
import { TokenTexts } from "./json-constraint.js";

export interface ServedModel {
  /** the name requests use */
  name: string;
  engine: StepEngine;
  /** the base model's name for adapters, null for the base */
  parent: string | null;
  /** where the weights came from, in words (the startup line) */
  source: string;
  /** the folder they came from, for /v1/models' `root` */
  root: string;
  created: number;
  /** an adapter trained on another base than the one served (adapter-base.ts), in words */
  warning?: string;
}

export interface LoadModelOptions {
  /** a Hugging Face checkpoint folder, or "default" */
  model: string;
  engine?: EngineKind | "auto";
  servedModelName?: string;
  /** seed of the random init when `default` has no trained weights (default 0) */
  seed?: number;
  /** the onnxruntime engine's prefix store, per model (default 256 MiB; 0: off) */
  prefixCacheBytes?: number;
  warn?: (line: string) => void;
}

export class ModelRegistry {
  private readonly models = new Map<string, ServedModel>();
  private tokenTexts: TokenTexts | null = null;
  /** the served model is a LoRA checkpoint folded into this base: adapters cannot go on top */
  private foldedOnto?: string;
  /** the folder the base model was read from (the built-in model's for "default") */
  private baseDir = "";

  private constructor(
    readonly baseName: string,
    readonly config: ModelConfig,
    readonly tokenizer: ChatTokenizer,
    private readonly baseWeights: NamedWeights,
    private readonly engineKind: EngineKind | "auto",
    private readonly warn: (line: string) => void,
    private readonly engineOptions: EngineOptions = {},
  ) {}

  static async load(opts: LoadModelOptions): Promise<ModelRegistry> {
    const warn = opts.warn ?? (() => {});
    const isDefault = opts.model === "default";
    const folder = resolveModelFolder(opts.model);
    const loaded = await loadModelFolder(folder, opts.seed ?? 0);
    const { config, weights, source } = loaded;
    const tokDir = tokenizerDirOf(loaded, folder);
    let tokenizer: ChatTokenizer;
    try {
      tokenizer = await ChatTokenizer.fromDir(tokDir);
    } catch (e) {
      throw new TrainMcpError("ModelInvalid", (e as Error).message, true, { cause: e });
    }
    if (!tokenizer.template) throw new TrainMcpError("ModelInvalid", `${tokDir}: tokenizer_config.json has no chat_template`);
    const name = opts.servedModelName ?? (isDefault ? "default" : path.basename(folder.dir));
    const reg = new ModelRegistry(name, config, tokenizer, weights, opts.engine ?? "auto", warn, { prefixCacheBytes: opts.prefixCacheBytes });
    const engine = await createEngine(reg.engineKind, config, weights, warn, reg.engineOptions);
    reg.models.set(name, { name, engine, parent: null, source, root: folder.dir, created: Math.floor(Date.now() / 1000) });
    if (folder.adapterDir) reg.foldedOnto = folder.weightsDir ?? undefined;
    reg.baseDir = folder.dir;
    return reg;
  }

  /** The model a request names; 404 model_not_found otherwise. */
  get(name: string): ServedModel {
    const m = this.models.get(name);
    if (!m) throw new ApiError(404, `The model \`${name}\` does not exist. Served: ${[...this.models.keys()].join(", ")}`, "invalid_request_error", "model", "model_not_found");
    return m;
  }

  list(): ServedModel[] {
    return [...this.models.values()];
  }

  /** Decoded token texts for constrained decoding, built on first use. */
  texts(): TokenTexts {
    if (!this.tokenTexts) {
      const tok = this.tokenizer;
      this.tokenTexts = TokenTexts.build(
        this.config.vocabSize,
        (id) => (id < tok.vocabSize ? tok.decode([id]) : ""),
        (id) => tok.isSpecial(id),
      );
    }
    return this.tokenTexts;
  }

  /** Loads a PEFT adapter folder under `name`; a name in use is an error unless `replace`
   *  (then the old engine closes once the new one is ready, e.g. fresh weights after a step).
   *  `from`: "api" (load_lora_adapter: messages name its fields) or "flag" (serve --adapter). */
  async loadAdapter(name: string, dir: string, replace = false, from: "api" | "flag" = "api"): Promise<ServedModel> {
    const pathField = from === "flag" ? "--adapter" : "lora_path";
    const where = from === "flag" ? `--adapter ${dir}` : `lora_path "${dir}"`;
    const nameField = from === "flag" ? "--adapter" : "lora_name";
    const old = this.models.get(name);
    if (old && old.parent === null) throw new ApiError(400, `${nameField} "${name}" is the base model's name${from === "flag" ? " (name the adapter with NAME=DIR)" : ""}`, "invalid_request_error", "lora_name");
    if (old && !replace)
      throw new ApiError(400, `${nameField} "${name}" is already loaded; ${from === "flag" ? "give each --adapter its own name (NAME=DIR)" : "unload it first or pass load_inplace: true"}`, "invalid_request_error", "lora_name");
    if (!fs.existsSync(path.join(dir, "adapter_config.json"))) {
      // a LoRA run's directory: name the checkpoint that holds the adapter, as --model does
      try {
        refuseRunDirectory(dir, pathField);
      } catch (e) {
        throw new ApiError(400, (e as Error).message, "invalid_request_error", "lora_path");
      }
      const missing = !fs.existsSync(dir) ? "no such folder" : !fs.statSync(dir).isDirectory() ? "not a folder" : "no adapter_config.json";
      throw new ApiError(400, `${where}: ${missing} (expected a PEFT adapter folder)`, "invalid_request_error", "lora_path");
    }
    // an adapter was trained on the plain base, not on the base with another adapter folded in
    if (this.foldedOnto)
      throw new ApiError(400, `the served model is a LoRA checkpoint folded into ${this.foldedOnto}: serve that base model (--model ${this.foldedOnto}) and load each adapter onto it`, "invalid_request_error", "lora_path");
    // the base it was trained on: a mismatch is refused when the shapes do not fit and said when
    // they do (adapter-base.ts says why)
    const recorded = recordedBase(dir);
    const served = `${this.baseDir} (served as "${this.baseName}")`;
    const otherBase = recorded !== null && !isSameBase(recorded, dir, this.baseDir);
    let merged: NamedWeights;
    try {
      merged = mergeAdapter(dir, this.config, this.baseWeights);
    } catch (e) {
      const msg = (e as Error).message;
      const why = otherBase
        ? `the adapter was trained on base model "${recorded}" (adapter_config.json base_model_name_or_path), but this server's base model is ${served}, and the adapter does not fit it: ${msg}`
        : `${msg} (adapter_config.json records base model ${recorded === null ? "none" : `"${recorded}"`}; this server's base model is ${served})`;
      throw new ApiError(400, `${where}: ${why}`, "invalid_request_error", "lora_path");
    }
    const warning = otherBase
      ? `LoRA adapter "${name}" (${dir}) was trained on base model "${recorded}" (adapter_config.json base_model_name_or_path), but this server's base model is ${served}; the shapes fit, so it is loaded, but unless that is the same model its output is not what was trained`
      : undefined;
    if (warning) this.warn(`warning: ${warning}`);
    const engine = await createEngine(this.get(this.baseName).engine.kind, this.config, merged, this.warn, this.engineOptions);
    const m: ServedModel = { name, engine, parent: this.baseName, source: path.resolve(dir), root: path.resolve(dir), created: Math.floor(Date.now() / 1000), ...(warning ? { warning } : {}) };
    this.models.set(name, m);
    if (old) await old.engine.close();
    return m;
  }

  async unloadAdapter(name: string): Promise<void> {
    const m = this.models.get(name);
    if (!m || m.parent === null) throw new ApiError(404, `no LoRA adapter named "${name}" is loaded`, "invalid_request_error", "lora_name", "lora_not_found");
    this.models.delete(name);
    await m.engine.close();
  }

  async close(): Promise<void> {
    for (const m of this.models.values()) await m.engine.close();
    this.models.clear();
  }
}
