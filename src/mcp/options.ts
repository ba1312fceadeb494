/**
 * ConnectOptions: every knob of `connect()`, each with its default documented here. Resolved
 * once into ResolvedOptions so nothing below reads `process.env` or re-derives defaults.
 */
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { DEFAULT_MAX_OUTPUT_CHARS } from "./normalize.js";
import { TrainMcpError } from "../errors.js";
import { clientModel } from "./client-model.js";
import { elicitationHandler, type ElicitationHandler, type ElicitationMode } from "./elicitation.js";
import { samplingHandler, type SamplingEndpoint, type SamplingHandler } from "./sampling.js";
import { DEFAULT_SERVER_LOG } from "./server-log.js";
import type { ToolFilter } from "./tool-filter.js";
import { findBwrap, type SandboxOptions } from "./sandbox.js";

export interface ConnectOptions {
  /** extra environment variables for stdio servers (`--env K=V`); they win over inherited ones */
  env?: Record<string, string>;
  /**
   * Which of this process's environment a stdio server inherits. "safe" (default): the SDK's
   * short list (HOME, PATH, SHELL, TERM, USER, LOGNAME) plus locale, temp dir, time zone, proxy
   * and Node/npm-location variables, so API keys in this process never leak to a third-party
   * server. "all": everything in process.env. "none": only `env`.
   */
  inheritEnv?: "safe" | "all" | "none";
  /** working directory of stdio servers; default: this process's cwd */
  cwd?: string;
  /** extra HTTP headers (`--header "Authorization: Bearer …"`); values are never logged */
  headers?: Record<string, string>;
  /** per-call timeout in ms, restarted by each progress notification; default 30 000 */
  timeoutMs?: number;
  /** hard ceiling per call in ms even with progress; default 4 × timeoutMs */
  maxTotalTimeoutMs?: number;
  /** timeout of the initialize handshake in ms; default: timeoutMs (30 000) */
  connectTimeoutMs?: number;
  /** file stdio servers' stderr is appended to; default <tmpdir>/train-mcp-<uid>/server-<pid>.log (private to the user), removed at a clean exit */
  serverLog?: string;
  /** most calls in flight at once per toolbox (each isolated toolbox has its own); default 8 */
  maxConcurrency?: number;
  /** normalized output longer than this is truncated with a marker; default 20 000 chars */
  maxOutputChars?: number;
  /**
   * stdio only: a folder copied (fs.cp) to a fresh temp dir for every server instance (the main
   * one and each isolated() one), which becomes the server's cwd; removed on close.
   */
  templateDir?: string;
  /**
   * offer the server's MCP resources to the model as two tools, `list_resources` and
   * `read_resource` (resource-tools.ts), when it declares the resources capability; default false
   */
  resourceTools?: boolean;
  /**
   * answer servers' sampling requests (a tool asking the client's model for a completion) from
   * this OpenAI-compatible endpoint, and declare the sampling capability (sampling.ts); default:
   * not declared
   */
  sampling?: SamplingEndpoint;
  /**
   * who answers servers' elicitation forms (a tool asking the user for input mid-call), and
   * declare the capability (elicitation.ts): decline, cancel, defaults, or model (the sampling
   * endpoint's model fills them in); default: not declared
   */
  elicitation?: ElicitationMode;
  /**
   * which of the server's tools are offered (tool-filter.ts: `--tools`, `--exclude-tools`); a
   * left-out tool is not listed, not called, and a call to it is an unknown tool; default: all
   */
  tools?: ToolFilter;
  /**
   * stdio only: run each server instance under bubblewrap (sandbox.ts): a read-only file system
   * but for its --template-dir copy, no network unless `network`; default: not sandboxed
   */
  sandbox?: SandboxOptions;
  /**
   * show the model the server's MCP `instructions` (its initialize result: how to use its tools),
   * after the system prompt, as clients such as Claude Code do (toolbox.instructions); default false
   */
  serverInstructions?: boolean;
}

export interface ResolvedOptions {
  env: Record<string, string>;
  cwd?: string;
  headers: Record<string, string>;
  timeoutMs: number;
  maxTotalTimeoutMs: number;
  connectTimeoutMs: number;
  serverLog: string;
  maxConcurrency: number;
  maxOutputChars: number;
  templateDir?: string;
  resourceTools: boolean;
  sampling?: SamplingHandler;
  elicitation?: ElicitationHandler;
  tools?: ToolFilter;
  /** bwrap's path, found once, and whether the network is kept */
  sandbox?: { bwrap: string; network: boolean };
  serverInstructions: boolean;
}

const SAFE_EXTRA_ENV = /^(LANG|LANGUAGE|LC_[A-Z]+|TMPDIR|TEMP|TMP|TZ|(HTTPS?|NO|ALL)_PROXY|(https?|no|all)_proxy|NODE_PATH|NODE_EXTRA_CA_CERTS|NVM_DIR|NVM_BIN|XDG_[A-Z_]+|SSL_CERT_(FILE|DIR))$/;

export function childEnvironment(mode: ConnectOptions["inheritEnv"], extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  if (mode === "all") {
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  } else if (mode !== "none") {
    Object.assign(env, getDefaultEnvironment());
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && SAFE_EXTRA_ENV.test(k)) env[k] = v;
  }
  return { ...env, ...extra };
}

function positiveInt(name: string, v: number | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  if (!Number.isFinite(v) || v <= 0) throw new RangeError(`${name} must be a positive number, got ${v}`);
  return Math.floor(v);
}

export function resolveOptions(o: ConnectOptions = {}): ResolvedOptions {
  const timeoutMs = positiveInt("timeoutMs", o.timeoutMs, 30_000);
  return {
    env: childEnvironment(o.inheritEnv ?? "safe", o.env),
    cwd: o.cwd,
    headers: { ...(o.headers ?? {}) },
    timeoutMs,
    maxTotalTimeoutMs: Math.max(timeoutMs, positiveInt("maxTotalTimeoutMs", o.maxTotalTimeoutMs, 4 * timeoutMs)),
    connectTimeoutMs: positiveInt("connectTimeoutMs", o.connectTimeoutMs, timeoutMs),
    serverLog: o.serverLog ?? DEFAULT_SERVER_LOG,
    maxConcurrency: positiveInt("maxConcurrency", o.maxConcurrency, 8),
    maxOutputChars: positiveInt("maxOutputChars", o.maxOutputChars, DEFAULT_MAX_OUTPUT_CHARS),
    templateDir: o.templateDir,
    resourceTools: o.resourceTools ?? false,
    tools: o.tools,
    serverInstructions: o.serverInstructions ?? false,
    sandbox: o.sandbox ? { bwrap: findBwrap(), network: o.sandbox.network ?? false } : undefined,
    ...clientRequestHandlers(o),
  };
}

/** The handlers of what servers ask the client (sampling, elicitation): one HTTP client to the
 *  user's endpoint for every instance and session of the server, and for both. */
function clientRequestHandlers(o: ConnectOptions): Pick<ResolvedOptions, "sampling" | "elicitation"> {
  if (o.elicitation === "model" && !o.sampling)
    throw new TrainMcpError("ConfigInvalid", "--elicitation model fills forms in with the client's model: name it with --sampling-model and --sampling-base-url");
  const model = o.sampling ? clientModel(o.sampling) : undefined;
  return {
    sampling: model ? samplingHandler(model) : undefined,
    elicitation: o.elicitation ? elicitationHandler(o.elicitation, model) : undefined,
  };
}
