/**
 * What training a model needs of the tfjs wasm backend's memory, and a clear refusal when it
 * cannot fit. The wasm heap is a 32-bit address space: 4 GiB at most, and an allocation past it
 * aborts the whole module ("Aborted()", after XNNPACK's "status 6"). tfjs keeps every activation
 * the backward pass reads, including each layer's [heads, T, T] attention matrices, so a
 * Qwen-size model (0.5B parameters, 24-28 layers) needs tens of GiB for one 1,000-token rollout
 * however small its LoRA adapters: measured on a Qwen3-0.6B-shaped model, 2 of its layers on one
 * 512-token row took the heap from 0.78 to 2.37 GiB. The estimate below is a lower bound for
 * one rollout of 1,024 tokens (a short tool-use conversation: a system prompt and tools block
 * alone take hundreds): the weights, the tensors the backward pass must keep, twice over for the
 * gradients being formed. So what it refuses cannot train on such rollouts; what it lets through
 * may still run out of memory, and then a clear error says so (backend.ts, main.ts).
 * With gradient checkpointing (model/checkpoint.ts) only each layer's input stays between the
 * passes, and one layer's activations exist at a time: a LoRA on Qwen2.5-0.5B then fits (measured:
 * a 1,024-token row's step in 3.86 GiB of heap), which keeping them could not (out of memory).
 */
import { TrainMcpError } from "../errors.js";
import type { ModelConfig } from "./config.js";
import { weightShapes } from "./weights.js";

/** The wasm backend's heap cap (emscripten's MAXIMUM_MEMORY for tfjs-backend-wasm). */
export const WASM_HEAP_BYTES = 4 * 2 ** 30;

/** The rollout length the estimate assumes (or the model's context, if shorter). */
export const ESTIMATE_ROW_TOKENS = 1024;

export interface TrainingMemory {
  /** float32 weights */
  weights: number;
  /** gradients and Adam's two moments of what is trained */
  optimizer: number;
  /** the LM head's transient copies: the wasm matmul transposes [V, D] and XNNPACK packs it */
  lmHead: number;
  /** kept activations of one `rowTokens`-token rollout, and their gradients */
  activations: number;
  total: number;
}

export function parameterCount(c: ModelConfig): number {
  let n = 0;
  for (const shape of weightShapes(c).values()) n += shape.reduce((a, s) => a * s, 1);
  return n;
}

/** A lower bound of the bytes one training step holds at its peak on the wasm backend; with
 *  `checkpointing`, each layer keeps only its input and one layer's activations exist at a time. */
export function trainingMemory(c: ModelConfig, o: { loraRank: number; rowTokens?: number; checkpointing?: boolean }): TrainingMemory {
  const T = Math.min(o.rowTokens ?? ESTIMATE_ROW_TOKENS, c.maxPositions);
  const D = c.hiddenSize, q = c.numHeads * c.headDim, kv = c.numKvHeads * c.headDim;
  const weights = 4 * parameterCount(c);
  // LoRA on all seven projections: A [r, in] and B [out, r] per module
  const loraParams = c.numLayers * o.loraRank * (D + q + 2 * (D + kv) + q + D + 2 * (D + c.intermediateSize) + c.intermediateSize + D);
  const optimizer = 3 * 4 * (o.loraRank > 0 ? loraParams : parameterCount(c));
  const lmHead = 2 * 4 * c.vocabSize * D;
  // per token and layer: norms and residuals (~6 D), q/k/v/o with their rotated copies,
  // the MLP's gate, up, activation and product (4 I), scores, mask and softmax over T keys
  const perTokenLayer = 6 * D + 3 * q + 4 * kv + 4 * c.intermediateSize + 3 * c.numHeads * T;
  const activations = o.checkpointing ? 2 * 4 * D * c.numLayers * T + 2 * 4 * perTokenLayer * T : 2 * 4 * perTokenLayer * c.numLayers * T;
  return { weights, optimizer, lmHead, activations, total: weights + optimizer + lmHead + activations };
}

