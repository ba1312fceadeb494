/**
 * One live MCP session with one server instance: an SDK Client over a stdio child, Streamable
 * HTTP, or legacy SSE. For HTTP targets it follows the MCP spec's backwards-compatibility rule
 * (2025-03-26 "Transports", §Backwards Compatibility): POST the initialize request to the URL;
 * if that answers 4xx, GET the same URL as a legacy HTTP+SSE endpoint.
 *
 * A Connection marks itself `dead` when its transport closes (child exited, SSE stream lost);
 * the toolbox then reconnects on the next call. Pending requests on a dead connection are
 * rejected by the SDK's Protocol (`ConnectionClosed`), which the toolbox maps to fault
 * "connection".
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CreateMessageRequestSchema, ElicitRequestSchema, ErrorCode, ListRootsRequestSchema, McpError, type ElicitRequestFormParams } from "@modelcontextprotocol/sdk/types.js";
import fs from "node:fs";
import { homedir } from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { TrainMcpError } from "../errors.js";
import { CallTasks } from "./call-tasks.js";
import type { ElicitationHandler } from "./elicitation.js";
import type { SamplingHandler } from "./sampling.js";
import { sandboxCommand, sandboxHint } from "./sandbox.js";
import { StdioTransport } from "./stdio-transport.js";
import { linkedFetch } from "./linked-fetch.js";
import { resumeGuard } from "./resume-guard.js";

export type LaunchSpec =
  | { kind: "http"; url: string; headers: Record<string, string>; label: string }
  | {
      kind: "stdio";
      command: string;
      args: string[];
      env: Record<string, string>;
      cwd?: string;
      /** the folder `cwd` is a fresh copy of (--template-dir): never offered as a root itself */
      copyOf?: string;
      logPath: string;
      label: string;
      /** run under bubblewrap (sandbox.ts): bwrap's path, and whether the network is kept */
      sandbox?: { bwrap: string; network: boolean };
    };

export type TransportKind = "stdio" | "streamable-http" | "sse";

const CLIENT_INFO = { name: "train-mcp", version: "0.1.0" };

/** Who answers what a server asks of the client mid-call: sampling (when the user named a model
 *  for it) and elicitation forms (when the user chose who fills them in). */
export interface ClientRequestHandlers {
  sampling?: SamplingHandler;
  elicitation?: ElicitationHandler;
}

/** What this client offers a server beyond calling it: roots (a stdio server's working
 *  directory), sampling, elicitation (form mode only, answered knowing the task of the calls in
 *  flight, `tasks`). */
function newClient(roots: Array<{ uri: string; name: string }> | undefined, { sampling, elicitation }: ClientRequestHandlers, tasks: CallTasks): Client {
  const capabilities = {
    ...(roots ? { roots: { listChanged: false } } : {}),
    ...(sampling ? { sampling: {} } : {}),
    ...(elicitation ? { elicitation: { form: {} } } : {}),
  };
  const client = new Client(CLIENT_INFO, { capabilities });
  if (roots) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots }));
  if (sampling) client.setRequestHandler(CreateMessageRequestSchema, (request, extra) => sampling(request.params, extra.signal));
  // the SDK refuses URL-mode requests itself: the capability declares forms only
  if (elicitation)
    client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
      elicitation(request.params as ElicitRequestFormParams, { signal: extra.signal, task: tasks.current() }),
    );
  return client;
}

// Errors the SDK's HTTP transports report through onerror when a stream is gone for good (or
// its responses are): pending calls on it would otherwise wait for their timeout.
const FATAL_STREAM_ERROR = /SSE stream disconnected|Failed to reconnect|Maximum reconnection attempts|SSE error/;

export class Connection {
  dead = false;
  /** why the connection died, for error messages */
  deathReason = "";

  private constructor(
    readonly client: Client,
    readonly transport: Transport,
    readonly kind: TransportKind,
    /** the tasks of the calls in flight (the toolbox records them), for elicitation forms */
    readonly tasks: CallTasks,
  ) {}

  get pid(): number | undefined {
    return this.transport instanceof StdioTransport ? this.transport.pid : undefined;
  }

  get junkLines(): number {
    return this.transport instanceof StdioTransport ? this.transport.junkLines : 0;
  }

  describeFailure(withLogPath = true): string {
    if (this.transport instanceof StdioTransport) return this.transport.describeFailure(withLogPath);
    return this.deathReason;
  }

