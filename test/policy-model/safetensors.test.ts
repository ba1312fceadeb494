/** safetensors read/write, dtypes, the sharded index form, and checkpoint round trips. */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/policy/config.js";
import { parseSafetensors, readSafetensors, serializeSafetensors, writeSafetensors } from "../../src/policy/safetensors.js";
import { initRandomWeights, loadCheckpoint, saveCheckpoint, weightShapes } from "../../src/policy/weights.js";

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "h3-st-"));

/** Builds a safetensors buffer with raw bytes per tensor (any dtype), as a foreign writer would. */
function rawFile(entries: { name: string; dtype: string; shape: number[]; bytes: Buffer }[]): Buffer {
  const header: Record<string, unknown> = {};
  let off = 0;
  for (const e of entries) {
    header[e.name] = { dtype: e.dtype, shape: e.shape, data_offsets: [off, off + e.bytes.length] };
    off += e.bytes.length;
  }
  const h = Buffer.from(JSON.stringify(header)); // deliberately unpadded: data may be misaligned
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(h.length));
  return Buffer.concat([len, h, ...entries.map((e) => e.bytes)]);
}

const tinyConfig = () =>
  resolveConfig({ model_type: "qwen2", vocab_size: 16, hidden_size: 8, intermediate_size: 12, num_hidden_layers: 2, num_attention_heads: 2, num_key_value_heads: 1, tie_word_embeddings: false });

describe("safetensors", () => {
  it("round-trips float32 tensors and reads them zero-copy when aligned", () => {
    const t = new Map([
      ["b", { shape: [2, 3], data: Float32Array.from([1, 2, 3, 4, 5, -6.5]) }],
      ["a", { shape: [1], data: Float32Array.from([7]) }],
    ]);
    const buf = serializeSafetensors(t, { format: "pt" });
    expect(Number(buf.readBigUInt64LE(0)) % 8).toBe(0);
    const { tensors, metadata } = parseSafetensors(buf);
    expect(metadata).toEqual({ format: "pt" });
    expect([...tensors.keys()].sort()).toEqual(["a", "b"]);
    expect(Array.from(tensors.get("b")!.data)).toEqual([1, 2, 3, 4, 5, -6.5]);
    expect(tensors.get("b")!.data.buffer).toBe(buf.buffer); // a view, not a copy
  });

  it("widens F16 and BF16 and copies misaligned F32", () => {
    const f16 = Buffer.alloc(8);
    [0x3c00, 0xc000, 0x3555, 0x0001].forEach((h, i) => f16.writeUInt16LE(h, 2 * i)); // 1, -2, ~0.333, 2^-24
    const bf16 = Buffer.alloc(4);
    bf16.writeUInt16LE(0x3fc0, 0); // 1.5
    bf16.writeUInt16LE(0xc120, 2); // -10
    const f32 = Buffer.alloc(8);
    f32.writeFloatLE(3.25, 0);
    f32.writeFloatLE(-1, 4);
    const buf = rawFile([
      { name: "h", dtype: "F16", shape: [4], bytes: f16 },
      { name: "bf", dtype: "BF16", shape: [2], bytes: bf16 },
      { name: "odd", dtype: "F32", shape: [2], bytes: f32 },
    ]);
    const file = path.join(tmp(), "raw.safetensors");
    fs.writeFileSync(file, buf);
    // from a buffer, and from the file tensor by tensor
    for (const { tensors } of [parseSafetensors(buf), readSafetensors(file)]) {
      const h = Array.from(tensors.get("h")!.data);
      expect(h[0]).toBe(1);
      expect(h[1]).toBe(-2);
      expect(h[2]).toBeCloseTo(0.33325, 5);
      expect(h[3]).toBeCloseTo(2 ** -24, 12);
      expect(Array.from(tensors.get("bf")!.data)).toEqual([1.5, -10]);
      expect(Array.from(tensors.get("odd")!.data)).toEqual([3.25, -1]);
    }
  });

  it("reads tensors across many reads (as a file past 2 GiB needs), and writes the layout it serializes", () => {
    const buf = rawFile([
      { name: "x", dtype: "F32", shape: [5], bytes: Buffer.from(Float32Array.from([1, 2, 3, 4, 5]).buffer) },
      { name: "y", dtype: "BF16", shape: [3], bytes: Buffer.from([0xc0, 0x3f, 0x20, 0xc1, 0x80, 0x3f]) },
    ]);
    const file = path.join(tmp(), "chunks.safetensors");
    fs.writeFileSync(file, buf);
    for (const readBytes of [1, 3, 7]) {
      const { tensors } = readSafetensors(file, { readBytes });
      expect(Array.from(tensors.get("x")!.data)).toEqual([1, 2, 3, 4, 5]);
      expect(Array.from(tensors.get("y")!.data)).toEqual([1.5, -10, 1]);
    }

    const t = new Map([
      ["b", { shape: [2, 2], data: Float32Array.from([1, 2, 3, 4]) }],
      ["a", { shape: [2], data: Float32Array.from([5, 6, 7]).subarray(1) }], // a view at an offset
    ]);
    const written = path.join(tmp(), "w.safetensors");
    writeSafetensors(written, t, { format: "pt" });
    expect(fs.readFileSync(written).equals(serializeSafetensors(t, { format: "pt" }))).toBe(true);
  });

  it("rejects truncated files and wrong byte counts with the tensor name", () => {
    const good = serializeSafetensors(new Map([["w", { shape: [4], data: new Float32Array(4) }]]));
    expect(() => parseSafetensors(good.subarray(0, good.length - 4), "x.safetensors")).toThrow(/x.safetensors: tensor "w" runs past/);
    const bad = rawFile([{ name: "w", dtype: "F32", shape: [3], bytes: Buffer.alloc(8) }]);
    expect(() => parseSafetensors(bad)).toThrow(/tensor "w" has 8 bytes, expected 12/);
    expect(() => parseSafetensors(Buffer.from([1, 2]))).toThrow(/too short/);
    const cut = path.join(tmp(), "cut.safetensors");
    fs.writeFileSync(cut, good.subarray(0, good.length - 4));
    expect(() => readSafetensors(cut)).toThrow(/cut.safetensors: tensor "w" runs past/);
    expect(() => readSafetensors(path.join(tmp(), "none.safetensors"))).toThrow(/cannot read .*none.safetensors/);
  });

  it("writes atomically (no temp file left) and overwrites", () => {
    const dir = tmp();
    const f = path.join(dir, "m.safetensors");
    writeSafetensors(f, new Map([["w", { shape: [1], data: Float32Array.from([1]) }]]));
    writeSafetensors(f, new Map([["w", { shape: [1], data: Float32Array.from([2]) }]]));
    expect(fs.readdirSync(dir)).toEqual(["m.safetensors"]);
    expect(readSafetensors(f).tensors.get("w")!.data[0]).toBe(2);
  });
});

