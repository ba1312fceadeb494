/**
 * Identity and same-dtype Cast for the wasm backend without copying. The stock kernels
 * (tfjs-backend-wasm 4.22) memcpy their input, and tfjs's engine clones (Identity) every tensor it
 * saves for the backward pass, while the Multiply/Square gradients cast float32 to float32: in a
 * training step of the bench shape that is ~360 copies of ~0.5M floats each (~15% of the
 * non-matmul time). tfjs tensors are immutable (a Variable's assign swaps its dataId, never
 * writes into the old buffer), so the output can share the input's buffer with one more
 * reference — what the cpu backend's Identity and the wasm backend's own Reshape do.
 */
import * as tf from "@tensorflow/tfjs-core";
import { withStockFallback, type HeapBackend } from "./fallback.js";

function share(x: tf.TensorInfo, backend: HeapBackend): tf.TensorInfo {
  backend.incRef(x.dataId);
  return { dataId: x.dataId, shape: [...x.shape], dtype: x.dtype };
}

/** Identity sharing the buffer; the stock kernel still handles strings. */
export function wasmIdentityConfig(stockConfig: tf.KernelConfig): tf.KernelConfig {
  return withStockFallback(stockConfig, (args, backend) => {
    const { x } = args.inputs as { x: tf.TensorInfo };
    return x.dtype === "string" ? null : share(x, backend);
  });
}

/** Cast sharing the buffer when the dtype does not change; the stock kernel converts otherwise. */
export function wasmCastConfig(stockConfig: tf.KernelConfig): tf.KernelConfig {
  return withStockFallback(stockConfig, (args, backend) => {
    const { x } = args.inputs as { x: tf.TensorInfo };
    const { dtype } = args.attrs as { dtype: tf.DataType };
    return dtype === x.dtype ? share(x, backend) : null;
  });
}
