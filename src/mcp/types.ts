/**
 * The toolbox contract: what every later stage (scenarios, rollouts, rewards) sees of an MCP
 * server. Transport details stay behind it. See ../shared/ARCHITECTURE.md.
 */
import { z } from "zod";

/** A JSON Schema object as the server sent it (validated with ajv, never trusted as typed). */
export type JsonSchema = Record<string, unknown>;

export const ToolSpecSchema = z.object({
  name: z.string().describe("tool name as the server declares it"),
  title: z.string().optional(),
  description: z.string().default("").describe("the server's description, shown to the model"),
  inputSchema: z.record(z.string(), z.unknown()).describe("JSON Schema of the arguments"),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  /** MCP tool annotations (readOnlyHint, destructiveHint…): hints from the server, kept so that
   *  what calls tools on a user's server can tell what changes its state */
  annotations: z.record(z.string(), z.unknown()).optional(),
  /** MCP 2025-11 tasks: "required" means the tool refuses a plain tools/call */
  execution: z.object({ taskSupport: z.string().optional() }).passthrough().optional(),
});
export type ToolSpec = z.infer<typeof ToolSpecSchema>;

/** The OpenAI function-tool shape the chat templates render. */
export interface OpenAiTool {
  type: "function";
  function: { name: string; description: string; parameters: JsonSchema };
}

/** Why a call failed before or outside the tool itself; absent when the tool ran. */
export type ToolFaultKind =
  | "invalid_arguments" // ajv rejected the arguments before sending
  | "unknown_tool"
  | "timeout"
  | "aborted"
  | "connection" // the server died or the session dropped; the next call reconnects
  | "protocol"; // a JSON-RPC error from the server

export const ToolResultSchema = z.object({
  isError: z.boolean().describe("true when the tool reported an error or the call failed"),
  text: z.string().describe("the result as the policy sees it (normalized, maybe truncated)"),
  structuredContent: z.unknown().optional(),
  fault: z
    .enum(["invalid_arguments", "unknown_tool", "timeout", "aborted", "connection", "protocol"])
    .optional(),
  truncated: z.boolean().default(false),
  /** the server broke its own outputSchema in this result (the model still sees the result) */
  outputProblem: z.string().optional(),
});
export type ToolResult = z.infer<typeof ToolResultSchema>;

export interface CallOptions {
  signal?: AbortSignal;
  /** default 30 s */
  timeoutMs?: number;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** the user's task this call works toward (a rollout's scenario task): a form the server asks
   *  the user to fill in during the call (`--elicitation model`) is answered knowing it; default
   *  none, and the form is filled in with plausible values */
  task?: string;
}

export interface ToolboxStats {
  calls: number;
  errors: number;
  invalidArguments: number;
  timeouts: number;
  reconnects: number;
}

export interface Toolbox {
  readonly tools: ToolSpec[];
  /** notes on the server's tool list worth showing a user (duplicate names, odd names) */
  readonly toolNotes?: string[];
  /** the credentials this server was given (secret-named --env values and command-line
   *  secrets, -H values, a URL's credentials): a tool may print them back, and nothing written
   *  down or sent on (scenario files, a judge) should carry them */
  readonly secrets?: readonly string[];
  /** tools the server lists that this run leaves out (--tools, --exclude-tools): not in `tools` */
  readonly leftOutTools?: readonly string[];
  /** the server's MCP instructions (initialize result), when the run shows them to the model
   *  (--server-instructions): the rollouts' system prompt carries them */
  readonly instructions?: string;
  /** the name the server gave itself when it connected (MCP serverInfo.name) */
  readonly serverName?: string;
  /** tools in the OpenAI function shape, for the policy's prompt */
  openAiTools(): OpenAiTool[];
  /** never throws for tool-level problems: they come back as a ToolResult with isError */
  call(name: string, args: unknown, options?: CallOptions): Promise<ToolResult>;
  /** a fresh server instance (own process, own copy of the working directory) for one rollout */
  isolated(): Promise<Toolbox>;
  stats(): ToolboxStats;
  /** undefined when the server answers an MCP ping now, else why it does not */
  reachable?(timeoutMs?: number): Promise<string | undefined>;
  close(): Promise<void>;
}
