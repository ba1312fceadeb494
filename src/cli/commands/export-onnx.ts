/**
 * `train-mcp export-onnx --model <dir> [--out file.onnx]`: writes a standalone ONNX model of a
 * Hugging Face checkpoint folder (config.json + safetensors), the graph the onnxruntime sampler
 * runs, with the weights as initializers (policy/onnx/export.ts). Inputs: input_ids, position_ids,
 * attn_bias and the per-layer KV cache; outputs: logits and the updated cache.
 */
import * as path from "node:path";
import type { Command } from "commander";
import { TrainMcpError } from "../../errors.js";
import { exportOnnx } from "../../policy/onnx/export.js";
import { loadCheckpoint } from "../../policy/weights.js";

export function register(program: Command): void {
  program
    .command("export-onnx")
    .description("write a standalone ONNX model (weights as initializers) of a checkpoint folder")
    .requiredOption("--model <dir>", "Hugging Face model folder (config.json + model.safetensors)")
    .option("--out <file>", "output file (default: <dir>/model.onnx)")
    .option("--external-data <mode>", "auto | always | never: weights in <out>.data (auto: above 1.5 GiB)", "auto")
    .action(async (opts: { model: string; out?: string; externalData: string }) => {
      const mode = opts.externalData;
      if (mode !== "auto" && mode !== "always" && mode !== "never") {
        throw new TrainMcpError("ConfigInvalid", `--external-data: expected auto, always or never, got "${mode}"`);
      }
      const { config, weights } = await loadCheckpoint(opts.model);
      const out = opts.out ?? path.join(opts.model, "model.onnx");
      const r = exportOnnx(config, weights, out, { externalData: mode });
      process.stdout.write(`wrote ${r.file} (${(r.bytes / 2 ** 20).toFixed(1)} MiB)${r.dataFile ? ` and ${r.dataFile}` : ""}\n`);
    });
}
