/**
 * The wasm backend on a nearly full heap: where XNNPACK would only have printed a warning and
 * left a product unwritten, the matmul throws the out-of-memory error; where tfjs would have
 * written a kernel's output at offset 0 (over other tensors), the allocation throws.
 * Fills ~3.7 GiB of the wasm heap, so it has a file (a worker) of its own.
 */
import * as tf from "@tensorflow/tfjs-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../src/policy/backend.js";
import { TrainMcpError } from "../../src/errors.js";

const MiB = 2 ** 20;
/** the wasm module's allocator: blocks taken from it are never touched, so they cost no RAM */
const wasmHeap = () => (tf.backend() as unknown as { wasm: { _malloc(n: number): number; _free(p: number): void } }).wasm;

describe("wasm matmul out of memory", () => {
  const held: tf.Tensor[] = [];
  const blocks: number[] = [];
  beforeAll(async () => {
    await initBackend({ device: "wasm" });
  });
  afterAll(() => {
    tf.dispose(held);
    for (const p of blocks.splice(0)) wasmHeap()._free(p);
  });

  it("throws a clear error instead of returning an unwritten product", () => {
    const K = 1024, N = 150_000; // b: 586 MiB, and as much again for XNNPACK's packed copy
    const a = tf.ones([4, K]);
    const b = tf.fill([K, N], 0.5);
    held.push(a, b);
    // the product fits while the heap has room
    const small = tf.matMul(a, tf.slice(b, [0, 0], [K, 8]));
    expect(small.dataSync()[0]).toBe(512);
    small.dispose();
    // then hold the heap at ~3.6 GiB: b's packed copy no longer fits under 4 GiB
    while (tf.memory().numBytes + (blocks.length + 1) * 256 * MiB < 3.6 * 1024 * MiB) {
      const p = wasmHeap()._malloc(256 * MiB);
      expect(p).not.toBe(0);
      blocks.push(p);
    }
    let err: unknown;
    try {
      tf.matMul(a, b).dispose();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TrainMcpError);
    expect((err as Error).message).toMatch(/^the tfjs wasm backend is out of memory: a \[4, 1024\] x \[1024, 150000\] product needs \d+ MiB more than its heap holds\. The wasm heap stops at 4 GiB/);
    // any other kernel's output that does not fit throws too (tfjs would have written it at offset 0)
    expect(() => tf.zeros([150 * MiB])).toThrow(/^the tfjs wasm backend is out of memory: 600 MiB more did not fit\. The wasm heap stops at 4 GiB/);
    // the backend is still usable for what fits
    for (const p of blocks.splice(0)) wasmHeap()._free(p);
    const again = tf.matMul(a, tf.slice(b, [0, 0], [K, 8]));
    expect(again.dataSync()[0]).toBe(512);
    again.dispose();
  });
});
