/**
 * The model config, read from a Hugging Face `config.json` (Qwen2/Qwen2.5/Qwen3/Llama share the
 * decoder-only shape). Field names are the HF ones; odd defaults are commented. Invariants are
 * checked once here, with messages, so the model code can trust them.
 */
import { z } from "zod";
import { SUPPORTED_ROPE_SCALING, type RopeScaling } from "./model/layers.js";
import { TrainMcpError } from "../errors.js";

export const HfConfigSchema = z
  .object({
    model_type: z.string().default("llama").describe("qwen2 | qwen3 | llama (the built-in model is a llama)"),
    vocab_size: z.number().int().positive(),
    hidden_size: z.number().int().positive(),
    intermediate_size: z.number().int().positive(),
    num_hidden_layers: z.number().int().positive(),
    num_attention_heads: z.number().int().positive(),
    // Llama/Qwen default: no GQA unless the config says so
    num_key_value_heads: z.number().int().positive().optional(),
    // Qwen3 sets head_dim explicitly (it need not equal hidden/heads); others derive it
    head_dim: z.number().int().positive().optional(),
    rms_norm_eps: z.number().positive().default(1e-6),
    // transformers < 5: rope_theta (+ rope_scaling); transformers 5 writes rope_parameters
    // {rope_theta, rope_type, factor, …} instead. Left unset here so a checkpoint writes back what it read
    rope_theta: z.number().positive().optional(),
    rope_scaling: z.record(z.string(), z.unknown()).nullable().optional(),
    rope_parameters: z.record(z.string(), z.unknown()).nullable().optional(),
    max_position_embeddings: z.number().int().positive().default(2048),
    tie_word_embeddings: z.boolean().default(false),
    // Qwen2 has q/k/v biases and no config flag for them; Llama/Qwen3 use attention_bias
    attention_bias: z.boolean().optional(),
    // Qwen3 normalizes q and k per head before RoPE
    use_qk_norm: z.boolean().optional(),
    hidden_act: z.string().default("silu"),
    bos_token_id: z.number().int().nullable().optional(),
    eos_token_id: z.union([z.number().int(), z.array(z.number().int())]).nullable().optional(),
    torch_dtype: z.string().optional(),
  })
  .passthrough();
export type HfConfig = z.infer<typeof HfConfigSchema>;

/** The resolved config the engines use: every derived size computed once. */
export interface ModelConfig {
  modelType: string;
  vocabSize: number;
  hiddenSize: number; // D
  intermediateSize: number;
  numLayers: number;
  numHeads: number; // H
  numKvHeads: number;
  headDim: number;
  rmsNormEps: number;
  ropeTheta: number;
  /** rope_scaling (transformers 4) or the scaling part of rope_parameters (5); null: plain RoPE */
  ropeScaling: RopeScaling | null;
  maxPositions: number;
  tieWordEmbeddings: boolean;
  qkvBias: boolean;
  qkNorm: boolean;
  eosTokenIds: number[];
  /** the config.json fields as read, for writing checkpoints back unchanged */
  raw: HfConfig;
}

/** Families whose config.json describes exactly the network the engine builds. */
export const SUPPORTED_MODEL_TYPES: readonly string[] = ["llama", "mistral", "qwen2", "qwen3"];

export function resolveConfig(input: unknown, where = "config.json"): ModelConfig {
  const parsed = HfConfigSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.join(".");
    const missing = issue.path.reduce<unknown>((v, k) => (v && typeof v === "object" ? (v as Record<PropertyKey, unknown>)[k] : undefined), input) === undefined;
    throw new TrainMcpError("ModelInvalid", `${where}: field "${field}": ${missing ? "is missing" : issue.message}`);
  }
  const c = parsed.data;
  const numKvHeads = c.num_key_value_heads ?? c.num_attention_heads;
  const headDim = c.head_dim ?? c.hidden_size / c.num_attention_heads;
  const check = (ok: boolean, msg: string) => {
    if (!ok) throw new TrainMcpError("ModelInvalid", `${where}: ${msg}`);
  };
  check(Number.isInteger(headDim), `hidden_size ${c.hidden_size} is not divisible by num_attention_heads ${c.num_attention_heads}`);
  check(c.num_attention_heads % numKvHeads === 0, `num_attention_heads ${c.num_attention_heads} is not divisible by num_key_value_heads ${numKvHeads}`);
  check(headDim % 2 === 0, `head_dim ${headDim} must be even for rotary embeddings`);
  check(c.hidden_act === "silu", `hidden_act "${c.hidden_act}" is not supported (expected "silu")`);
  // another family in a Llama-shaped config (Gemma's norms and scaling, Phi's partial RoPE...)
  // would load and train as a different network, silently: only these are known to match
  check(SUPPORTED_MODEL_TYPES.includes(c.model_type), `model_type "${c.model_type}" is not supported (expected one of ${SUPPORTED_MODEL_TYPES.join(", ")}: the architectures train-mcp's engine implements)`);
  const { theta, scaling } = ropeOf(c, where);
  const eos = c.eos_token_id;
  return {
    modelType: c.model_type,
    vocabSize: c.vocab_size,
    hiddenSize: c.hidden_size,
    intermediateSize: c.intermediate_size,
    numLayers: c.num_hidden_layers,
    numHeads: c.num_attention_heads,
    numKvHeads,
    headDim,
    rmsNormEps: c.rms_norm_eps,
    ropeTheta: theta,
    ropeScaling: scaling,
    maxPositions: c.max_position_embeddings,
    tieWordEmbeddings: c.tie_word_embeddings,
    qkvBias: c.attention_bias ?? c.model_type === "qwen2",
    qkNorm: c.use_qk_norm ?? c.model_type === "qwen3",
    eosTokenIds: eos == null ? [] : Array.isArray(eos) ? eos : [eos],
    raw: c,
  };
}

/** RoPE's base and scaling from either config form; both at once must agree on the base. */
function ropeOf(c: HfConfig, where: string): { theta: number; scaling: RopeScaling | null } {
  const params = c.rope_parameters ?? undefined;
  if (params && typeof params.rope_theta !== "number")
    throw new TrainMcpError("ModelInvalid", `${where}: rope_parameters has no rope_theta (per-layer-type RoPE, as in Gemma 3, is not supported)`);
  const fromParams = params?.rope_theta as number | undefined;
  if (c.rope_theta !== undefined && fromParams !== undefined && c.rope_theta !== fromParams)
    throw new TrainMcpError("ModelInvalid", `${where}: rope_theta ${c.rope_theta} and rope_parameters.rope_theta ${fromParams} disagree`);
  const theta = fromParams ?? c.rope_theta ?? 10000;
  const raw = (c.rope_scaling ?? (params && (params.rope_type ?? "default") !== "default" ? params : null)) as RopeScaling | null;
  const kind = raw ? (raw.rope_type ?? raw.type ?? "default") : "default";
  if (!(SUPPORTED_ROPE_SCALING as readonly string[]).includes(kind))
    throw new TrainMcpError("ModelInvalid", `${where}: field "${c.rope_scaling ? "rope_scaling" : "rope_parameters"}": RoPE scaling type "${kind}" is not supported (supported: ${SUPPORTED_ROPE_SCALING.join(", ")}); remove it to run at the model's native context length`);
  return { theta, scaling: raw };
}
