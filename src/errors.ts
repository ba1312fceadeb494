/**
 * One root error for train-mcp, with string codes for local failures (after the MCP SDK's and
 * openai-node's error families). The CLI maps `usage` errors to exit code 2 and prints only
 * the message: a user sees one clear line, never a stack trace.
 */
export type TrainMcpErrorCode =
  | "ConfigInvalid" // a flag, config file field or environment value is wrong
  | "ScenarioInvalid" // a scenario file line fails its schema
  | "ServerUnreachable" // the MCP target cannot be started or connected
  | "ModelInvalid" // a model folder, config.json or checkpoint is unusable
  | "BackendUnavailable" // an optional backend (tfjs-node-gpu, CUDA EP) was asked for and is absent
  | "JudgeFailed" // the judge endpoint failed after its retries
  | "RolloutFailed" // every rollout of an evaluation failed (policy endpoint or server down)
  | "IoFailed" // reading or writing a file failed
  | "Interrupted"; // Ctrl-C or SIGTERM before there was anything to keep (exit 128 + the signal)

export class TrainMcpError extends Error {
  override readonly name = "TrainMcpError";
  constructor(
    readonly code: TrainMcpErrorCode,
    message: string,
    /** true when the user can fix it by changing what they typed: exit code 2 */
    readonly usage = true,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isTrainMcpError(e: unknown): e is TrainMcpError {
  return e instanceof TrainMcpError;
}

/** The innermost cause of a failed fetch, where the system's reason is ("connect ECONNREFUSED 127.0.0.1:9"). */
export function rootCause(e: Error): string {
  let inner: unknown = e;
  while (inner instanceof Error && inner.cause instanceof Error) inner = inner.cause;
  return inner instanceof Error ? inner.message : e.message;
}
