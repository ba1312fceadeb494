/**
 * The shape every replacement kernel in this folder shares: it handles the cases it is fast at
 * and hands the rest to the wasm backend's own kernel, whose setup (its cwrap of the wasm
 * function) still has to run for that fallback.
 */
import * as tf from "@tensorflow/tfjs-core";

/** What the replacements use of tfjs-backend-wasm's BackendWasm. */
export interface HeapBackend {
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  typedArrayFromHeap(t: tf.TensorInfo): Float32Array | Int32Array | Uint8Array;
  incRef(dataId: tf.DataId): void;
}

export type KernelArgs = Parameters<tf.KernelFunc>[0];

/** `fast` returns its result, or null for "the stock kernel's case". */
export function withStockFallback(stockConfig: tf.KernelConfig, fast: (args: KernelArgs, backend: HeapBackend) => tf.TensorInfo | null): tf.KernelConfig {
  const stock = stockConfig.kernelFunc;
  const kernelFunc = (args: KernelArgs) => fast(args, args.backend as unknown as HeapBackend) ?? stock(args);
  return { kernelName: stockConfig.kernelName, backendName: "wasm", setupFunc: stockConfig.setupFunc, kernelFunc: kernelFunc as tf.KernelFunc };
}