  private watch(): void {
    this.client.onclose = () => {
      if (!this.dead) this.markDead("connection closed");
    };
    this.client.onerror = (error: Error) => {
      if (this.kind !== "stdio" && !this.dead && FATAL_STREAM_ERROR.test(error.message)) {
        this.markDead(error.message);
        // closing rejects every pending request now instead of at its timeout
        this.client.close().catch(() => {});
      }
    };
  }

  markDead(reason: string): void {
    this.dead = true;
    this.deathReason ||= reason;
  }

  async close(): Promise<void> {
    this.dead = true;
    this.deathReason ||= "closed by the client";
    try {
      if (this.transport instanceof StreamableHTTPClientTransport && this.transport.sessionId) {
        // polite session end (spec: DELETE with the session id); servers may answer 405
        await withTimeout(this.transport.terminateSession(), 2000).catch(() => {});
      }
      await this.client.close();
    } catch {
      /* closing twice or a transport already gone */
    }
    await this.transport.close().catch(() => {});
  }

  static async open(spec: LaunchSpec, connectTimeoutMs: number, handlers: ClientRequestHandlers = {}): Promise<Connection> {
    return spec.kind === "stdio" ? openStdio(spec, connectTimeoutMs, handlers) : openHttp(spec, connectTimeoutMs, handlers);
  }

  /** @internal used by the open functions below */
  static make(client: Client, transport: Transport, kind: TransportKind, tasks: CallTasks): Connection {
    const c = new Connection(client, transport, kind, tasks);
    c.watch();
    deliverResponsesLast(transport);
    return c;
  }
}

/**
 * The SDK's Protocol runs notification handlers a microtask late but handles responses at once,
 * and drops a request's progress handler with its response: a server's last progress
 * notification, sent just before the result, was lost. Delivering responses one macrotask later
 * lets every notification that arrived before them run first.
 */
function deliverResponsesLast(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) return;
  transport.onmessage = (message, extra) => {
    if ("result" in message || "error" in message) setImmediate(() => deliver(message, extra));
    else deliver(message, extra);
  };
}

async function openStdio(spec: Extract<LaunchSpec, { kind: "stdio" }>, timeoutMs: number, handlers: ClientRequestHandlers): Promise<Connection> {
  // sandboxed: the working copy (--template-dir's) is the one writable folder
  const cwd = spec.cwd ?? process.cwd();
  const run = spec.sandbox ? sandboxCommand(spec.sandbox.bwrap, spec.command, spec.args, { network: spec.sandbox.network, cwd, workDir: spec.copyOf ? cwd : undefined, home: spec.env.HOME ?? homedir(), env: spec.env }) : { command: spec.command, args: spec.args };
  const transport = new StdioTransport({
    command: run.command,
    args: run.args,
    env: spec.env,
    cwd: spec.cwd,
    logPath: spec.logPath,
  });
  const tasks = new CallTasks();
  const client = newClient(spec.cwd ? stdioRoots({ ...spec, cwd: spec.cwd }) : undefined, handlers, tasks);
  try {
    await client.connect(transport, { timeout: timeoutMs });
  } catch (e) {
    await transport.close().catch(() => {});
    // still running but silent: our own kill afterwards is not the story
    if (e instanceof McpError && e.code === ErrorCode.RequestTimeout) {
      // a server that printed something else on stdout (a banner, logs, a REPL) is the usual story
      const junk = transport.junkLines > 0 ? `; it wrote ${transport.junkLines} line${transport.junkLines === 1 ? "" : "s"} of other text on stdout, see ${spec.logPath}` : "";
      // under ~2 s most servers (a Node or Python start-up alone) cannot answer yet: that, not
      // the server, is the likely story when it printed nothing else
      const why = !junk && timeoutMs < 2000 ? `the timeout may be too short for a server to start: try --timeout 30s, the default` : "is it an MCP server on stdio?";
      throw new TrainMcpError("ServerUnreachable", `cannot start MCP server \`${spec.label}\`: no reply to initialize within ${timeoutMs} ms (${why})${junk}`, true, { cause: e });
    }
    // the exit status / spawn error says more than the SDK's "Connection closed"
    const why = transport.describeFailure();
    const what = /^(spawn |server )/.test(why) ? why : `${message(e)} (${why})`;
    // `FOO=1 node server.js` is a shell's way to set a variable; no shell runs the command here
    const envHint = /^spawn \S+ ENOENT/.test(why) && /^[A-Za-z_][A-Za-z0-9_]*=/.test(spec.command) ? `; "${spec.command.split("=")[0]}=…" before the command is shell syntax: give the variable with -e ${spec.command.split("=")[0]}=…` : "";
    throw new TrainMcpError("ServerUnreachable", `cannot start MCP server \`${spec.label}\`${spec.sandbox ? " (in the --sandbox)" : ""}: ${what}${envHint}${npxHint(spec, why)}${elsewhereHint(spec)}${spec.sandbox ? sandboxHint(why, spec.env.HOME ?? homedir()) : ""}`, true, { cause: e });
  }
  return Connection.make(client, transport, "stdio", tasks);
}

