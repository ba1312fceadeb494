/**
 * A test-only MCP server exercising what third-party servers do: paginated tools/list, raw JSON
 * Schemas in draft-07 and 2020-12 with nested objects, arrays, enums, optional fields and an
 * unknown format; progress notifications; slow tools; huge output; image/audio/resource content;
 * isError results; outputSchema + structuredContent; in-memory state; junk on stdout; crashes.
 * Written on the SDK's low-level Server so every wire detail is under the test's control.
 *
 *   node --import tsx test/servers/everything.ts                 stdio
 *   node --import tsx test/servers/everything.ts --http 0        Streamable HTTP at /mcp
 *   node --import tsx test/servers/everything.ts --sse 0         legacy HTTP+SSE only, at /sse
 *   --no-get          (HTTP) answer 405 to GET: no standalone SSE stream
 *   --resumable       (HTTP) an event store, as server-everything has: every SSE event gets an
 *                     id, a GET with Last-Event-ID replays what followed it and prints
 *                     `resumed after ID` on stderr
 *   --junk-on-start   print non-JSON lines on stdout before serving (stdio)
 *   --task-only       list only `echo` and a tool that runs only as an MCP task
 *   --resources       also offer resources (paginated, 2 a page), a URI template and resource reads
 *   --many-resources N  with --resources, N more resources with long descriptions (mem://bulk/<i>)
 *   --resource-clash  list only `echo` and a tool of the server's own named `read_resource`
 *   --sampling        list only `echo`, and `summarize` (which asks the client's model through
 *                     sampling/createMessage) to clients that declare sampling
 *   --elicitation     list only `echo`, and to clients that declare elicitation `book_table` and
 *                     `delete_note` (which ask the user through elicitation/create forms) and
 *                     `open_page` (which tries a URL-mode elicitation)
 * HTTP modes print `listening on http://127.0.0.1:PORT/<path>` on stderr.
 */
import { readFile, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport, type EventStore } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  isInitializeRequest,
  type JSONRPCMessage,
  type CallToolResult,
  type Resource,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";

const PAGE = 4;
const argv = process.argv.slice(2);
const flag = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};

const obj = (properties: Record<string, object>, required: string[] = [], extra: Record<string, unknown> = {}) => ({
  type: "object" as const,
  properties,
  required,
  ...extra,
});

const TOOLS: Tool[] = [
  { name: "echo", description: "Echo the text back.", inputSchema: obj({ text: { type: "string" } }, ["text"]) },
  {
    name: "order",
    description: "Place an order: customer, line items and shipping speed.",
    inputSchema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      ...obj(
        {
          customer: obj({ name: { type: "string", minLength: 1 }, email: { type: "string", format: "email" } }, ["name"]),
          items: {
            type: "array",
            minItems: 1,
            items: obj({ sku: { type: "string" }, qty: { type: "integer", minimum: 1 } }, ["sku", "qty"], { additionalProperties: false }),
          },
          shipping: { type: "string", enum: ["standard", "express"] },
          note: { type: "string", format: "x-house-style" },
        },
        ["customer", "items", "shipping"],
      ),
    },
  },
  {
    name: "slow",
    description: "Takes `steps` steps of `ms` each, reporting progress.",
    inputSchema: { $schema: "http://json-schema.org/draft-07/schema#", ...obj({ steps: { type: "integer" }, ms: { type: "integer" } }, ["steps", "ms"]) },
  },
  { name: "sleep", description: "Sleeps ms milliseconds, silently.", inputSchema: obj({ ms: { type: "integer" } }, ["ms"]) },
  { name: "big", description: "Returns `chars` characters.", inputSchema: obj({ chars: { type: "integer" } }, ["chars"]) },
  { name: "image", description: "Returns a PNG image and a caption.", inputSchema: obj({}) },
  { name: "media", description: "Returns audio, a resource link and embedded resources.", inputSchema: obj({}) },
  { name: "fail", description: "Always reports an error.", inputSchema: obj({}) },
  {
    name: "weather",
    description: "Structured weather for a city.",
    inputSchema: obj({ city: { type: "string" } }, ["city"]),
    outputSchema: obj({ city: { type: "string" }, temp: { type: "number" }, unit: { type: "string" } }, ["city", "temp", "unit"]),
  },
  {
    name: "stats",
    description: "Structured numbers, with only a prose summary as text.",
    inputSchema: obj({}),
    outputSchema: obj({ mean: { type: "number" } }, ["mean"]),
  },
  // says nothing of the change it makes, by its name or its description: the witness test's case
  { name: "counter_inc", description: "Counts one more on this server's counter.", inputSchema: obj({}) },
  { name: "counter_get", description: "Reads this server's counter.", inputSchema: obj({}) },
  { name: "session_inc", description: "Adds one to this session's own counter (HTTP: one per MCP session).", inputSchema: obj({}) },
  { name: "junk", description: "Prints junk on stdout, then answers.", inputSchema: obj({}) },
  { name: "auth", description: "The Authorization header of this HTTP request.", inputSchema: obj({}) },
  { name: "pid", description: "This server's process id.", inputSchema: obj({}) },
  { name: "env", description: "Reads an environment variable.", inputSchema: obj({ name: { type: "string" } }, ["name"]) },
  { name: "read", description: "Reads a file in the working directory.", inputSchema: obj({ file: { type: "string" } }, ["file"]) },
  { name: "write", description: "Writes a file in the working directory.", inputSchema: obj({ file: { type: "string" }, text: { type: "string" } }, ["file", "text"]) },
];

