/**
 * `train-mcp serve`'s HTTP server (node:http): an OpenAI-compatible endpoint on 127.0.0.1 by
 * default, with vLLM's runtime LoRA endpoints. Routes:
 *   GET  /v1/models                 the base model and loaded adapters
 *   POST /v1/chat/completions       chat-completions.ts (tools, logprobs, streaming, json_schema)
 *   POST /v1/load_lora_adapter      {lora_name, lora_path, load_inplace?}: a PEFT folder served as lora_name
 *                                   (400 naming both bases when it does not fit the served base; a
 *                                   warning after "Success" when it was trained on another one)
 *   POST /v1/unload_lora_adapter    {lora_name}
 *   GET  /health                    200 when up (no auth)
 * Errors come back in OpenAI's shape (api-error.ts). With an API key set, every /v1 route wants
 * `Authorization: Bearer <key>`; the key is never logged.
 *
 * `startServer(options)` is the programmatic API (tests, the trainer's remote-policy mode):
 * it resolves once the port is bound, with the base URL (`http://127.0.0.1:PORT/v1`) and close().
 */
import { timingSafeEqual } from "node:crypto";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { TrainMcpError } from "../errors.js";
import { ApiError, toApiError } from "./api-error.js";
import { completeChat, prepareChat, streamChat, type ChatContext } from "./chat-completions.js";
import type { EngineKind } from "./engine.js";
import { ModelRegistry } from "./models.js";
import { guardOrigin } from "./origin-guard.js";
import { Scheduler } from "./queue.js";
import { ChatCompletionRequestSchema, LoadLoraSchema, parseBody, UnloadLoraSchema } from "./request-schema.js";

export interface ServeOptions {
  /** a Hugging Face checkpoint folder, or "default" (the embedded tiny model) */
  model: string;
  /** default 8000; 0 picks a free port */
  port?: number;
  /** default 127.0.0.1 */
  host?: string;
  /** default "auto": onnxruntime when it loads, else tfjs */
  engine?: EngineKind | "auto";
  /** adapters to load at start, each served under its name */
  adapters?: Array<{ name: string; path: string }>;
  /** generation rows run together at most (concurrent requests and n choices); default 8 */
  maxBatch?: number;
  /** requests join a running batch between steps (default true); false: static batches */
  continuousBatching?: boolean;
  /** keys and values of earlier prompts kept per model, so a prompt starting like one of them
   *  prefills only its new tokens (onnxruntime engine; default 256 MiB; 0: off) */
  prefixCacheBytes?: number;
  /** when set, requests must carry `Authorization: Bearer <apiKey>` */
  apiKey?: string;
  /** web page origins allowed to call the server (CORS), "*" for any; loopback pages always are */
  allowOrigins?: string[];
  /** the base model's name in requests (default: "default" or the folder name) */
  servedModelName?: string;
  /** seed of the random init of a `default` model without trained weights (default 0) */
  seed?: number;
  /** split <think> blocks off into the message's `reasoning` (vLLM's `--reasoning-parser`:
   *  qwen3 and deepseek_r1 both mean <think>…</think>) */
  reasoningParser?: "qwen3" | "deepseek_r1";
  /** one line per request and notice (default: none) */
  log?: (line: string) => void;
}

export interface RunningServer {
  /** base URL, e.g. http://127.0.0.1:8000/v1 */
  url: string;
  port: number;
  host: string;
  registry: ModelRegistry;
  scheduler: Scheduler;
  /** stops taking requests; those in flight get `drainMs` (default 0) to finish, then every
   *  connection is closed and the engines released */
  close(drainMs?: number): Promise<void>;
}

const MAX_BODY = 16 * 2 ** 20;

function readBody(req: http.IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        // keep reading (and dropping) the rest, so the 413 reaches the client instead of a
        // reset; a body that goes on far beyond the limit is cut off
        if (chunks.length) chunks.length = 0;
        reject(new ApiError(413, `body: larger than ${MAX_BODY} bytes`));
        if (size > 4 * MAX_BODY) req.destroy();
      } else chunks.push(c);
    });
    req.on("error", reject);
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      if (text.trim() === "") return reject(new ApiError(400, "body: empty; expected a JSON object"));
      try {
        resolve(JSON.parse(text));
      } catch (e) {
        reject(new ApiError(400, `body: invalid JSON: ${(e as Error).message}`));
      }
    });
  });
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