/**
 * `node node_modules/pkg/dist/index.js` with --template-dir (or --cwd): the server runs in its copy
 * of the folder, where that relative path names nothing ("Cannot find module
 * '/tmp/train-mcp-work-…/node_modules/…'"). Say which path to give instead.
 */
function elsewhereHint(spec: Extract<LaunchSpec, { kind: "stdio" }>): string {
  if (!spec.cwd) return "";
  const lost = [spec.command, ...spec.args].find((a) => {
    if (a.startsWith("-") || path.isAbsolute(a) || !/[/\\]|\.(c|m)?[jt]s$|\.py$/.test(a)) return false;
    return !fs.existsSync(path.resolve(spec.cwd!, a)) && fs.existsSync(path.resolve(a));
  });
  if (!lost) return "";
  const where = spec.copyOf ? `${spec.cwd}, a copy of --template-dir` : `${spec.cwd} (--cwd)`;
  return `; ${lost} is read from the server's working directory (${where}), where it is not: give it as ${path.resolve(lost)}`;
}

/** npx with no terminal will not ask to install a package it lacks ("npx canceled due to missing
 *  packages and no YES option"): say how to let it, or how to run the server without it. */
function npxHint(spec: Extract<LaunchSpec, { kind: "stdio" }>, why: string): string {
  if (!/npx canceled|missing packages and no YES option/i.test(why)) return "";
  const away = spec.cwd ? ` (it runs in ${spec.cwd}, where the project's own node_modules is out of npx's sight)` : "";
  const rewrite = /(^|[/\\])npx(\.cmd)?$/.test(spec.command) ? `write \`npx -y ${spec.args.join(" ")}\`` : "give npx -y";
  return `; npx needs -y to install the package without asking${away}: ${rewrite}, or run the server's script with node by its absolute path`;
}

/**
 * The MCP roots of a stdio server given a working directory (--cwd, or a --template-dir copy): that
 * directory, so a filesystem server started without folders works there and nowhere else, and
 * every folder its command line names. A server that takes roots (server-filesystem) puts them in
 * place of the folders it was started with: the working directory alone would take those away.
 * Folders inside a --template-dir's original are not offered: the server works on its copy.
 */
function stdioRoots(spec: { args: readonly string[]; cwd: string; copyOf?: string }): Array<{ uri: string; name: string }> {
  const cwd = path.resolve(spec.cwd);
  const original = spec.copyOf ? path.resolve(spec.copyOf) : undefined;
  const roots = [{ uri: pathToFileURL(cwd).href, name: "working directory" }];
  const seen = new Set([cwd]);
  for (const arg of spec.args) {
    // `--root=/data` names a folder as well as `/data` does
    const value = arg.startsWith("-") ? arg.slice(arg.indexOf("=") + 1 || arg.length) : arg;
    if (!value) continue;
    const dir = path.resolve(cwd, value);
    if (seen.has(dir) || (original && (dir === original || dir.startsWith(original + path.sep)))) continue;
    let isDir = false;
    try {
      isDir = fs.statSync(dir).isDirectory();
    } catch {
      /* not a path */
    }
    if (!isDir) continue;
    seen.add(dir);
    roots.push({ uri: pathToFileURL(dir).href, name: value });
  }
  return roots;
}

