/**
 * The replaced wasm kernels (BatchMatMul with transposes/batches/broadcast, UnsortedSegmentSum,
 * GatherV2, Sum over leading axes, buffer-sharing Identity/Cast) and the model's own fused
 * pieces (RoPE's rotation matrix, log-sum-exp through Softmax) against tfjs's pure-JS cpu
 * backend or a direct formula: values and gradients must agree, op by op and for a whole model's
 * loss gradient.
 */
import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../src/policy/backend.js";
import { applyRope, logSumExpRows, ropeTables } from "../../src/policy/model/layers.js";
import { Transformer } from "../../src/policy/model/transformer.js";
import { mulberry32 } from "../../src/policy/weights.js";
import { GOLDEN_CASES, loadGolden, relErr } from "./helpers.js";

beforeAll(async () => {
  await initBackend({ device: "js" }); // registers the cpu backend's state first
  await initBackend({ device: "wasm" });
});

const rand = mulberry32(42);
const randArr = (n: number) => Float32Array.from({ length: n }, () => 2 * rand() - 1);

/** Runs fn on a backend with fresh copies of the inputs; returns the outputs' values. */
async function on(backend: string, inputs: { data: Float32Array; shape: number[] }[], fn: (...xs: tf.Tensor[]) => tf.Tensor[]): Promise<Float32Array[]> {
  await tf.setBackend(backend);
  return tf.tidy(() => fn(...inputs.map((i) => tf.tensor(i.data, i.shape))).map((t) => t.dataSync() as Float32Array));
}

