/**
 * `train-mcp export-onnx --model <dir> [--out file.onnx]`: writes a standalone ONNX model of a
 * Hugging Face checkpoint folder (config.json + safetensors), the graph the onnxruntime sampler
 * runs, with the weights as initializers (policy/onnx/export.ts). Inputs: input_ids and
 * position_ids [batch, seq] (int64), attn_bias [batch, 1, seq, cache+seq] (float, 0 or -1e9),
 * past_key_N / past_value_N [batch, kv_heads, cache, head_dim]; outputs: logits [batch, seq, vocab]
 * and new_key_N / new_value_N holding the keys and values of the NEW positions only: the caller
 * appends them to its cache (README "Exporting to ONNX").
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Command } from "commander";
import { TrainMcpError } from "../../errors.js";
import { exportOnnx } from "../../policy/onnx/export.js";
import { loadModelFolder, resolveModelFolder } from "../../policy/model-folder.js";

export function register(program: Command): void {
  program
    .command("export-onnx")
    .description("write a standalone ONNX model (weights as initializers) of a checkpoint folder")
    .requiredOption("--model <dir>", 'Hugging Face model folder, a checkpoint (LoRA adapters folded into their base), or "default"')
    .option("--out <file>", "output file (default: <dir>/model.onnx; default.onnx for the built-in model)")
    .option("--external-data <mode>", "auto | always | never: weights in <out>.data (auto: above 1.5 GiB)", "auto")
    .action(async (opts: { model: string; out?: string; externalData: string }) => {
      const mode = opts.externalData;
      if (mode !== "auto" && mode !== "always" && mode !== "never") {
        throw new TrainMcpError("ConfigInvalid", `--external-data: expected auto, always or never, got "${mode}"`);
      }
      const folder = resolveModelFolder(opts.model);
      if (folder.weightsDir === null) throw new TrainMcpError("ModelInvalid", `--model ${opts.model}: the built-in model has no trained weights here (model.safetensors) to export`);
      const { config, weights } = await loadModelFolder(folder);
      // "default" lives inside the package: write beside the caller, not into node_modules
      let out = opts.out ?? (opts.model === "default" ? path.resolve("default.onnx") : path.join(folder.dir, "model.onnx"));
      // a folder as --out: the file goes inside it
      if (fs.existsSync(out) && fs.statSync(out).isDirectory()) out = path.join(out, opts.model === "default" ? "default.onnx" : "model.onnx");
      const r = exportOnnx(config, weights, out, { externalData: mode });
      process.stdout.write(`wrote ${r.file} (${(r.bytes / 2 ** 20).toFixed(1)} MiB)${r.dataFile ? ` and ${r.dataFile}` : ""}\n`);
    });
}
