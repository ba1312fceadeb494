/**
 * McpToolbox: the Toolbox contract (types.ts) over one server instance. A call is checked
 * (known tool, arguments valid under the tool's inputSchema), waits for a concurrency slot,
 * goes out as `tools/call`, and comes back normalized. Nothing tool-level throws: failures
 * become ToolResults with a `fault`, counted in stats(), because for the policy a failed call
 * is an observation (verifiers' tool_env habit).
 *
 * Faults: a dead connection (stdio child exited, HTTP stream lost) fails the calls in flight
 * with fault "connection"; the next call starts a new instance (same command, same working
 * copy) and counts a reconnect.
 *
 * Isolation: for stdio targets isolated() spawns a new process (in a fresh copy of templateDir
 * when given). An HTTP server cannot be forked from here, so isolated() on an HTTP target opens
 * a new MCP session on it (Streamable HTTP or legacy SSE alike), ended on close(): servers that
 * keep state per session (the SDK's examples build one server object per session) give each
 * rollout its own, while state a server keeps globally stays shared — nothing a client can
 * change. `isolation` says which one you got.
 */
import { closestName } from "../closest-name.js";
import { headerSecretValues, stdioServerSecrets } from "./command-credentials.js";
import { urlCredentialValues } from "./url-credentials.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { rootCause, TrainMcpError } from "../errors.js";
import { trackTempDir, untrackTempDir } from "./children.js";
import { Connection, type LaunchSpec, type TransportKind } from "./connection.js";
import { normalizeResult } from "./normalize.js";
import type { ResolvedOptions } from "./options.js";
import { callResourceTool, resourceToolHint, resourceToolSpecs } from "./resource-tools.js";
import { Semaphore } from "./semaphore.js";
import { copyTemplate } from "./template-copy.js";
import { applyToolFilter, toolFilterProblem, type FilteredTools, type ToolFilter } from "./tool-filter.js";
import { listAllTools, toOpenAiTool } from "./tool-list.js";
import type { CallOptions, OpenAiTool, Toolbox, ToolboxStats, ToolFaultKind, ToolResult, ToolSpec } from "./types.js";
import { ArgumentValidator } from "./validate.js";

// Looser than the SDK's CallToolResultSchema: unknown content block types from newer or odd
// servers are rendered as placeholders instead of failing the whole call.
const LooseCallResultSchema = z.looseObject({
  content: z.array(z.unknown()).optional(),
  structuredContent: z.unknown().optional(),
  isError: z.boolean().optional(),
});

/** state shared by a toolbox and its isolated siblings: the tool list and compiled validators */
interface Shared {
  tools: ToolSpec[];
  notes: string[];
  byName: Map<string, ToolSpec>;
  validator: ArgumentValidator;
  /** names of the tools that read the server's resources (--resource-tools), not tools/call */
  resourceTools: Set<string>;
  /** every tool the server lists, those the tool filter left out included */
  allToolNames: string[];
  /** the tool filter's patterns that matched none of them */
  filterMisses: FilteredTools<ToolSpec>["misses"];
}

export class McpToolbox implements Toolbox {
  /** "process": isolated() gives a new server process; "session": a new session on the same HTTP server */
  readonly isolation: "process" | "session";
  private readonly semaphore: Semaphore;
  private readonly counters = { calls: 0, errors: 0, invalidArguments: 0, timeouts: 0, reconnects: 0 };
  private junkFromClosed = 0;
  private reconnecting?: Promise<Connection>;
  private readonly isolatedChildren = new Set<McpToolbox>();
  private closed = false;