const SUMMARIZE: Tool = {
  name: "summarize",
  description: "Summarizes text with the client's model (MCP sampling).",
  inputSchema: obj({ text: { type: "string" }, max_tokens: { type: "integer" }, stop: { type: "string" }, media: { type: "boolean", description: "also send audio, an SVG and an earlier assistant turn with an image" } }, ["text"]),
};

// forms as third-party servers write them: required fields with and without defaults, an enum
const BOOK_TABLE: Tool = { name: "book_table", description: "Books a table; asks the user for the details.", inputSchema: obj({ restaurant: { type: "string" } }, ["restaurant"]) };
const DELETE_NOTE: Tool = { name: "delete_note", description: "Deletes a note after the user confirms.", inputSchema: obj({ note: { type: "string" } }, ["note"]) };
const OPEN_PAGE: Tool = { name: "open_page", description: "Asks the user to open a web page (URL-mode elicitation).", inputSchema: obj({}) };

let counter = 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const text = (t: string, isError = false): CallToolResult => ({ content: [{ type: "text", text: t }], isError });
// 1x1 transparent PNG
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

const RESOURCES: Resource[] = [
  { uri: "mem://notes/a", name: "a", title: "Note A", mimeType: "text/plain", description: "The first note." },
  { uri: "mem://notes/b", name: "b", mimeType: "text/plain" },
  { uri: "mem://notes/c", name: "c", mimeType: "text/plain" },
  { uri: "file:///data/report.csv", name: "report.csv", mimeType: "text/csv", description: "The report the media tool links to." },
  { uri: "mem://blob", name: "blob", mimeType: "application/octet-stream" },
  { uri: "mem://docs/guide.md", name: "guide.md", mimeType: "text/markdown" },
];
const NOTES: Record<string, string> = { a: "alpha note", b: "bravo note", c: "charlie note", secret: "the hidden note" };

