/**
 * The forward-pass interface the serve loop (generate.ts) drives: start a batch of sequences
 * from their prompts and read each live row's next-token logits, then feed one token per row,
 * dropping finished rows first, and (where the engine can) add rows mid-flight. Two engines implement it, on the lower-level APIs of src/policy
 * (not its samplers, so the loop can mask and read the logits): onnxruntime (ort-engine.ts,
 * batched, faster, preferred) and tfjs (tfjs-engine.ts, one row at a time, the fallback).
 * `createEngine` picks one: "auto" tries onnxruntime and falls back to tfjs when it cannot load.
 */
import type { ModelConfig } from "../policy/config.js";
import type { NamedWeights } from "../policy/weights.js";

export type EngineKind = "ort" | "tfjs";

export interface BatchSession {
  /** the live rows' next-token logits, row-major [rows, V] */
  readonly logits: Float32Array;
  /** keeps the listed live rows (indices into the current rows, ascending), drops the rest,
   *  and feeds `tokens[i]` to kept row i; `logits` then holds the kept rows' next logits */
  step(keep: number[], tokens: number[]): Promise<void>;
  /** prefills `prompts` and adds them as rows after the live ones (continuous batching); their
   *  logits follow the live rows' in `logits`. Absent where the engine cannot add rows. */
  join?(prompts: number[][]): Promise<void>;
  /** for the rows the last `start` or `join` added, in order: how many of their prompt tokens
   *  came from the prefix store rather than a forward pass (absent: none) */
  readonly cached?: readonly number[];
  dispose(): void;
}

export interface StepEngine {
  readonly kind: EngineKind;
  readonly config: ModelConfig;
  /** the most prompts `start` takes at once */
  readonly maxBatch: number;
  /** true once close() ran (an unloaded adapter) */
  readonly closed: boolean;
  /** prompts starting like an earlier one prefill only their new tokens */
  readonly prefixCaching: boolean;
  /** how many prompt tokens' keys and values the prefix store holds at most (0: off) */
  readonly prefixCacheTokens: number;
  start(prompts: number[][]): Promise<BatchSession>;
  close(): Promise<void>;
}

export interface EngineOptions {
  /** the onnxruntime engine's prefix store budget in bytes (default 256 MiB; 0: off) */
  prefixCacheBytes?: number;
}

export async function createEngine(
  kind: EngineKind | "auto",
  config: ModelConfig,
  weights: NamedWeights,
  warn: (line: string) => void = () => {},
  options: EngineOptions = {},
): Promise<StepEngine> {
  if (kind === "ort" || kind === "auto") {
    try {
      const { OrtEngine } = await import("./ort-engine.js");
      return await OrtEngine.create(config, weights, options);
    } catch (e) {
      if (kind === "ort") throw e;
      warn(`onnxruntime engine unavailable (${(e as Error).message.split("\n")[0]}); using tfjs`);
    }
  }
  const { TfjsEngine } = await import("./tfjs-engine.js");
  return TfjsEngine.create(config, weights);
}
