/**
 * Chooses and initializes the tfjs backend, in one place. The default is the wasm backend
 * (XNNPACK SIMD kernels) with two kernels replaced (see kernels/): BatchMatMul, whose stock
 * version runs transposed and batched products in scalar loops, and UnsortedSegmentSum, which
 * the wasm backend lacks and the embedding gradient needs. `@tensorflow/tfjs-node(-gpu)` are
 * optional: imported dynamically when asked for, with a clear error when absent.
 */
import * as tf from "@tensorflow/tfjs-core";
import "@tensorflow/tfjs-backend-cpu";
import { setThreadsCount } from "@tensorflow/tfjs-backend-wasm";
import { TrainMcpError } from "../errors.js";
import { registerGradients } from "./tfjs-gradients.js";
import { registerThreadedWasm } from "./kernels/wasm-threads.js";
import { wasmBatchMatMulConfig } from "./kernels/wasm-matmul.js";
import { wasmUnsortedSegmentSumConfig } from "./kernels/segment-sum.js";
import { wasmCastConfig, wasmIdentityConfig } from "./kernels/shared-copy.js";
import { wasmGatherConfig } from "./kernels/gather-rows.js";
import { wasmSumConfig } from "./kernels/sum-leading.js";
import { wasmOutOfMemory } from "./wasm-memory.js";

/** auto: tfjs-node when installed, else wasm. cpu: tfjs-node when installed, else wasm.
 *  gpu: tfjs-node-gpu or an error. wasm: the wasm backend. js: tfjs's pure-JS reference backend. */
export type Device = "auto" | "cpu" | "gpu" | "wasm" | "js";

export interface BackendOptions {
  /** default "auto" */
  device?: Device;
  /** wasm threads (default 1). More than 1 loads the threaded SIMD build through
   *  kernels/wasm-threads.ts; fixed once the wasm backend has started. */
  threads?: number;
}

let kernelsPatched = false;

/** Replaces the wasm kernels once (idempotent). Exported for the kernel tests. */
export function patchWasmKernels(): void {
  if (kernelsPatched) return;
  const stock = (name: string) => {
    const k = tf.getKernel(name, "wasm");
    if (!k) throw new Error(`the wasm backend registers no ${name} kernel (tfjs-backend-wasm not loaded?)`);
    return k;
  };
  const replacements = [wasmBatchMatMulConfig, wasmUnsortedSegmentSumConfig, wasmIdentityConfig(stock("Identity")), wasmCastConfig(stock("Cast")),
    wasmGatherConfig(stock("GatherV2")), wasmSumConfig(stock("Sum"))];
  for (const cfg of replacements) {
    if (tf.getKernel(cfg.kernelName, cfg.backendName)) tf.unregisterKernel(cfg.kernelName, cfg.backendName);
    tf.registerKernel(cfg);
  }
  kernelsPatched = true;
}

async function tryImport(name: string): Promise<boolean> {
  try {
    await import(/* @vite-ignore */ name);
    return true;
  } catch {
    return false;
  }
}

let initialized: string | undefined;

interface WasmAllocator {
  _malloc(bytes: number): number;
  _free(pointer: number): void;
  HEAPU8: Uint8Array;
  guarded?: true;
}

/**
 * Makes the wasm module's allocator throw when the heap is spent. tfjs does not check what
 * `_malloc` returns: a failed allocation gives offset 0, and the kernel then writes its output
 * over the start of the heap (other tensors, weights that would then be checkpointed). Near the
 * 4 GiB cap this build's allocator can also return a block that runs past the heap's end (its
 * 32-bit size arithmetic wraps): measured, 600 MiB asked with 3,680 MiB of heap gave a block at
 * 3,584 MiB. Both are refused.
 */
function guardWasmMalloc(wasm: WasmAllocator): void {
  if (wasm.guarded) return;
  // emscripten's `_malloc` starts as a stub that replaces itself with the real export on its
  // first call: make that call first, or it would replace this wrapper
  wasm._free(wasm._malloc(8));
  const malloc = wasm._malloc;
  wasm._malloc = (bytes: number) => {
    const at = malloc(bytes);
    if (bytes > 0 && (at === 0 || (at >>> 0) + bytes > wasm.HEAPU8.length)) throw wasmOutOfMemory(`the tfjs wasm backend is out of memory: ${(bytes / 2 ** 20).toFixed(0)} MiB more did not fit`);
    return at;
  };
  wasm.guarded = true;
}

/** The tfjs backend `initBackend` started ("wasm", "tensorflow", "cpu"), if any. */
export function activeBackend(): string | undefined {
  return initialized;
}

/** Initializes the backend; returns its tfjs name ("wasm", "tensorflow", "cpu"). */
export async function initBackend(opts: BackendOptions = {}): Promise<string> {
  const device = opts.device ?? "auto";
  await registerGradients(); // tfjs-core alone registers no gradients
  if (device === "gpu") {
    if (!(await tryImport("@tensorflow/tfjs-node-gpu")))
      throw new TrainMcpError(
        "BackendUnavailable",
        "--device gpu needs @tensorflow/tfjs-node-gpu (Linux x64, CUDA 11.x + cuDNN 8): `npm i @tensorflow/tfjs-node-gpu`; or use --device auto (the default: tfjs-node when it is installed, else wasm)",
      );
    await tf.setBackend("tensorflow");
  } else if (device === "js") {
    await tf.setBackend("cpu");
  } else if ((device === "auto" || device === "cpu") && (await tryImport("@tensorflow/tfjs-node"))) {
    await tf.setBackend("tensorflow");
  } else if (device === "cpu") {
    // asked for by name, as the README says for models past wasm's 4 GiB heap: not wasm quietly
    throw new TrainMcpError(
      "BackendUnavailable",
      "--device cpu needs @tensorflow/tfjs-node (it downloads libtensorflow at install): `npm i @tensorflow/tfjs-node`; or use --device wasm (no native code; its heap stops at 4 GiB)",
    );
  } else {
    patchWasmKernels();
    const threads = Math.max(1, Math.floor(opts.threads ?? 1));
    if (initialized !== "wasm" && !tf.engine().registry.wasm) {
      // more than one thread needs the threaded build, which tfjs does not load under Node itself
      if (threads > 1) registerThreadedWasm(threads);
      else setThreadsCount(1);
    }
    if (!(await tf.setBackend("wasm"))) throw new TrainMcpError("BackendUnavailable", "the tfjs wasm backend failed to initialize");
    guardWasmMalloc((tf.backend() as unknown as { wasm: WasmAllocator }).wasm);
  }
  await tf.ready();
  initialized = tf.getBackend();
  return initialized;
}