  private constructor(
    /** how an isolated() sibling starts: before this instance's working copy was filled in */
    private readonly source: LaunchSpec,
    private readonly launch: LaunchSpec,
    private readonly options: ResolvedOptions,
    private readonly shared: Shared,
    private conn: Connection,
    /** temp copy of templateDir owned by this instance, removed on close */
    private readonly workDir: string | undefined,
    semaphore?: Semaphore,
  ) {
    this.semaphore = semaphore ?? new Semaphore(options.maxConcurrency);
    this.isolation = launch.kind === "stdio" ? "process" : "session";
    this.secrets = launchSecrets(source);
  }

  readonly secrets: readonly string[];

  /** the server's MCP instructions when the run shows them to the model (--server-instructions) */
  get instructions(): string | undefined {
    return this.options.serverInstructions ? this.givenInstructions : undefined;
  }

  /** the instructions the server gave at initialize, shown to the model or not */
  get givenInstructions(): string | undefined {
    return this.conn.client.getInstructions()?.trim() || undefined;
  }

  get serverName(): string | undefined {
    return this.conn.client.getServerVersion()?.name;
  }

  /** the version the server gave with its name */
  get serverVersion(): string | undefined {
    return this.conn.client.getServerVersion()?.version;
  }

  /** Starts one server instance (with its own working copy if templateDir is set). */
  static async start(launch: LaunchSpec, options: ResolvedOptions, shared?: Shared, semaphore?: Semaphore): Promise<McpToolbox> {
    let workDir: string | undefined;
    let spec = launch;
    if (launch.kind === "stdio" && options.templateDir) {
      workDir = await mkdtemp(join(tmpdir(), WORK_COPY_PREFIX));
      trackTempDir(workDir); // removed at exit, also on Ctrl-C: it holds a copy of the user's data
      try {
        await copyTemplate(options.templateDir, workDir);
      } catch (e) {
        await rm(workDir, { recursive: true, force: true });
        untrackTempDir(workDir);
        throw new TrainMcpError("IoFailed", `cannot copy templateDir ${options.templateDir}: ${(e as Error).message}`);
      }
      spec = { ...launch, cwd: workDir, copyOf: options.templateDir };
    }
    if (spec.kind === "stdio") spec = { ...spec, env: withWorkDir(spec.env, spec.cwd ?? process.cwd()) };
    let conn: Connection | undefined;
    try {
      conn = await Connection.open(spec, options.connectTimeoutMs, options);
      let s = shared;
      if (!s) {
        const listed = await listAllTools(conn.client, options.connectTimeoutMs);
        const extra = options.resourceTools ? resourceToolSpecs(conn.client, listed.tools) : { tools: [], notes: [] };
        const all = [...listed.tools, ...extra.tools];
        const serverName = conn.client.getServerVersion()?.name;
        const filtered = applyToolFilter(all, options.tools, serverName);
        const tools = filtered.kept;
        // nothing left: a pattern that matched nothing says more than "none left" (a typo, most likely)
        if (all.length > 0 && tools.length === 0)
          throw new TrainMcpError(
            "ConfigInvalid",
            toolFilterProblem([{ misses: filtered.misses, allTools: all.map((t) => t.name), serverName }]) ??
              `${filterFlags(options.tools)} leave${filterFlags(options.tools).includes(" and ") ? "" : "s"} none of the ${all.length} tools of ${launch.label} (${all.map((t) => t.name).join(", ")})`,
          );
        const notes = [...listed.notes, ...extra.notes];
        if (filtered.leftOut.length > 0) notes.push(`offering ${tools.length} of the server's ${all.length} tools (${filterFlags(options.tools)}): left out ${filtered.leftOut.join(", ")}`);
        s = {
          tools,
          notes,
          byName: new Map(tools.map((t) => [t.name, t])),
          validator: new ArgumentValidator(),
          resourceTools: new Set(extra.tools.filter((t) => tools.includes(t)).map((t) => t.name)),
          allToolNames: all.map((t) => t.name),
          filterMisses: filtered.misses,
        };
      }
      return new McpToolbox(launch, spec, options, s, conn, workDir, semaphore);
    } catch (e) {
      await conn?.close();
      if (workDir) {
        await rm(workDir, { recursive: true, force: true });
        untrackTempDir(workDir);
      }
      if (e instanceof TrainMcpError) throw e;
      // a server that exits after initialize (a database it cannot reach): its exit and last words
      const why = conn && launch.kind === "stdio" ? conn.describeFailure() : "";
      throw new TrainMcpError("ServerUnreachable", `cannot list tools of ${launch.label}: ${(e as Error).message}${why ? ` (${why})` : ""}`, true, { cause: e });
    }
  }

