/**
 * Standalone ONNX export of a checkpoint: the same graph the ORT sampler runs (policy-graph.ts,
 * logits for every position), weights as initializers. Models whose weights pass 1.5 GiB keep them
 * in a side file `<out>.data` (ONNX external data: location/offset/length per tensor, 64-byte
 * aligned; tensors under 1 KiB stay inline, as onnx.external_data_helper does), because a protobuf message cannot exceed 2 GiB.
 * A tied head is stored once (the graph transposes the embedding; onnxruntime folds that at load).
 * Both files are written to temporary names and renamed, so a crash leaves no half model.
 */
import * as path from "node:path";
import type { ModelConfig } from "../config.js";
import type { NamedWeights } from "../weights.js";
import { buildPolicyGraph, prepareGraphWeights } from "./policy-graph.js";
import { writePartsAtomic } from "../safetensors.js";
import { encodeModelParts } from "./proto.js";

export interface ExportOnnxOptions {
  /** "auto" (default): inline below 1.5 GiB of weights, external data above */
  externalData?: "auto" | "always" | "never";
}

export interface ExportOnnxResult {
  file: string;
  dataFile: string | null;
  bytes: number;
}

const INLINE_LIMIT = 1.5 * 2 ** 30;

/** Writes `file` (and `<file>.data` when the weights live outside the protobuf). */
export function exportOnnx(config: ModelConfig, weights: NamedWeights, file: string, opts: ExportOnnxOptions = {}): ExportOnnxResult {
  const model = buildPolicyGraph(config, prepareGraphWeights(config, weights, { tiedHead: "shared" }), { logits: "all" });
  const weightBytes = model.initializers.reduce((s, t) => s + (t.raw?.length ?? 0), 0);
  const mode = opts.externalData ?? "auto";
  const external = mode === "always" || (mode === "auto" && weightBytes > INLINE_LIMIT);
  let dataFile: string | null = null;
  if (external) {
    dataFile = `${file}.data`;
    const location = path.basename(dataFile);
    const parts: Uint8Array[] = [];
    let offset = 0;
    for (const t of model.initializers) {
      const raw = t.raw ?? new Uint8Array(0);
      // small constants (shapes, axes) stay inline: shape inference reads them at load time
      if (raw.length < 1024) continue;
      const aligned = Math.ceil(offset / 64) * 64;
      if (aligned > offset) parts.push(new Uint8Array(aligned - offset));
      parts.push(raw);
      t.external = { location, offset: aligned, length: raw.length };
      t.raw = undefined;
      offset = aligned + raw.length;
    }
    writePartsAtomic(dataFile, parts);
  }
  const bytes = writePartsAtomic(file, encodeModelParts(model));
  return { file, dataFile, bytes };
}