describe("checkpoints", () => {
  it("initRandomWeights is deterministic, HF-named, norms 1, std ~0.02", () => {
    const c = tinyConfig();
    const a = initRandomWeights(c, 7), b = initRandomWeights(c, 7), d = initRandomWeights(c, 8);
    expect([...a.keys()]).toEqual([...weightShapes(c).keys()]);
    expect(a.has("lm_head.weight") && a.has("model.layers.1.self_attn.k_proj.bias")).toBe(true);
    expect(a.get("model.embed_tokens.weight")!.data).toEqual(b.get("model.embed_tokens.weight")!.data);
    expect(a.get("model.embed_tokens.weight")!.data).not.toEqual(d.get("model.embed_tokens.weight")!.data);
    expect(Array.from(a.get("model.norm.weight")!.data).every((x) => x === 1)).toBe(true);
    const e = a.get("model.embed_tokens.weight")!.data;
    const std = Math.sqrt(e.reduce((s, x) => s + x * x, 0) / e.length);
    expect(std).toBeGreaterThan(0.015);
    expect(std).toBeLessThan(0.025);
  });

  it("saves and loads a checkpoint, single file and sharded", async () => {
    const c = tinyConfig();
    const w = initRandomWeights(c, 1);
    const dir = tmp();
    saveCheckpoint(dir, c, w);
    const back = await loadCheckpoint(dir);
    expect(back.config.numKvHeads).toBe(1);
    for (const [k, t] of w) expect(back.weights.get(k)!.data).toEqual(t.data);
    // sharded: split into two files plus the index
    const sharded = tmp();
    const names = [...w.keys()];
    const half = Math.floor(names.length / 2);
    const map: Record<string, string> = {};
    [names.slice(0, half), names.slice(half)].forEach((part, i) => {
      const f = `model-0000${i + 1}-of-00002.safetensors`;
      writeSafetensors(path.join(sharded, f), new Map(part.map((n) => [n, w.get(n)!])));
      for (const n of part) map[n] = f;
    });
    fs.writeFileSync(path.join(sharded, "model.safetensors.index.json"), JSON.stringify({ metadata: {}, weight_map: map }));
    fs.copyFileSync(path.join(dir, "config.json"), path.join(sharded, "config.json"));
    const s = await loadCheckpoint(sharded);
    for (const [k, t] of w) expect(s.weights.get(k)!.data).toEqual(t.data);
  });

  it("names a missing tensor or a wrong shape", async () => {
    const c = tinyConfig();
    const w = initRandomWeights(c, 1);
    const dir = tmp();
    saveCheckpoint(dir, c, w);
    const { tensors } = readSafetensors(path.join(dir, "model.safetensors"));
    tensors.delete("model.layers.1.mlp.up_proj.weight");
    writeSafetensors(path.join(dir, "model.safetensors"), tensors);
    await expect(loadCheckpoint(dir)).rejects.toThrow(/"model.layers.1.mlp.up_proj.weight" is missing/);
    tensors.set("model.layers.1.mlp.up_proj.weight", { shape: [12, 7], data: new Float32Array(84) });
    writeSafetensors(path.join(dir, "model.safetensors"), tensors);
    await expect(loadCheckpoint(dir)).rejects.toThrow(/shape \[12,7\], expected \[12,8\]/);
    await expect(loadCheckpoint(tmp())).rejects.toThrow(/no config.json/);
  });
});
