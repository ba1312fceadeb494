/**
 * A replacement for the tfjs wasm backend's BatchMatMul kernel. The stock kernel
 * (tfjs-backend-wasm `batch_mat_mul.cc`) hands only a plain 2-D, non-transposed product to
 * XNNPACK (~20-30 GFLOP/s here) and runs every transposed or batched product through scalar loops
 * (~2 GFLOP/s). This kernel (1) materializes a transposed operand with the wasm Transpose kernel
 * (a strided copy, O(rows*cols), negligible next to the O(M*K*N) product) and (2) splits a
 * batched product into one 2-D call per batch on aliases of the operands' memory, so every
 * product runs through the fast path. Aliases are registered with the wasm side directly (not
 * through the backend's data map), so disposing them never frees the real buffer.
 */
import * as tf from "@tensorflow/tfjs-core";
import { WASM_HEAP_BYTES, wasmOutOfMemory } from "../wasm-memory.js";

interface WasmModule {
  cwrap(name: string, ret: null, args: string[]): (...a: unknown[]) => void;
  _malloc(bytes: number): number;
  _free(pointer: number): void;
  HEAPU8: Uint8Array;
  tfjs: { registerTensor(id: number, size: number, offset: number): void; disposeData(id: number): void };
}
interface WasmBackendLike {
  wasm: WasmModule;
  dataIdNextNumber: number;
  dataIdMap: { get(dataId: tf.DataId): { id: number; memoryOffset: number } };
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  disposeData(dataId: tf.DataId, force?: boolean): boolean;
}

let wasmMatMul: ((...a: unknown[]) => void) | undefined;

/**
 * Buffers whose packed copy XNNPACK may keep between calls (its operator cache is keyed by the
 * id of b and freed only when that buffer is). Opt-in: generation weights, reused every decode
 * step. Anything else — a frozen base weight saved for a LoRA gradient shares the variable's
 * buffer — would keep a packed copy of the whole model alive for the run.
 */
const packedCacheable = new WeakSet<tf.DataId>();

/** Lets the wasm matmul keep XNNPACK's packed copy of `t` while it lives (use for weights read many times). */
export function allowPackedCache(t: tf.Tensor): void {
  packedCacheable.add(t.dataId);
}
let transposeKernel: tf.KernelFunc | undefined;

const shapeBytes = (s: number[]) => new Uint8Array(new Int32Array(s).buffer);

/** Returns a [batch, cols, rows] copy of a [batch, rows, cols] operand. */
function transposeLast2(x: tf.TensorInfo, batch: number, rows: number, cols: number, backend: WasmBackendLike): tf.TensorInfo {
  transposeKernel ??= tf.getKernel("Transpose", "wasm")!.kernelFunc;
  const x3: tf.TensorInfo = { dataId: x.dataId, shape: [batch, rows, cols], dtype: x.dtype };
  return transposeKernel({ inputs: { x: x3 }, backend: backend as unknown as tf.KernelBackend, attrs: { perm: [0, 2, 1] } }) as tf.TensorInfo;
}

/**
 * Throws unless the heap can hold `bytes` more. XNNPACK copies b into its packed layout when it
 * builds a product's operator; when that allocation fails it only prints a warning ("status 6")
 * and the product's output is never written, so training would go on with garbage.
 */
function assertHeapRoom(backend: WasmBackendLike, bytes: number, what: string): void {
  // while the heap can still grow by `bytes`, the allocation cannot fail: no probe (the usual case)
  if (backend.wasm.HEAPU8.length + bytes + 2 ** 20 <= WASM_HEAP_BYTES) return;
  let probe = 0;
  try {
    probe = backend.wasm._malloc(bytes); // backend.ts makes a failed allocation throw; 0 without it
  } catch {
    /* reported below */
  }
  if (probe === 0) throw wasmOutOfMemory(`the tfjs wasm backend is out of memory: ${what} needs ${(bytes / 2 ** 20).toFixed(0)} MiB more than its heap holds`);
  backend.wasm._free(probe);
}