  get tools(): ToolSpec[] {
    return this.shared.tools;
  }

  /** notes on the server's tool list (duplicate names, names a model may not write, tools left out) */
  get toolNotes(): string[] {
    return this.shared.notes;
  }

  get leftOutTools(): readonly string[] {
    return this.shared.allToolNames.filter((n) => !this.shared.byName.has(n));
  }

  /** every tool the server lists, with those `options.tools` left out, and the filter's patterns that matched none */
  get toolFilterReport(): { allTools: readonly string[]; misses: FilteredTools<ToolSpec>["misses"]; serverName?: string } {
    return { allTools: this.shared.allToolNames, misses: this.shared.filterMisses, serverName: this.serverName };
  }

  /** how the current session talks to the server */
  get transportKind(): TransportKind {
    return this.conn.kind;
  }

  /** pid of the current stdio server process (undefined for HTTP) */
  get pid(): number | undefined {
    return this.conn.pid;
  }

  /** the working copy of templateDir this instance runs in, if any */
  get workingDirectory(): string | undefined {
    return this.workDir;
  }

  /** file the stdio server's stderr goes to (undefined for HTTP) */
  get serverLog(): string | undefined {
    return this.launch.kind === "stdio" ? this.launch.logPath : undefined;
  }

  openAiTools(): OpenAiTool[] {
    return this.shared.tools.map(toOpenAiTool);
  }

  stats(): ToolboxStats & { junkLines: number } {
    return { ...this.counters, junkLines: this.junkFromClosed + this.conn.junkLines };
  }

  async call(name: string, args: unknown, options: CallOptions = {}): Promise<ToolResult> {
    this.counters.calls++;
    const result = await this.callOnce(name, args, options);
    // a result that breaks the tool's own outputSchema is the server's fault, told to the user
    // (`call` notes it), not to the model: it sees the result as sent
    const tool = this.shared.byName.get(name);
    if (tool?.outputSchema && !result.isError && !result.fault && !this.shared.resourceTools.has(name)) {
      const problem = this.shared.validator.checkOutput(name, tool.outputSchema, result.structuredContent);
      if (problem) result.outputProblem = `${name}: ${problem}`;
    }
    if (result.isError) this.counters.errors++;
    if (result.fault === "invalid_arguments") this.counters.invalidArguments++;
    if (result.fault === "timeout") this.counters.timeouts++;
    return result;
  }

