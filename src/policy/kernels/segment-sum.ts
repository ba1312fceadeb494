/**
 * UnsortedSegmentSum for the wasm backend, which ships none (tfjs-backend-wasm 4.22), although
 * tf.gather's gradient (the embedding gradient) needs it. Written in JS over the wasm heap: one
 * pass over the rows, each added into its segment's row. Semantics follow TensorFlow's op:
 * out[s] = sum of x[i] where segmentIds[i] == s; ids outside [0, numSegments) are dropped.
 */
import * as tf from "@tensorflow/tfjs-core";
import type { HeapBackend } from "./fallback.js";

interface ReadableHeapBackend extends HeapBackend {
  readSync(dataId: tf.DataId): tf.backend_util.BackendValues;
}

function unsortedSegmentSum(args: { inputs: tf.NamedTensorInfoMap; backend: unknown; attrs?: tf.NamedAttrMap }): tf.TensorInfo {
  const backend = args.backend as ReadableHeapBackend;
  const { x, segmentIds } = args.inputs as { x: tf.TensorInfo; segmentIds: tf.TensorInfo };
  const numSegments = (args.attrs as { numSegments: number }).numSegments;
  if (x.dtype !== "float32") throw new Error(`UnsortedSegmentSum: float32 only, got ${x.dtype}`);
  const rows = tf.util.sizeFromShape(segmentIds.shape);
  const inner = tf.util.sizeFromShape(x.shape) / Math.max(rows, 1);
  const outShape = [numSegments, ...x.shape.slice(segmentIds.shape.length)];
  const out = backend.makeOutput(outShape, "float32");
  // views taken after the allocation: growing the heap would detach earlier views
  const o = backend.typedArrayFromHeap(out) as Float32Array;
  const xs = backend.typedArrayFromHeap(x) as Float32Array;
  const ids = segmentIds.dtype === "int32" ? (backend.typedArrayFromHeap(segmentIds) as Int32Array) : Int32Array.from(backend.readSync(segmentIds.dataId) as ArrayLike<number>);
  o.fill(0);
  for (let r = 0; r < rows; r++) {
    const s = ids[r];
    if (s < 0 || s >= numSegments) continue;
    const src = r * inner, dst = s * inner;
    for (let j = 0; j < inner; j++) o[dst + j] += xs[src + j];
  }
  return out;
}

export const wasmUnsortedSegmentSumConfig: tf.KernelConfig = {
  kernelName: "UnsortedSegmentSum",
  backendName: "wasm",
  kernelFunc: unsortedSegmentSum as unknown as tf.KernelFunc,
};