function addResources(server: Server): void {
  // a list longer than a tool result may be, over more pages than one listing reads
  const bulk: Resource[] = Array.from({ length: Number(flag("many-resources") ?? 0) }, (_, i) => ({
    uri: `mem://bulk/${i}`,
    name: `bulk-${i}`,
    mimeType: "text/plain",
    description: `Bulk note number ${i}, one of many that make the list long. ${"Filler words to lengthen the line. ".repeat(15)}`,
  }));
  const all = [...RESOURCES, ...bulk];
  server.setRequestHandler(ListResourcesRequestSchema, async (req) => {
    const start = Number(req.params?.cursor ?? 0);
    const next = start + 2;
    return { resources: all.slice(start, next), ...(next < all.length ? { nextCursor: String(next) } : {}) };
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [{ uriTemplate: "mem://notes/{name}", name: "note", description: "Any note by its name." }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    const uri = req.params.uri;
    if (uri === "file:///data/report.csv") return { contents: [{ uri, mimeType: "text/csv", text: "month,sales\njan,12\nfeb,15" }] };
    if (uri === "mem://docs/guide.md") return { contents: [{ uri, mimeType: "text/markdown", text: "# The User Guide\n\nStart the server, then call echo.\nThat is all." }] };
    if (uri === "mem://blob") return { contents: [{ uri, mimeType: "application/octet-stream", blob: Buffer.alloc(6).toString("base64") }] };
    const note = /^mem:\/\/notes\/(.+)$/.exec(uri);
    if (note && NOTES[note[1]] !== undefined) return { contents: [{ uri, mimeType: "text/plain", text: NOTES[note[1]] }] };
    throw new McpError(-32002, `Resource not found: ${uri}`);
  });
}

function makeServer(): Server {
  let sessionCounter = 0; // one makeServer() per session (HTTP) or process (stdio)
  const withResources = argv.includes("--resources");
  const server = new Server({ name: "everything", version: "1.0.0" }, { capabilities: { tools: {}, ...(withResources ? { resources: {} } : {}) }, instructions: flag("instructions") });
  if (withResources) addResources(server);
  server.setRequestHandler(ListToolsRequestSchema, async (req) => {
    const start = Number(req.params?.cursor ?? 0);
    const next = start + PAGE;
    if (argv.includes("--no-tools")) return { tools: [] };
    // a name a chat template's tool-call JSON cannot carry as written
    if (argv.includes("--odd-name")) return { tools: [{ name: 'say "hi" <tool_call>', description: "An oddly named tool.", inputSchema: obj({}) }, TOOLS[0]] };
    // a tool that runs only as an MCP task (2025-11 spec): a plain tools/call is refused
    if (argv.includes("--elicitation")) return { tools: [TOOLS[0], ...(server.getClientCapabilities()?.elicitation ? [BOOK_TABLE, DELETE_NOTE, OPEN_PAGE] : [])] };
    if (argv.includes("--sampling")) return { tools: [TOOLS[0], ...(server.getClientCapabilities()?.sampling ? [SUMMARIZE] : [])] };
    if (argv.includes("--resource-clash"))
      return { tools: [{ name: "read_resource", description: "The server's own read_resource.", inputSchema: obj({ path: { type: "string" } }, ["path"]) }, TOOLS[0]] };
    if (argv.includes("--task-only")) return { tools: [{ name: "research", description: "Researches a topic as a task.", inputSchema: obj({}), execution: { taskSupport: "required" } }, TOOLS[0]] };
    return { tools: TOOLS.slice(start, next), ...(next < TOOLS.length ? { nextCursor: String(next) } : {}) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (req, extra): Promise<CallToolResult> => {
    const a = (req.params.arguments ?? {}) as Record<string, unknown>;
    if (argv.includes("--crash-on-call")) {
      process.stderr.write("crashing on purpose\n");
      process.exit(1);
    }
    switch (req.params.name) {
      case "echo":
        return text(String(a.text));
      case "order": {
        const items = a.items as Array<{ sku: string; qty: number }>;
        return text(`ordered ${items.map((i) => `${i.qty}x${i.sku}`).join(",")} by ${a.shipping}`);
      }
      case "slow": {
        const token = req.params._meta?.progressToken;
        const steps = Number(a.steps);
        for (let i = 1; i <= steps; i++) {
          await sleep(Number(a.ms));
          if (token !== undefined) {
            await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: i, total: steps, message: `step ${i}` } });
          }
        }
        return text(`done after ${steps} steps`);
      }
      case "sleep":
        await sleep(Number(a.ms));
        return text("awake");
      case "big":
        return text("x".repeat(Number(a.chars)));
      case "image":
        return { content: [{ type: "text", text: "a tiny picture" }, { type: "image", data: PNG, mimeType: "image/png" }] };
      case "media":
        return {
          content: [
            { type: "audio", data: Buffer.alloc(3000).toString("base64"), mimeType: "audio/wav" },
            { type: "resource_link", uri: "file:///data/report.csv", name: "report.csv" },
            { type: "resource", resource: { uri: "mem://notes", mimeType: "text/plain", text: "embedded note" } },
            { type: "resource", resource: { uri: "mem://blob", mimeType: "application/octet-stream", blob: Buffer.alloc(10).toString("base64") } },
          ],
        };
      case "fail":
        return text("something went wrong: the warehouse is closed", true);
      case "weather": {
        // --broken-output: a server that breaks its own outputSchema (temp as a string)
        const data = { city: String(a.city), temp: argv.includes("--broken-output") ? "21.5" : 21.5, unit: "C" };
        return { content: [{ type: "text", text: JSON.stringify(data) }], structuredContent: data };
      }
      case "stats":
        return { content: [{ type: "text", text: "the mean is about four" }], ...(argv.includes("--broken-output") ? {} : { structuredContent: { mean: 4.2 } }) };
      case "counter_inc":
        return text(String(++counter));
      case "counter_get":
        return text(String(counter));
      case "session_inc":
        return text(String(++sessionCounter));
      case "junk":
        process.stdout.write("junk line from a chatty server\n{\"not\":\"jsonrpc\"}\n\n");
        return text("still here");
      case "auth":
        return text(String(extra.requestInfo?.headers?.authorization ?? "(none)"));
      case "pid":
        return text(String(process.pid));
      case "env":
        return text(process.env[String(a.name)] ?? "(unset)");
      case "book_table": {
        const r = await server.elicitInput(
          {
            message: `Booking a table at ${String(a.restaurant)}: who is it for, and how many guests?`,
            requestedSchema: {
              type: "object",
              properties: {
                name: { type: "string", title: "Name", description: "The name the booking is under" },
                guests: { type: "integer", title: "Guests", minimum: 1, maximum: 12 },
                seating: { type: "string", enum: ["inside", "outside"], default: "inside" },
                notes: { type: "string", description: "Anything the restaurant should know" },
              },
              required: ["name", "guests"],
            },
          },
          { relatedRequestId: extra.requestId },
        );
        if (r.action !== "accept") return text(`no booking: the user chose ${r.action}`);
        const c = r.content ?? {};
        return text(`booked ${String(a.restaurant)} for ${String(c.name)}, ${String(c.guests)} guests, ${String(c.seating ?? "inside")}`);
      }
      case "delete_note": {
        const r = await server.elicitInput(
          {
            message: `Delete the note "${String(a.note)}"?`,
            requestedSchema: { type: "object", properties: { confirm: { type: "boolean", title: "Delete it", default: true } }, required: ["confirm"] },
          },
          { relatedRequestId: extra.requestId },
        );
        // not confirmed is a failed call, as servers report a refused deletion
        return r.action === "accept" && r.content?.confirm === true ? text(`deleted ${String(a.note)}`) : text(`kept ${String(a.note)} (${r.action})`, true);
      }
      case "open_page":
        try {
          const r = await server.elicitInput({ mode: "url", message: "Sign in", url: "https://example.com/login", elicitationId: "e1" }, { relatedRequestId: extra.requestId });
          return text(`page: ${r.action}`);
        } catch (e) {
          return text(`cannot ask: ${(e as Error).message}`, true);
        }
      case "summarize": {
        // what an untrusted server may ask: a model of its choosing, lots of tokens, the host's context
        const r = await server.createMessage(
          {
            messages: [
              ...(a.media
                ? [
                    { role: "user" as const, content: { type: "text" as const, text: "Draw a dot." } },
                    { role: "assistant" as const, content: { type: "image" as const, data: PNG, mimeType: "image/png" } },
                  ]
                : []),
              {
                role: "user",
                content: [
                  { type: "text", text: `Summarize: ${String(a.text)}` },
                  { type: "image", data: PNG, mimeType: "image/png" },
                  ...(a.media
                    ? [
                        { type: "audio" as const, data: Buffer.from("RIFF-wav").toString("base64"), mimeType: "audio/wav" },
                        { type: "audio" as const, data: Buffer.from("ID3-mp3").toString("base64"), mimeType: "audio/mpeg" },
                        { type: "audio" as const, data: Buffer.from("OggS").toString("base64"), mimeType: "audio/ogg" },
                        { type: "image" as const, data: Buffer.from("<svg/>").toString("base64"), mimeType: "image/svg+xml" },
                      ]
                    : []),
                ],
              },
            ],
            systemPrompt: "Be brief.",
            maxTokens: Number(a.max_tokens ?? 50),
            modelPreferences: { hints: [{ name: "some-expensive-model" }] },
            includeContext: "allServers",
            ...(a.stop ? { stopSequences: [String(a.stop)] } : {}),
          },
          { relatedRequestId: extra.requestId },
        );
        return text(`${r.model} (${r.stopReason}): ${r.content.type === "text" ? r.content.text : r.content.type}`);
      }
      case "read_resource":
        return text(`the server's own read_resource: ${String(a.path)}`);
      case "read":
        return text(await readFile(String(a.file), "utf8"));
      case "write":
        await writeFile(String(a.file), String(a.text));
        return text("written");
      default:
        return text(`no such tool ${req.params.name}`, true);
    }
  });
  return server;
}