function batchMatMul(args: { inputs: tf.NamedTensorInfoMap; backend: unknown; attrs?: tf.NamedAttrMap }): tf.TensorInfo {
  const backend = args.backend as WasmBackendLike;
  const { a, b } = args.inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
  const { transposeA, transposeB } = args.attrs as { transposeA: boolean; transposeB: boolean };
  if (a.dtype !== "float32" || b.dtype !== "float32") throw new Error(`BatchMatMul: float32 only, got ${a.dtype} and ${b.dtype}`);
  wasmMatMul ??= backend.wasm.cwrap("BatchMatMul", null, ["number", "array", "number", "number", "array", "number", "number", "number", "number"]);
  const ar = a.shape.length, br = b.shape.length;
  const M = transposeA ? a.shape[ar - 1] : a.shape[ar - 2];
  const K = transposeA ? a.shape[ar - 2] : a.shape[ar - 1];
  const Kb = transposeB ? b.shape[br - 1] : b.shape[br - 2];
  const N = transposeB ? b.shape[br - 2] : b.shape[br - 1];
  if (K !== Kb) throw new Error(`BatchMatMul: inner sizes differ: a [${a.shape}] (transposeA=${transposeA}), b [${b.shape}] (transposeB=${transposeB})`);
  const outerA = a.shape.slice(0, -2), outerB = b.shape.slice(0, -2);
  const batchA = tf.util.sizeFromShape(outerA), batchB = tf.util.sizeFromShape(outerB);
  if (batchA !== batchB && batchA !== 1 && batchB !== 1)
    throw new Error(`BatchMatMul: batch dims [${outerA}] and [${outerB}] differ (only equal or size-1 broadcast is supported)`);
  const outOuter = tf.backend_util.assertAndGetBroadcastShape(outerA, outerB);
  const batch = Math.max(batchA, batchB);

  const temps: tf.TensorInfo[] = [];
  let aa = a, bb = b;
  if (transposeA) temps.push((aa = transposeLast2(a, batchA, K, M, backend))); // [batchA, M, K]
  if (transposeB) temps.push((bb = transposeLast2(b, batchB, N, K, backend))); // [batchB, K, N]
  const out = backend.makeOutput([...outOuter, M, N], "float32");
  const aOff = backend.dataIdMap.get(aa.dataId).memoryOffset;
  const bOff = backend.dataIdMap.get(bb.dataId).memoryOffset;
  const oOff = backend.dataIdMap.get(out.dataId).memoryOffset;
  // last, once the temps and the output hold their memory (a failed allocation of theirs throws,
  // backend.ts); XNNPACK's packed b is padded to its tiles
  if (!(batchB === 1 && bb === b && packedCacheable.has(b.dataId))) {
    try {
      assertHeapRoom(backend, 4 * (K + 8) * (N + 32) + 256, `a [${M}, ${K}] x [${K}, ${N}] product`);
    } catch (e) {
      for (const t of [...temps, out]) backend.disposeData(t.dataId);
      throw e;
    }
  }
  const aS = shapeBytes([1, M, K]), bS = shapeBytes([1, K, N]);
  const reg = (size: number, offset: number) => {
    const id = backend.dataIdNextNumber++;
    backend.wasm.tfjs.registerTensor(id, size, offset);
    return id;
  };
  // one 2-D product per batch. A batch-1 operand is shared by every product; when it is an
  // input as given (not a transposed temp) its own id is passed, so XNNPACK's packed-weights
  // cache, keyed by the id of b, is reused across calls (generation: the same weights each step)
  const ownId = (t: tf.TensorInfo) => backend.dataIdMap.get(t.dataId).id;
  const ownB = batchB === 1 && bb === b && packedCacheable.has(b.dataId), ownA = batchA === 1 && aa === a && packedCacheable.has(a.dataId);
  const sharedB = batchB === 1 ? (ownB ? ownId(b) : reg(K * N, bOff)) : -1;
  const sharedA = batchA === 1 ? (ownA ? ownId(a) : reg(M * K, aOff)) : -1;
  for (let i = 0; i < batch; i++) {
    const ia = sharedA >= 0 ? sharedA : reg(M * K, aOff + 4 * i * M * K);
    const ib = sharedB >= 0 ? sharedB : reg(K * N, bOff + 4 * i * K * N);
    const io = reg(M * N, oOff + 4 * i * M * N);
    wasmMatMul(ia, aS, 3, ib, bS, 3, false, false, io);
    if (sharedA < 0) backend.wasm.tfjs.disposeData(ia);
    if (sharedB < 0) backend.wasm.tfjs.disposeData(ib);
    backend.wasm.tfjs.disposeData(io);
  }
  if (sharedA >= 0 && !ownA) backend.wasm.tfjs.disposeData(sharedA);
  if (sharedB >= 0 && !ownB) backend.wasm.tfjs.disposeData(sharedB);
  for (const t of temps) backend.disposeData(t.dataId);
  return out;
}

export const wasmBatchMatMulConfig: tf.KernelConfig = {
  kernelName: "BatchMatMul",
  backendName: "wasm",
  kernelFunc: batchMatMul as unknown as tf.KernelFunc,
};