  private async callOnce(name: string, args: unknown, options: CallOptions): Promise<ToolResult> {
    if (this.closed) return fault("connection", "the toolbox is closed");
    const tool = this.shared.byName.get(name);
    if (!tool) {
      const names = this.shared.tools.map((t) => t.name);
      const near = names.find((n) => n.toLowerCase() === name.toLowerCase()) ?? closestName(name, names);
      const leftOut = this.shared.allToolNames.includes(name) ? " (the server has it, but this run does not offer it)" : "";
      return fault("unknown_tool", `unknown tool "${name}"${leftOut}${near ? ` (did you mean "${near}"?)` : ""}; known tools: ${names.join(", ") || "(none)"}${resourceToolHint(name, this.options.resourceTools)}`);
    }
    const check = this.shared.validator.check(name, tool.inputSchema, args);
    if (!check.ok) return fault("invalid_arguments", `invalid arguments for ${name}: ${check.message}`);

    const { signal } = options;
    let release: () => void;
    try {
      release = await this.semaphore.acquire(signal);
    } catch {
      return fault("aborted", `call to ${name} aborted before it was sent`);
    }
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs;
    let conn: Connection | undefined;
    // the SDK adds an abort listener to the signal of every request and never removes it: a run's
    // long-lived signal would collect one per tool call, so each call gets its own, linked to it
    const perCall = new AbortController();
    const forward = () => perCall.abort(signal?.reason);
    signal?.addEventListener("abort", forward, { once: true });
    const totalMs = Math.max(timeoutMs, options.timeoutMs !== undefined ? 4 * timeoutMs : this.options.maxTotalTimeoutMs);
    const t0 = Date.now();
    const requestOptions = {
      signal: perCall.signal,
      timeout: timeoutMs,
      // progress resets the timeout (slow tools that report progress are alive); the total
      // is still capped so a tool cannot hold a rollout forever by chattering
      resetTimeoutOnProgress: true,
      maxTotalTimeout: totalMs,
      onprogress: (p: { progress: number; total?: number; message?: string }) => options.onProgress?.({ progress: p.progress, total: p.total, message: p.message }),
    };
    const send = async (c: Connection): Promise<ToolResult> => {
      const end = c.tasks.begin(options.task);
      try {
        return this.shared.resourceTools.has(name)
          ? await callResourceTool(c.client, name, check.args as Record<string, unknown>, requestOptions, this.options.maxOutputChars)
          : normalizeResult(await c.client.request({ method: "tools/call", params: { name, arguments: check.args } }, LooseCallResultSchema, requestOptions), this.options.maxOutputChars);
      } finally {
        end();
      }
    };
    try {
      conn = await this.live();
      if (signal?.aborted) return fault("aborted", `call to ${name} aborted`);
      try {
        return await send(conn);
      } catch (e) {
        if (!sessionExpired(e)) throw e;
        conn.markDead("session expired (HTTP 404)");
        conn = await this.live();
        return await send(conn);
      }
    } catch (e) {
      return this.classify(e, name, { timeoutMs, totalMs, elapsedMs: Date.now() - t0 }, conn, signal);
    } finally {
      signal?.removeEventListener("abort", forward);
      release();
    }
  }

  private classify(e: unknown, name: string, time: { timeoutMs: number; totalMs: number; elapsedMs: number }, conn: Connection | undefined, signal?: AbortSignal): ToolResult {
    if (signal?.aborted) return fault("aborted", `call to ${name} aborted`);
    const msg = e instanceof Error ? e.message : String(e);
    if (e instanceof McpError && e.code === ErrorCode.RequestTimeout) {
      // progress notifications restart the limit: say how long it really ran
      const extended = time.elapsedMs > time.timeoutMs * 1.5 ? ` (the tool reported progress, which restarts the ${time.timeoutMs} ms limit, up to ${time.totalMs} ms in all)` : "";
      return fault("timeout", `call to ${name} timed out after ${extended ? time.elapsedMs : time.timeoutMs} ms${extended}`);
    }
    const connectionLost = !conn || conn.dead || !(e instanceof McpError) || e.code === ErrorCode.ConnectionClosed;
    if (connectionLost) {
      conn?.markDead(msg);
      const why = conn?.describeFailure(false); // a tool result: the model reads it
      return fault("connection", `connection to the server lost during ${name}: ${msg}${why ? ` (${why})` : ""}; the next call reconnects`);
    }
    // a JSON-RPC error answer: keep the server's code and message (McpError's message has both;
    // a server built on the SDK sends its own McpError's message, prefix included, once more)
    return fault("protocol", msg.replace(/^(MCP error -?\d+: )\1/, "$1"));
  }

  async reachable(timeoutMs = 5_000): Promise<string | undefined> {
    try {
      const conn = await this.live();
      await conn.client.ping({ timeout: timeoutMs });
      return undefined;
    } catch (e) {
      return e instanceof Error ? rootCause(e) : String(e);
    }
  }