describe("wasm kernels agree with the cpu backend", () => {
  const cases: [number[], number[], boolean, boolean][] = [
    [[5, 7], [7, 3], false, false],
    [[7, 5], [7, 3], true, false],
    [[5, 7], [3, 7], false, true],
    [[7, 5], [3, 7], true, true],
    [[4, 5, 7], [4, 7, 3], false, false],
    [[4, 7, 5], [4, 3, 7], true, true],
    [[2, 3, 5, 7], [2, 3, 3, 7], false, true],
  ];
  // broadcast batch dims: forward only (tfjs-core's own matMul gradient rejects broadcasting)
  it.each([
    [[4, 5, 7], [1, 7, 3], false, false],
    [[1, 5, 7], [4, 3, 7], false, true],
    [[1, 7, 5], [3, 3, 7], true, true],
  ] as [number[], number[], boolean, boolean][])("matMul %j x %j (tA=%s, tB=%s) with a broadcast batch", async (as, bs, ta, tb) => {
    const a = { data: randArr(as.reduce((x, y) => x * y)), shape: as };
    const b = { data: randArr(bs.reduce((x, y) => x * y)), shape: bs };
    const f = (x: tf.Tensor, y: tf.Tensor) => [tf.matMul(x, y, ta, tb)];
    const ref = await on("cpu", [a, b], f);
    const got = await on("wasm", [a, b], f);
    expect(relErr(got[0], ref[0])).toBeLessThan(1e-5);
  });
  it.each(cases)("matMul %j x %j (tA=%s, tB=%s): values and gradients", async (as, bs, ta, tb) => {
    const a = { data: randArr(as.reduce((x, y) => x * y)), shape: as };
    const b = { data: randArr(bs.reduce((x, y) => x * y)), shape: bs };
    const f = (x: tf.Tensor, y: tf.Tensor) => {
      const out = tf.matMul(x, y, ta, tb);
      const w = tf.sin(tf.reshape(tf.range(0, out.size), out.shape)); // a non-uniform upstream gradient
      const [ga, gb] = tf.grads((p: tf.Tensor, q: tf.Tensor) => tf.sum(tf.mul(tf.matMul(p, q, ta, tb), w)))([x, y]);
      return [out, ga, gb];
    };
    const ref = await on("cpu", [a, b], f);
    const got = await on("wasm", [a, b], f);
    for (let i = 0; i < 3; i++) expect(relErr(got[i], ref[i]), `output ${i}`).toBeLessThan(1e-5);
  });

  it("gather gradient (UnsortedSegmentSum) with repeated and unused rows", async () => {
    const e = { data: randArr(20 * 6), shape: [20, 6] };
    const f = (w: tf.Tensor) => {
      const ids = tf.tensor1d([3, 1, 3, 19, 0, 3], "int32");
      const up = tf.cos(tf.reshape(tf.range(0, 36), [6, 6]));
      return [tf.grad((x: tf.Tensor) => tf.sum(tf.mul(tf.gather(x, ids), up)))(w)];
    };
    const ref = await on("cpu", [e], f);
    const got = await on("wasm", [e], f);
    expect(relErr(got[0], ref[0])).toBeLessThan(1e-6);
    expect(tf.getBackend()).toBe("wasm");
  });

  it.each([
    [[20, 6], [7], 0],
    [[4, 9, 3], [5, 2], 1],
    [[30], [4], 0],
    [[30], [0], 0],
    [[3, 5], [4], 1],
  ] as [number[], number[], number][])("gather %j at %j indices, axis %i: values, float32 and int32", async (shape, idxShape, axis) => {
    const n = shape.reduce((x, y) => x * y);
    const dim = shape[axis];
    const idx = Int32Array.from({ length: idxShape.reduce((x, y) => x * y) }, (_, i) => (i * 7 + 3) % dim);
    const f = (x: tf.Tensor) => [tf.gather(x, tf.tensor(idx, idxShape, "int32"), axis), tf.cast(tf.gather(tf.cast(tf.mul(x, 100), "int32"), tf.tensor(idx, idxShape, "int32"), axis), "float32")];
    const x = { data: randArr(n), shape };
    const ref = await on("cpu", [x], f);
    const got = await on("wasm", [x], f);
    expect(Array.from(got[0])).toEqual(Array.from(ref[0]));
    expect(Array.from(got[1])).toEqual(Array.from(ref[1]));
  });

  it("gather names an index outside the table", async () => {
    await tf.setBackend("wasm");
    const x = tf.zeros([4, 3]);
    const idx = tf.tensor1d([1, 4], "int32");
    const heapBuffers = () => tf.backend().numDataIds(); // the backend's own count: an untracked output shows there
    const before = heapBuffers();
    expect(() => tf.gather(x, idx)).toThrow(/index 4 at position 1 is outside \[0, 3\]/);
    expect(heapBuffers()).toBe(before); // nothing allocated for the failed call
    tf.dispose([x, idx]);
  });

  it.each([
    [[2048, 16], [0], false],
    [[5, 7], [0], true],
    [[3, 4, 5], [0, 1], false],
    [[3, 4, 5], [1, 0], true],
    [[3, 4, 5], [1], false], // not leading: the stock kernel
    [[3, 4, 5], [0, 2], false], // not leading: the stock kernel
    [[6, 5], [-2], false],
  ] as [number[], number[], boolean][])("sum of %j over axes %j (keepDims %s) and its use as a broadcast gradient", async (shape, axes, keepDims) => {
    const x = { data: randArr(shape.reduce((a, b) => a * b)), shape };
    const w = { data: randArr(shape[shape.length - 1]), shape: [shape[shape.length - 1]] };
    const f = (t: tf.Tensor, v: tf.Tensor) => [tf.sum(t, axes, keepDims), tf.grad((u: tf.Tensor) => tf.sum(tf.mul(tf.mul(t, u), t)))(v)];
    const ref = await on("cpu", [x, w], f);
    const got = await on("wasm", [x, w], f);
    expect(relErr(got[0], ref[0])).toBeLessThan(1e-6);
    expect(relErr(got[1], ref[1])).toBeLessThan(1e-6);
  });

  it("clone and same-dtype cast share the buffer without freeing it early; other casts convert", async () => {
    await tf.setBackend("wasm");
    const buffers = () => tf.memory().numDataBuffers;
    const before = buffers();
    const x = tf.tensor1d([1.5, -2.25, 3]);
    const c = tf.clone(x), f = tf.cast(x, "float32");
    expect(buffers() - before).toBe(1); // one buffer for the three tensors
    c.dispose();
    f.dispose();
    expect(Array.from(x.dataSync())).toEqual([1.5, -2.25, 3]);
    const i = tf.cast(x, "int32");
    expect(i.dtype).toBe("int32");
    expect(Array.from(i.dataSync())).toEqual([1, -2, 3]);
    const back = tf.cast(i, "float32");
    expect(Array.from(back.dataSync())).toEqual([1, -2, 3]);
    tf.dispose([x, i, back]);
    expect(buffers()).toBe(before);
  });

  it("RoPE through the rotation matrix equals HF's rotate_half with slices", async () => {
    await tf.setBackend("wasm");
    const hd = 8, T = 5;
    const { cos, sin, rotate } = ropeTables(hd, 10000, 16);
    const x = tf.tensor4d(randArr(2 * T * 3 * hd), [2, T, 3, hd]);
    const pos = tf.tile(tf.reshape(tf.range(3, 3 + T, 1, "int32"), [1, T]), [2, 1]);
    const c = tf.reshape(tf.gather(cos, pos), [2, T, 1, hd]) as tf.Tensor4D;
    const s = tf.reshape(tf.gather(sin, pos), [2, T, 1, hd]) as tf.Tensor4D;
    const x1 = tf.slice(x, [0, 0, 0, 0], [-1, -1, -1, hd / 2]), x2 = tf.slice(x, [0, 0, 0, hd / 2], [-1, -1, -1, hd / 2]);
    const want = tf.add(tf.mul(x, c), tf.mul(tf.concat([tf.neg(x2), x1], 3), s));
    expect(relErr(applyRope(x, c, s, rotate).dataSync() as Float32Array, want.dataSync() as Float32Array)).toBeLessThan(1e-6);
    tf.dispose([cos, sin, rotate, x, pos, c, s, x1, x2, want]);
  });

  it("log-sum-exp rows: value and gradient against float64, with rows far from 0", async () => {
    await tf.setBackend("wasm");
    const N = 4, V = 50;
    const data = randArr(N * V).map((v, i) => v * 30 + (i < V ? 500 : i < 2 * V ? -700 : 0)); // wide rows, large offsets
    const w = randArr(N);
    const x = tf.tensor2d(data, [N, V]);
    const [value, grad] = tf.tidy(() => {
      const val = logSumExpRows(x);
      const g = tf.grad((t: tf.Tensor) => tf.sum(tf.mul(logSumExpRows(t as tf.Tensor2D), tf.tensor1d(w))))(x);
      return [val.dataSync(), g.dataSync()];
    });
    for (let r = 0; r < N; r++) {
      const row = Array.from(data.subarray(r * V, (r + 1) * V), Number);
      const m = Math.max(...row);
      const s = row.reduce((a, v) => a + Math.exp(v - m), 0);
      expect(Math.abs(value[r] - (m + Math.log(s)))).toBeLessThan(1e-4 * Math.max(1, Math.abs(m)));
      for (let j = 0; j < V; j++) expect(grad[r * V + j]).toBeCloseTo((w[r] * Math.exp(row[j] - m)) / s, 5);
    }
    x.dispose();
  });

  it.each(GOLDEN_CASES)("whole-model loss gradient on %s: wasm = cpu", async (name) => {
    const { dir, inputs } = loadGolden(name);
    const grads = async (backend: string) => {
      await tf.setBackend(backend);
      const model = await Transformer.load(dir);
      const mask = tf.tensor2d(inputs.mask);
      const vars = model.trainableVariables();
      const { value, grads } = tf.variableGrads(() => {
        const { logp } = model.tokenLogprobs(inputs.ids);
        return tf.div(tf.sum(tf.mul(logp, mask)), tf.sum(mask)) as tf.Scalar;
      }, [...vars.values()]);
      const out = new Map([...vars].map(([k, v]) => [k, grads[v.name].dataSync() as Float32Array]));
      tf.dispose([value, mask, ...Object.values(grads)]);
      model.dispose();
      return out;
    };
    const ref = await grads("cpu");
    const got = await grads("wasm");
    let worst = 0;
    for (const [k, g] of ref) worst = Math.max(worst, relErr(got.get(k)!, g));
    expect(worst).toBeLessThan(1e-5);
  });
});
