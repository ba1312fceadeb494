/**
 * A small real HTTP server that speaks the OpenAI chat-completions protocol on 127.0.0.1, for
 * tests of code that calls an OpenAI-compatible endpoint (the LLM scenario generator, the RULER
 * judge) through the real `openai` client. The test supplies the replies; the server records
 * every request so the test can check what was sent. Not a mock of our code: the client, HTTP
 * and JSON all run for real.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ChatRequest {
  model: string;
  messages: Array<{ role: string; content: unknown }>;
  response_format?: { type: string; json_schema?: { name?: string; schema?: unknown; strict?: boolean } };
  [key: string]: unknown;
}

/** What a handler returns: the assistant's text, or an HTTP failure to send instead. */
export type ChatReply =
  | { content: string; finishReason?: string }
  | { status: number; error: string }
  | { hangMs: number }
  /** the connection is cut without a reply (a proxy restarting, a server crashing) */
  | { drop: true }
  /** a 200 that is not a chat completion: a web page where the API was expected */
  | { html: string }
  /** a 200 with this JSON body as it is (an endpoint's odd reply) */
  | { body: unknown };

export type ChatHandler = (request: ChatRequest, index: number) => ChatReply | Promise<ChatReply>;

export interface ChatServer {
  url: string; // base URL, e.g. http://127.0.0.1:PORT/v1
  requests: ChatRequest[];
  headers: http.IncomingHttpHeaders[];
  /** the query string of every request, in order ("" when none) */
  queries: string[];
  close(): Promise<void>;
}

export interface ChatServerOptions {
  /** the ids GET /v1/models lists (default ["test-model"]); null: no such route (HTTP 404), as some endpoints have none */
  models?: string[] | null;
}

export async function startChatServer(handler: ChatHandler, options: ChatServerOptions = {}): Promise<ChatServer> {
  const models = options.models === undefined ? ["test-model"] : options.models;
  const requests: ChatRequest[] = [];
  const headers: http.IncomingHttpHeaders[] = [];
  const queries: string[] = [];
  const sockets = new Set<import("node:net").Socket>();
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    // the query a client sends along (Azure's ?api-version=…) is recorded, the path routed
    const [route, query = ""] = (req.url ?? "").split("?");
    queries.push(query);
    if (req.method === "GET" && route === "/v1/models" && models) {
      return send(200, { object: "list", data: models.map((id) => ({ id, object: "model", owned_by: "test" })) });
    }
    if (req.method !== "POST" || route !== "/v1/chat/completions") {
      return send(404, { error: { message: `no route ${req.method} ${req.url}` } });
    }
    let body: ChatRequest;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ChatRequest;
    } catch {
      return send(400, { error: { message: "invalid JSON body" } });
    }
    const index = requests.length;
    requests.push(body);
    headers.push(req.headers);
    const reply = await handler(body, index);
    if ("html" in reply) {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(reply.html);
      return;
    }
    if ("body" in reply) return send(200, reply.body);
    if ("drop" in reply) {
      req.socket.destroy();
      return;
    }
    if ("hangMs" in reply) {
      await new Promise((r) => setTimeout(r, reply.hangMs));
      if (!res.writableEnded) send(504, { error: { message: "hung" } });
      return;
    }
    if ("status" in reply) return send(reply.status, { error: { message: reply.error, type: "test_error" } });
    send(200, {
      id: `chatcmpl-${index}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: reply.content },
          finish_reason: reply.finishReason ?? "stop",
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    headers,
    queries,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