  /** the current connection, or a new instance if it died (one reconnect shared by all callers) */
  private live(): Promise<Connection> {
    if (!this.conn.dead) return Promise.resolve(this.conn);
    if (!this.reconnecting) {
      const old = this.conn;
      this.reconnecting = (async () => {
        this.junkFromClosed += old.junkLines;
        await old.close();
        const fresh = await Connection.open(this.launch, this.options.connectTimeoutMs, this.options);
        if (this.closed) {
          await fresh.close();
          throw new Error("the toolbox is closed");
        }
        this.conn = fresh;
        this.counters.reconnects++;
        return fresh;
      })().finally(() => {
        this.reconnecting = undefined;
      });
    }
    return this.reconnecting;
  }

  async isolated(): Promise<Toolbox> {
    if (this.closed) throw new TrainMcpError("ServerUnreachable", "isolated() on a closed toolbox", false);
    // sessions on one HTTP server share its concurrency bound (maxConcurrency calls in flight in
    // all); separate processes each get their own
    const child = await McpToolbox.start(this.source, this.options, this.shared, this.isolation === "session" ? this.semaphore : undefined);
    this.isolatedChildren.add(child);
    child.onClose = () => this.isolatedChildren.delete(child);
    return child;
  }

  private onClose?: () => void;

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.isolatedChildren].map((c) => c.close()));
    await this.reconnecting?.catch(() => undefined);
    await this.conn.close();
    if (this.workDir) {
      await rm(this.workDir, { recursive: true, force: true }).catch(() => {});
      untrackTempDir(this.workDir);
    }
    this.onClose?.();
  }
}

/**
 * HTTP 404 on a request carrying a session id: the server forgot the session (restarted). The
 * spec says start a new session; the call was never run, so it is resent once. Servers built on
 * the SDK's example answer 400 "No valid session ID" instead, so that counts too.
 */
function sessionExpired(e: unknown): boolean {
  if (!(e instanceof StreamableHTTPError)) return false;
  return e.code === 404 || (e.code === 400 && /session/i.test(e.message));
}

function fault(kind: ToolFaultKind, text: string): ToolResult {
  return { isError: true, text, fault: kind, truncated: false };
}

/** `--env NAME='${cwd}/file'`: the server instance's working directory — its own copy of
 *  --template-dir — for servers that take a data path only from the environment and resolve it
 *  against their install folder, not their working directory (server-memory's MEMORY_FILE_PATH). */
export function withWorkDir(env: Record<string, string>, cwd: string): Record<string, string> {
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v.replaceAll("${cwd}", cwd)]));
}

/** Each server instance's copy of --template-dir is a new temp folder of this name. */
export const WORK_COPY_PREFIX = "train-mcp-work-";

/** Text naming an instance's working copy ("Allowed directories: /tmp/train-mcp-work-kJfigJ")
 *  is true of that instance only: no task's answer or argument may depend on it. */
export function mentionsWorkCopy(text: string): boolean {
  return text.includes(WORK_COPY_PREFIX);
}

/** What a server is given that a tool may print back: see Toolbox.secrets. */
function launchSecrets(launch: LaunchSpec): string[] {
  const found =
    launch.kind === "stdio"
      ? stdioServerSecrets(launch.command, launch.args, launch.env)
      : [...headerSecretValues(launch.headers), ...urlCredentialValues(launch.url)];
  return [...new Set(found)].filter((v) => v !== "" && v !== "EMPTY");
}

/** how a user set the tool filter: "--tools", "--exclude-tools", or both */
function filterFlags(filter: ToolFilter | undefined): string {
  const flags = [filter?.include?.length ? "--tools" : "", filter?.exclude?.length ? "--exclude-tools" : ""].filter(Boolean);
  return flags.join(" and ");
}
