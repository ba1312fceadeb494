/**
 * GatherV2 for the wasm backend as contiguous block copies. The stock kernel
 * (tfjs-backend-wasm 4.22) walks the output element by element: gathering the embedding rows of
 * a 2,048-token batch ([2048, 256] table) took ~15 ms, the RoPE tables' rows ~7 ms each. Here each
 * index copies its whole inner block (a row of the table) with TypedArray.set. Handles
 * batchDims 0, any axis, float32/int32 params and int32 indices; anything else goes to `stock`.
 */
import * as tf from "@tensorflow/tfjs-core";
import { withStockFallback } from "./fallback.js";

export function wasmGatherConfig(stockConfig: tf.KernelConfig): tf.KernelConfig {
  return withStockFallback(stockConfig, (args, backend) => {
    const { x, indices } = args.inputs as { x: tf.TensorInfo; indices: tf.TensorInfo };
    const { axis, batchDims } = args.attrs as { axis: number; batchDims: number };
    if (batchDims !== 0 || indices.dtype !== "int32" || (x.dtype !== "float32" && x.dtype !== "int32")) return null;
    const ax = tf.util.parseAxisParam(axis, x.shape)[0];
    const outer = tf.util.sizeFromShape(x.shape.slice(0, ax));
    const dim = x.shape[ax];
    const inner = tf.util.sizeFromShape(x.shape.slice(ax + 1));
    const n = tf.util.sizeFromShape(indices.shape);
    // checked before the output exists, so a bad index leaks nothing
    const given = backend.typedArrayFromHeap(indices) as Int32Array;
    for (let i = 0; i < n; i++)
      if (!(given[i] >= 0 && given[i] < dim)) throw new Error(`GatherV2: index ${given[i]} at position ${i} is outside [0, ${dim - 1}] (axis ${ax} of [${x.shape}])`);
    const out = backend.makeOutput([...x.shape.slice(0, ax), ...indices.shape, ...x.shape.slice(ax + 1)], x.dtype);
    // views taken after the allocation: growing the heap would detach earlier views
    const src = backend.typedArrayFromHeap(x) as Float32Array | Int32Array;
    const dst = backend.typedArrayFromHeap(out) as Float32Array | Int32Array;
    const idx = backend.typedArrayFromHeap(indices) as Int32Array;
    for (let o = 0; o < outer; o++) {
      const base = o * dim * inner, ob = o * n * inner;
      if (inner === 1) for (let i = 0; i < n; i++) dst[ob + i] = src[base + idx[i]];
      else for (let i = 0; i < n; i++) dst.set(src.subarray(base + idx[i] * inner, base + (idx[i] + 1) * inner), ob + i * inner);
    }
    return out;
  });
}