async function openHttp(spec: Extract<LaunchSpec, { kind: "http" }>, timeoutMs: number, handlers: ClientRequestHandlers): Promise<Connection> {
  const url = new URL(spec.url);
  // fetch refuses a URL with user:pass@; send them as HTTP Basic auth, as curl does (an
  // Authorization header given with --header wins)
  const headers: Record<string, string> = { ...spec.headers };
  if (url.username || url.password) {
    const given = Object.keys(headers).some((k) => k.toLowerCase() === "authorization");
    if (!given) headers.Authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString("base64")}`;
    url.username = "";
    url.password = "";
  }
  const requestInit: RequestInit = { headers };
  let firstError: unknown;
  // a socket the server closed as it was reused (a keep-alive race) is retried once on a new one
  for (let attempt = 0; attempt < 2; attempt++) {
    // resumeGuard: no resuming a stream whose answer was an error (an SDK bug, see resume-guard.ts)
    const streamable = new StreamableHTTPClientTransport(url, { requestInit, fetch: resumeGuard(linkedFetch()) });
    const tasks = new CallTasks();
    const client = newClient(undefined, handlers, tasks);
    try {
      await client.connect(streamable, { timeout: timeoutMs });
      return Connection.make(client, streamable, "streamable-http", tasks);
    } catch (e) {
      firstError = e;
      await client.close().catch(() => {});
    }
    if (!socketDropped(firstError)) break;
  }
  if (firstError instanceof McpError && firstError.code === ErrorCode.RequestTimeout) {
    // the SDK says only "Request timed out": name the wait and what usually causes it
    const why = timeoutMs < 2000 ? "the timeout may be too short: try --timeout 30s, the default" : "a server that is up but busy, or a URL that is not an MCP endpoint: check the URL, or give it longer with --timeout";
    throw new TrainMcpError("ServerUnreachable", `cannot reach MCP server at ${spec.url}: no reply to initialize within ${timeoutMs} ms (${why})`, true, {
      cause: firstError,
    });
  }
  const status = firstError instanceof StreamableHTTPError ? firstError.code : undefined;
  if (status === undefined || status < 400 || status >= 500) {
    throw new TrainMcpError("ServerUnreachable", `cannot reach MCP server at ${spec.url}: ${message(firstError)}`, true, {
      cause: firstError,
    });
  }
  // 4xx on the Streamable HTTP handshake: try the 2024-11-05 HTTP+SSE transport on the same URL
  const sse = new SSEClientTransport(url, { requestInit, fetch: linkedFetch() });
  const sseTasks = new CallTasks();
  const sseClient = newClient(undefined, handlers, sseTasks);
  try {
    await sseClient.connect(sse, { timeout: timeoutMs });
    return Connection.make(sseClient, sse, "sse", sseTasks);
  } catch (e) {
    await sseClient.close().catch(() => {});
    throw new TrainMcpError(
      "ServerUnreachable",
      `cannot reach MCP server at ${spec.url}: Streamable HTTP answered ${status} and legacy SSE failed: ${message(e)}${authHint(status, headers)}`,
      true,
      { cause: e },
    );
  }
}

/** What a 401/403 asks of the user: a credential, or another one. */
function authHint(status: number, headers: Record<string, string>): string {
  if (status !== 401 && status !== 403) return "";
  const given = Object.keys(headers).some((k) => k.toLowerCase() === "authorization");
  return given
    ? ` (HTTP ${status}: the server refused the Authorization header given; check the token)`
    : ` (HTTP ${status}: the server wants credentials; pass them with -H 'Authorization: Bearer …')`;
}

/** A connection cut under a request (undici's "other side closed", ECONNRESET), not a refusal. */
function socketDropped(e: unknown): boolean {
  for (let x: unknown = e; x instanceof Error; x = (x as { cause?: unknown }).cause) {
    const code = (x as { code?: unknown }).code;
    if (code === "UND_ERR_SOCKET" || code === "ECONNRESET" || /other side closed/.test(x.message)) return true;
  }
  return false;
}

function message(e: unknown): string {
  if (e instanceof Error) {
    const cause = (e as { cause?: unknown }).cause;
    // undici's "fetch failed" hides the reason (ECONNREFUSED…) in `cause`
    return oneLine(cause instanceof Error && e.message === "fetch failed" ? `${e.message} (${cause.message})` : e.message);
  }
  return oneLine(String(e));
}

/** An error body that is a web page (a URL that is not an MCP endpoint) as one short line: its
 *  title and text, tags and whitespace runs dropped. */
function oneLine(text: string): string {
  const flat = text.includes("<") && /<\/?(html|body|head|title|h1|p|div)\b/i.test(text) ? text.replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, " ").replace(/<[^>]*>/g, " ") : text;
  const line = flat.replace(/\s+/g, " ").trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  return Promise.race([p, new Promise<undefined>((r) => setTimeout(() => r(undefined), ms).unref())]);
}
