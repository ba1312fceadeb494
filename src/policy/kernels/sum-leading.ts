/**
 * Sum over the leading axes for the wasm backend (column sums). The stock kernel reduces only
 * innermost axes, so for any other axis it first transposes the whole input: the gradients of a
 * broadcast weight or bias (RMSNorm's scale, Qwen2's q/k/v biases — a sum over all token rows of
 * a [tokens, D] block) cost a full transpose each (~4.7 ms for [2048, 256], 9 per training step
 * of the bench shape). Here the rows are added in one pass, in float64, into the output. Other
 * reductions go to `stock`.
 */
import * as tf from "@tensorflow/tfjs-core";
import { withStockFallback } from "./fallback.js";

export function wasmSumConfig(stockConfig: tf.KernelConfig): tf.KernelConfig {
  return withStockFallback(stockConfig, (args, backend) => {
    const { x } = args.inputs as { x: tf.TensorInfo };
    const { axis, keepDims } = args.attrs as { axis: number | number[] | null; keepDims: boolean };
    const rank = x.shape.length;
    const axes = [...tf.util.parseAxisParam(axis ?? [], x.shape)].sort((a, b) => a - b);
    const k = axes.length;
    // only "the first k axes, not all of them": everything else is the stock kernel's
    if (x.dtype !== "float32" || k === 0 || k === rank || axes.some((a, i) => a !== i)) return null;
    const rows = tf.util.sizeFromShape(x.shape.slice(0, k));
    const cols = tf.util.sizeFromShape(x.shape.slice(k));
    const outShape = keepDims ? [...x.shape.slice(0, k).map(() => 1), ...x.shape.slice(k)] : x.shape.slice(k);
    const out = backend.makeOutput(outShape, "float32");
    const src = backend.typedArrayFromHeap(x) as Float32Array;
    const dst = backend.typedArrayFromHeap(out) as Float32Array;
    const acc = new Float64Array(cols);
    for (let r = 0; r < rows; r++) {
      const base = r * cols;
      for (let j = 0; j < cols; j++) acc[j] += src[base + j];
    }
    dst.set(acc);
    return out;
  });
}
