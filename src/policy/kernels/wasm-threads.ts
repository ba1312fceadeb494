/**
 * Loads the multithreaded SIMD build of the tfjs wasm backend under Node. tfjs-backend-wasm
 * reports no thread support in Node (tensorflow/tfjs#3830) because it hands Emscripten its
 * pthread worker and main script as Blob URLs, which Node's worker_threads cannot load. The
 * Emscripten worker itself supports Node, so this module gives it file paths instead: the main
 * script from the package, and the worker source (shipped as a string) written once to a temp
 * file. The resulting module is registered as the "wasm" backend, so every wasm kernel
 * (including the replacements in this folder) runs on it, with XNNPACK's thread pool.
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import * as tf from "@tensorflow/tfjs-core";
import { BackendWasm, setThreadsCount } from "@tensorflow/tfjs-backend-wasm";

const require = createRequire(import.meta.url);

interface EmscriptenModule {
  cwrap(name: string, ret: string | null, args: string[]): (...a: unknown[]) => unknown;
  tfjs?: Record<string, unknown>;
}

/** Registers (replacing the stock one) a threaded "wasm" backend; call before tf.setBackend("wasm"). */
export function registerThreadedWasm(threads: number): void {
  const main = require.resolve("@tensorflow/tfjs-backend-wasm/wasm-out/tfjs-backend-wasm-threaded-simd.js");
  const dir = path.dirname(main);
  const factory = require(main) as (cfg: Record<string, unknown>) => Promise<EmscriptenModule>;
  const { wasmWorkerContents } = require(path.join(dir, "tfjs-backend-wasm-threaded-simd.worker.js")) as { wasmWorkerContents: string };
  // a .cjs file so Node runs it as CommonJS wherever the temp folder is; one per tfjs version,
  // written through a rename so concurrent processes never see half a file
  const worker = path.join(os.tmpdir(), `tfjs-wasm-threaded-worker-${tf.version_core}.cjs`);
  // the shipped string has real newlines where the source had "\\n" escapes inside string
  // literals (tfjs re-escapes them the same way before making its Blob)
  const source = wasmWorkerContents.replace(/\n/g, "\\n");
  if (!fs.existsSync(worker) || fs.readFileSync(worker, "utf8") !== source) {
    const tmp = `${worker}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, source);
    fs.renameSync(tmp, worker);
  }
  setThreadsCount(threads);
  if (tf.findBackendFactory("wasm")) tf.removeBackend("wasm");
  tf.registerBackend(
    "wasm",
    async () => {
      // tfjs caps the pool at emscripten_num_logical_cores() / 2 (it assumes 2 hyperthreads per
      // core), read once while the module starts; under Node that is os.cpus().length, so a
      // 2-vCPU machine would get 1 thread. Report 2x the requested count for that moment only.
      const osMod = require("node:os") as { cpus: typeof os.cpus };
      const realCpus = osMod.cpus;
      osMod.cpus = () => Array.from({ length: 2 * threads }, () => realCpus()[0]);
      let module: EmscriptenModule;
      try {
        module = await factory({
          locateFile: (p: string) => (p.endsWith(".worker.js") ? worker : path.join(dir, p)),
          mainScriptUrlOrBlob: main,
        });
      } finally {
        osMod.cpus = realCpus;
      }
      module.tfjs = {
        init: module.cwrap("init", null, []),
        initWithThreadsCount: module.cwrap("init_with_threads_count", null, ["number"]),
        getThreadsCount: module.cwrap("get_threads_count", "number", []),
        registerTensor: module.cwrap("register_tensor", null, ["number", "number", "number"]),
        disposeData: module.cwrap("dispose_data", null, ["number"]),
        dispose: module.cwrap("dispose", null, []),
      };
      return new BackendWasm(module as never);
    },
    2,
  );
}