async function body(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const s = Buffer.concat(chunks).toString("utf8");
  return s ? JSON.parse(s) : undefined;
}

function listen(handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>, path: string): void {
  const http = createServer((req, res) => {
    handler(req, res).catch((e) => {
      if (!res.headersSent) res.writeHead(500).end(String(e));
    });
  });
  http.listen(Number(flag("http") ?? flag("sse")), "127.0.0.1", () => {
    const addr = http.address();
    const port = typeof addr === "object" && addr ? addr.port : 0;
    process.stderr.write(`listening on http://127.0.0.1:${port}${path}\n`);
  });
}

/** The smallest event store: ids in order, a replay sends the same stream's later events. */
function memoryEventStore(): EventStore {
  const events: Array<{ id: string; stream: string; message: JSONRPCMessage }> = [];
  return {
    async storeEvent(stream, message) {
      const id = `${stream}_${events.length}`;
      events.push({ id, stream, message });
      return id;
    },
    async replayEventsAfter(lastEventId, { send }) {
      process.stderr.write(`resumed after ${lastEventId}\n`);
      const at = events.findIndex((e) => e.id === lastEventId);
      if (at < 0) throw new Error(`unknown event id ${lastEventId}`);
      const stream = events[at].stream;
      for (const e of events.slice(at + 1)) if (e.stream === stream) await send(e.id, e.message);
      return stream;
    },
  };
}

