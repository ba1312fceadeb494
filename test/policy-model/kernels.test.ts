/**
 * The replaced wasm kernels (BatchMatMul with transposes/batches/broadcast, UnsortedSegmentSum)
 * against tfjs's pure-JS cpu backend: values and gradients must agree, op by op and for a whole
 * model's loss gradient.
 */
import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../src/policy/backend.js";
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