const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(bytes < 2 ** 30 ? 2 : 1)} GiB`;

const REMEDY =
  "install @tensorflow/tfjs-node and train with --device cpu (native kernels, no heap cap), or @tensorflow/tfjs-node-gpu with --device gpu";
const REMEDY_SENTENCE = `${REMEDY[0].toUpperCase()}${REMEDY.slice(1)}.`;

/**
 * Whether training `c` on the wasm backend must recompute activations (gradient checkpointing) to
 * fit its heap: "auto" turns it on only when keeping them cannot fit. Throws a usage error (exit
 * code 2) when even the asked-for or chosen way cannot fit.
 */
export function assertFitsWasm(c: ModelConfig, o: { loraRank: number; model: string; checkpointing?: "auto" | "on" | "off" }): { checkpointing: boolean } {
  const mode = o.checkpointing ?? "auto";
  const kept = trainingMemory(c, { loraRank: o.loraRank });
  const recomputed = trainingMemory(c, { loraRank: o.loraRank, checkpointing: true });
  if (mode !== "on" && kept.total <= WASM_HEAP_BYTES) return { checkpointing: false };
  if (mode !== "off" && recomputed.total <= WASM_HEAP_BYTES) return { checkpointing: true };
  const m = mode === "off" ? kept : recomputed;
  const params = (parameterCount(c) / 1e6).toFixed(0);
  const hint =
    mode === "off" && recomputed.total <= WASM_HEAP_BYTES
      ? ` With gradient checkpointing (--gradient-checkpointing on or auto) it needs ${gib(recomputed.total)}, which fits.`
      : ` ${REMEDY_SENTENCE}`;
  throw new TrainMcpError(
    "BackendUnavailable",
    `--model ${o.model}: training this ${params}M-parameter model on the tfjs wasm backend needs at least ${gib(m.total)} ` +
      `(weights ${gib(m.weights)}, ${o.loraRank > 0 ? "adapters' gradients and optimizer" : "gradients and optimizer"} ${gib(m.optimizer)}, ` +
      `LM head ${gib(m.lmHead)}, one ${ESTIMATE_ROW_TOKENS}-token rollout's activations ${gib(m.activations)}` +
      `${m === recomputed ? ", with gradient checkpointing" : ""}); the wasm heap stops at 4 GiB.${hint}`,
  );
}

/** Throws (exit code 2) when `c`'s float32 weights alone cannot be held in the wasm heap, with
 *  room for a forward pass; `what` names the model for the message. */
export function assertWeightsFitWasm(c: ModelConfig, what: string): void {
  const weights = 4 * parameterCount(c);
  if (weights + 2 * 4 * c.vocabSize * c.hiddenSize <= WASM_HEAP_BYTES) return;
  throw new TrainMcpError(
    "BackendUnavailable",
    `${what}: this ${(parameterCount(c) / 1e6).toFixed(0)}M-parameter model's weights take ${gib(weights)} as float32, more than the tfjs ` +
      `wasm backend's 4 GiB heap holds beside a forward pass. ${REMEDY_SENTENCE}`,
  );
}

/** The error for a wasm heap that cannot hold what a step needs; `what` says what happened. */
export function wasmOutOfMemory(what: string, cause?: unknown): TrainMcpError {
  return new TrainMcpError(
    "BackendUnavailable",
    `${what}. The wasm heap stops at 4 GiB: this model or these rollouts are too large for it. ` +
      `Shorten the rollouts (--max-turns, --max-tokens-per-turn), lower micro_batch_tokens, or ${REMEDY}.`,
    false,
    { cause },
  );
}

/** The wasm module's abort, which an allocation past the heap cap ends in, as a clear error. */
export function explainWasmAbort(e: unknown, backend: string): unknown {
  if (backend !== "wasm" || !(e instanceof Error) || !e.message.startsWith("Aborted(")) return e;
  return wasmOutOfMemory("the tfjs wasm backend aborted, most likely out of memory", e);
}
