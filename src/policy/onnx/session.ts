/**
 * onnxruntime-node sessions for the policy graph: the session options the issue asks for
 * (intra-op threads = the machine's cores, sequential execution, all graph optimizations), the
 * CUDA execution provider on `device: "gpu"` with a clear error when it is absent, and a thin
 * typed `run` over the KV-cache inputs/outputs.
 *
 * Intra-op threads do not spin-wait between ops by default (see `spin`).
 *
 * The CPU binaries ship inside the onnxruntime-node package (bin/napi-v6/<os>/<arch>); its
 * postinstall, which would download the CUDA provider libraries, is skipped on purpose (.npmrc),
 * so CUDA is present only where the user installed it.
 */
import "./telemetry-off.js"; // before onnxruntime-node loads
import * as os from "node:os";
import * as ort from "onnxruntime-node";
import { z } from "zod";
import { TrainMcpError } from "../../errors.js";

export const OrtSessionOptionsSchema = z.object({
  device: z.enum(["cpu", "gpu"]).default("cpu").describe("cpu, or gpu for the CUDA execution provider"),
  intraOpThreads: z.number().int().positive().optional().describe("intra-op threads; default os.availableParallelism()"),
  graphOptimization: z.enum(["disabled", "basic", "extended", "all"]).default("all").describe("onnxruntime graph optimization level; default all"),
  // onnxruntime's workers spin between ops by default: a little lower latency on idle cores, but
  // measured on a shared 2-core machine (load ~14) spinning 2 threads made sampling 2-4x slower
  // than not spinning; rollouts share the machine with MCP servers, judges and the trainer
  spin: z.boolean().default(false).describe("let intra-op threads spin-wait between ops; default false"),
});
export type OrtSessionOptions = z.input<typeof OrtSessionOptionsSchema>;

export function sessionOptions(opts: OrtSessionOptions = {}): ort.InferenceSession.SessionOptions {
  const o = OrtSessionOptionsSchema.parse(opts);
  return {
    executionProviders: o.device === "gpu" ? ["cuda"] : ["cpu"],
    intraOpNumThreads: o.intraOpThreads ?? os.availableParallelism(),
    // one request at a time: parallel execution only adds scheduling overhead for a decoder
    interOpNumThreads: 1,
    executionMode: "sequential",
    graphOptimizationLevel: o.graphOptimization,
    // the arena keeps the per-step KV buffers from going back to the OS each step
    enableCpuMemArena: true,
    enableMemPattern: false, // shapes change every decode step, patterns would not be reused
    logSeverityLevel: 3,
    extra: { session: { intra_op: { allow_spinning: o.spin ? "1" : "0" } } },
  };
}

/** Creates a session from in-memory model bytes or a file path. */
export async function createSession(model: Uint8Array | string, opts: OrtSessionOptions = {}): Promise<ort.InferenceSession> {
  const device = opts.device ?? "cpu";
  if (device === "gpu") {
    const cuda = ort.listSupportedBackends().find((b) => b.name === "cuda");
    if (!cuda) throw new TrainMcpError("BackendUnavailable", "--device gpu: this onnxruntime-node build has no CUDA execution provider");
  }
  try {
    const so = sessionOptions(opts);
    return typeof model === "string" ? await ort.InferenceSession.create(model, so) : await ort.InferenceSession.create(model, so);
  } catch (e) {
    const msg = (e as Error).message;
    if (device === "gpu") {
      throw new TrainMcpError(
        "BackendUnavailable",
        `--device gpu: onnxruntime's CUDA execution provider could not start (${msg.split("\n")[0]}). ` +
          "Install the CUDA provider libraries for onnxruntime-node (run its postinstall with ONNXRUNTIME_NODE_INSTALL_CUDA=v12, plus CUDA 12 and cuDNN 9), or use --device cpu.",
        true,
        { cause: e },
      );
    }
    throw new TrainMcpError("ModelInvalid", `onnxruntime could not load the policy graph: ${msg}`, false, { cause: e });
  }
}

export type OrtFeeds = Record<string, ort.Tensor>;
export { ort };
