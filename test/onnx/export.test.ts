/**
 * `train-mcp export-onnx` end to end through the real CLI entry: a checkpoint folder on disk
 * becomes a standalone .onnx file (inline weights, and with external data) that onnxruntime loads
 * from its path and that gives the same logits as the in-memory graph. Plus the clear errors:
 * a bad flag value exits 2, and `--device gpu` without CUDA is BackendUnavailable.
 */
import { afterAll, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { main } from "../../src/cli/main.js";
import { isTrainMcpError } from "../../src/errors.js";
import { OrtPolicy } from "../../src/policy/onnx/ort-policy.js";
import { attentionBias } from "../../src/policy/onnx/policy-graph.js";
import { createSession, ort } from "../../src/policy/onnx/session.js";
import { saveCheckpoint } from "../../src/policy/weights.js";
import { CASES, randomIds, randomWeights, relErr } from "./helpers.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "train-mcp-onnx-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function runFile(file: string, c: (typeof CASES)[string], ids: number[]): Promise<Float32Array> {
  const s = await createSession(file, { intraOpThreads: 1 });
  const T = ids.length;
  const feeds: Record<string, ort.Tensor> = {
    input_ids: new ort.Tensor("int64", BigInt64Array.from(ids.map(BigInt)), [1, T]),
    position_ids: new ort.Tensor("int64", BigInt64Array.from(ids.map((_, i) => BigInt(i))), [1, T]),
    attn_bias: new ort.Tensor("float32", attentionBias([0], 0, 0, T), [1, 1, T, T]),
  };
  for (let l = 0; l < c.numLayers; l++)
    for (const kv of ["key", "value"]) feeds[`past_${kv}_${l}`] = new ort.Tensor("float32", new Float32Array(0), [1, c.numKvHeads, 0, c.headDim]);
  const out = await s.run(feeds);
  await s.release();
  return out.logits.data as Float32Array;
}

let stdout = "";
/** runs the real CLI entry with stdout captured */
async function cli(argv: string[]): Promise<number> {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((s: string) => ((stdout += s), true)) as typeof process.stdout.write;
  try {
    return await main(argv);
  } finally {
    process.stdout.write = write;
  }
}

describe("export-onnx", () => {
  const c = CASES["qwen3-qknorm-mha"];
  const w = randomWeights(c, 9);
  const dir = path.join(tmp, "ckpt");
  saveCheckpoint(dir, c, w);
  const ids = randomIds(8, c.vocabSize, 4);

  it("writes a standalone model that loads from its path and matches the in-memory graph", async () => {
    expect(await cli(["export-onnx", "--model", dir])).toBe(0);
    const file = path.join(dir, "model.onnx");
    expect(stdout).toContain(file);
    const p = await OrtPolicy.create(c, w, { session: { intraOpThreads: 1 } });
    const want = (await p.forward([ids])).logits;
    await p.release();
    expect(relErr(await runFile(file, c, ids), want)).toBe(0);
    // external data: a small .onnx plus <out>.data, resolved relative to the model file
    const ext = path.join(tmp, "out", "ext.onnx");
    expect(await cli(["export-onnx", "--model", dir, "--out", ext, "--external-data", "always"])).toBe(0);
    expect(stdout).toContain(`${ext}.data`);
    expect(fs.statSync(ext).size).toBeLessThan(fs.statSync(`${ext}.data`).size);
    expect(relErr(await runFile(ext, c, ids), want)).toBe(0);
    // the tied embedding is stored once: the side file holds the checkpoint's weights plus the
    // rotary table and alignment, not a second [V, D] copy as the head (V*D*4 = 9 KiB here)
    const weightBytes = [...w.values()].reduce((s, t) => s + t.data.length * 4, 0);
    expect(c.tieWordEmbeddings).toBe(true);
    expect(fs.statSync(`${ext}.data`).size).toBeLessThan(weightBytes + c.headDim * c.headDim * 4 + 64 * 40);
  });

  it("usage errors exit 2: a bad --external-data value, a folder that does not exist", async () => {
    const err = process.stderr.write.bind(process.stderr);
    let stderr = "";
    process.stderr.write = ((s: string) => ((stderr += s), true)) as typeof process.stderr.write;
    try {
      expect(await main(["export-onnx", "--model", dir, "--external-data", "sometimes"])).toBe(2);
      expect(await main(["export-onnx", "--model", path.join(tmp, "nowhere")])).toBe(2);
    } finally {
      process.stderr.write = err;
    }
    expect(stderr).toMatch(/--external-data: expected auto, always or never, got "sometimes"/);
    expect(stderr).toMatch(/--model \S+nowhere: no such folder/);
  });

  it("--device gpu without the CUDA provider is a clear BackendUnavailable error", async () => {
    const e = await OrtPolicy.create(c, w, { session: { device: "gpu" } }).then(
      () => null,
      (err: unknown) => err,
    );
    // on a machine with the CUDA provider installed the session starts; here it must not
    if (e === null) return;
    expect(isTrainMcpError(e) && e.code).toBe("BackendUnavailable");
    expect((e as Error).message).toMatch(/--device gpu/);
  });
});