if (flag("http") !== undefined) {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  listen(async (req, res) => {
    if (!req.url?.startsWith("/mcp")) return void res.writeHead(404).end();
    const sid = req.headers["mcp-session-id"];
    const existing = typeof sid === "string" ? sessions.get(sid) : undefined;
    if (req.method === "POST") {
      const msg = await body(req);
      if (existing) return existing.handleRequest(req, res, msg);
      // spec: an unknown session id gets 404, so the client starts a new session
      if (typeof sid === "string") return void res.writeHead(404).end("unknown session");
      if (!isInitializeRequest(msg)) return void res.writeHead(400).end("no session");
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, transport),
        ...(argv.includes("--resumable") ? { eventStore: memoryEventStore() } : {}),
      });
      transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
      await makeServer().connect(transport);
      return transport.handleRequest(req, res, msg);
    }
    // --no-get: no standalone SSE stream, so a restart is only noticed by a 404 on the next POST
    if (req.method === "GET" && argv.includes("--no-get")) return void res.writeHead(405).end();
    if (existing) return existing.handleRequest(req, res);
    res.writeHead(typeof sid === "string" ? 404 : 400).end();
  }, "/mcp");
} else if (flag("sse") !== undefined) {
  const sessions = new Map<string, SSEServerTransport>();
  listen(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname === "/sse" && req.method === "GET") {
      const transport = new SSEServerTransport("/messages", res);
      sessions.set(transport.sessionId, transport);
      res.on("close", () => sessions.delete(transport.sessionId));
      await makeServer().connect(transport);
      return;
    }
    if (url.pathname === "/messages" && req.method === "POST") {
      const t = sessions.get(url.searchParams.get("sessionId") ?? "");
      if (!t) return void res.writeHead(404).end("unknown session");
      return t.handlePostMessage(req, res, await body(req));
    }
    // a legacy server knows nothing of Streamable HTTP: POST /sse is not allowed
    res.writeHead(405).end("method not allowed");
  }, "/sse");
} else {
  if (argv.includes("--junk-on-start")) process.stdout.write("Starting everything server v1.0 ...\n");
  // (--log-env: a careless server that prints its environment, secrets and all)
  if (argv.includes("--log-env")) process.stderr.write(`everything: env ${JSON.stringify(process.env)} argv ${JSON.stringify(argv)}\n`);
  process.stderr.write("everything: stdio server ready\n");
  await makeServer().connect(new StdioServerTransport());
}