function sendText(res: http.ServerResponse, status: number, text: string): void {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** Bearer check in constant time (no early exit on the first differing byte); the scheme's
 *  name is case-insensitive (RFC 7235: `bearer KEY` too). */
function keyMatches(header: string | undefined, key: string): boolean {
  const got = Buffer.from((header ?? "").replace(/^bearer /i, "Bearer "));
  const want = Buffer.from(`Bearer ${key}`);
  return got.length === want.length && timingSafeEqual(got, want);
}

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const log = options.log ?? (() => {});
  const host = options.host ?? "127.0.0.1";
  const loopback = ["127.0.0.1", "::1", "localhost"].includes(host);
  const port = options.port ?? 8000;
  const scheduler = new Scheduler(options.maxBatch ?? 8, options.continuousBatching ?? true);
  // bind first: a busy port fails in a second, not after the model has loaded
  let registry: ModelRegistry | null = null;
  let inFlight = 0;
  const server = http.createServer((req, res) => {
    const t0 = Date.now();
    if (!registry) return sendJson(res, 503, new ApiError(503, "the model is still loading", "server_error").body());
    inFlight++;
    route(registry, req, res)
      .catch((e: unknown) => {
        const err = toApiError(e);
        if (res.headersSent) {
          // mid-stream: report in the stream, then end it as every stream ends (vLLM does the same)
          if (!res.writableEnded) res.end(`data: ${JSON.stringify(err.body())}\n\ndata: [DONE]\n\n`);
          return;
        }
        sendJson(res, err.status, err.body());
      })
      .finally(() => {
        inFlight--;
        // a client that left before the reply was whole: not a 200 like the others
        // the path only: a client may put its key in the query (?api_key=…, as some SDKs do)
        log(`${req.method} ${(req.url ?? "").split("?")[0]}${(req.url ?? "").includes("?") ? "?…" : ""} ${res.writableFinished ? res.statusCode : "aborted by the client"} ${Date.now() - t0}ms`);
      });
  });
  // Node closes an idle keep-alive socket after 5 s, racing a client that reuses it just then
  // (ECONNRESET on its next request); clients drop idle sockets sooner (undici: 4 s), so the
  // server waiting longer never closes one under a request
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", (e: NodeJS.ErrnoException) => {
      const msg =
        e.code === "EADDRINUSE"
          ? `port ${port} on ${host} is already in use; stop what holds it or pick another with --port`
          : e.code === "EADDRNOTAVAIL" || e.code === "EACCES"
            ? `cannot listen on ${host}:${port} (${e.code})`
            : `cannot listen on ${host}:${port}: ${e.message}`;
      reject(new TrainMcpError("ConfigInvalid", msg, true, { cause: e }));
    });
    server.listen(port, host, () => resolve());
  });
  const closeHttp = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  /** Stops taking requests, lets those in flight finish (at most `drainMs`), then closes. */
  const drainHttp = async (drainMs: number) => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    const deadline = Date.now() + drainMs;
    while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    server.closeAllConnections();
    await closed;
  };
  try {
    registry = await ModelRegistry.load({
      model: options.model,
      engine: options.engine,
      servedModelName: options.servedModelName,
      seed: options.seed,
      prefixCacheBytes: options.prefixCacheBytes,
      warn: log,
    });
    // at start the adapters come from --adapter: the messages name the flag, not the API's fields
    for (const a of options.adapters ?? []) await registry.loadAdapter(a.name, path.resolve(a.path), false, "flag");
  } catch (e) {
    await closeHttp();
    await registry?.close();
    if (e instanceof ApiError) throw new TrainMcpError("ModelInvalid", e.message);
    throw e;
  }
  const reg: ModelRegistry = registry;

  async function route(registry: ModelRegistry, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const ctx: ChatContext = { registry, scheduler, reasoningParser: options.reasoningParser !== undefined };
    const url = new URL(req.url ?? "/", "http://localhost");
    const p = url.pathname.replace(/\/+$/, "");
    // web pages: a foreign Host (DNS rebinding) or Origin is refused; an allowed origin gets CORS
    if (guardOrigin(req, res, { bindHost: host, allowOrigins: options.allowOrigins ?? [] })) return;
    if (p === "/health") return sendText(res, 200, "ok");
    // the key guards the API (/v1), as vLLM's does: any other path is a plain 404 either way
    const isApi = p === "/v1" || p.startsWith("/v1/");
    if (isApi && options.apiKey !== undefined && !keyMatches(req.headers.authorization, options.apiKey)) {
      throw new ApiError(401, "Incorrect API key provided (expected `Authorization: Bearer <key>`)", "authentication_error", null, "invalid_api_key");
    }
    const method = req.method ?? "GET";
    const want = (m: string) => {
      if (method !== m) throw new ApiError(405, `${p}: method ${method} not allowed (use ${m})`);
    };
    if (p === "/v1/models") {
      want("GET");
      return sendJson(res, 200, {
        object: "list",
        data: registry.list().map((m) => ({ id: m.name, object: "model", created: m.created, owned_by: "train-mcp", root: m.root, parent: m.parent, max_model_len: registry.config.maxPositions })),
      });
    }
    if (p.startsWith("/v1/models/")) {
      want("GET");
      const m = registry.get(decodeURIComponent(p.slice("/v1/models/".length)));
      return sendJson(res, 200, { id: m.name, object: "model", created: m.created, owned_by: "train-mcp", root: m.root, parent: m.parent });
    }
    if (p === "/v1/chat/completions") {
      want("POST");
      const body = parseBody(ChatCompletionRequestSchema, await readBody(req));
      const prepared = prepareChat(ctx, body);
      if (body.stream) return streamChat(ctx, prepared, res);
      let gone = false;
      res.on("close", () => (gone = !res.writableFinished));
      return sendJson(res, 200, await completeChat(ctx, prepared, () => gone));
    }
    // loading reads any folder the server can: over a network, only for those holding the key
    // (vLLM keeps it off unless VLLM_ALLOW_RUNTIME_LORA_UPDATING)
    if ((p === "/v1/load_lora_adapter" || p === "/v1/unload_lora_adapter") && !loopback && options.apiKey === undefined)
      throw new ApiError(403, `${p} is off on a server reachable from other machines (${host}) without --api-key: start serve with --api-key, or on 127.0.0.1`, "permission_error");
    if (p === "/v1/load_lora_adapter") {
      want("POST");
      const body = parseBody(LoadLoraSchema, await readBody(req));
      const loaded = await scheduler.exclusive(() => registry.loadAdapter(body.lora_name, path.resolve(body.lora_path), body.load_inplace === true));
      log(`loaded LoRA adapter "${body.lora_name}" from ${body.lora_path}`);
      // vLLM's reply, with the base-model warning after it (clients check the status, not the text)
      return sendText(res, 200, `Success: LoRA adapter '${body.lora_name}' added successfully.${loaded.warning ? ` Warning: ${loaded.warning}.` : ""}`);
    }
    if (p === "/v1/unload_lora_adapter") {
      want("POST");
      const body = parseBody(UnloadLoraSchema, await readBody(req));
      await scheduler.exclusive(() => registry.unloadAdapter(body.lora_name));
      log(`unloaded LoRA adapter "${body.lora_name}"`);
      return sendText(res, 200, `Success: LoRA adapter '${body.lora_name}' removed successfully.`);
    }
    throw new ApiError(404, `no route ${method} ${p || "/"} (the API is under /v1: /v1/models, /v1/chat/completions)`, "not_found_error");
  }

  const addr = server.address() as AddressInfo;
  if (!loopback) log(`warning: listening on ${host}, reachable from other machines${options.apiKey === undefined ? " with no --api-key (loading LoRA adapters over HTTP is off until one is given)" : ""}`);
  const shownHost = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${shownHost}:${addr.port}/v1`,
    port: addr.port,
    host: addr.address,
    registry: reg,
    scheduler,
    async close(drainMs = 0) {
      await drainHttp(drainMs);
      await scheduler.exclusive(async () => {}); // let running work finish before the engines go
      await reg.close();
    },
  };
}
