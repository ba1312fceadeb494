/**
 * A fetch for the SDK's Streamable HTTP client transport that keeps it from "resuming" a request
 * stream that already ended with its answer. The SDK (1.x up to 1.32.2, typescript-sdk#2638)
 * takes only a JSON-RPC result as a stream's answer, never an error: when a resumable server (one
 * with an event store, whose SSE events carry ids: server-everything) closes a stream after an
 * error response (a resource not found, a tool that throws), the transport reconnects with GET +
 * Last-Event-ID a second later, twice per error. Each replay stream stays open (abort listeners
 * pile up: MaxListenersExceededWarning), replays the error for an id nobody waits on, and when
 * the reconnects give up the session is taken for lost, failing the calls in flight on it.
 * Here the ids of SSE events at and after an error response are remembered, and a GET that would
 * resume from one is answered 405 without asking the server: to the SDK, "no stream to open".
 * A stream that broke before its answer is resumed as before.
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";

/** event ids kept per session: the SDK resumes from a stream's last id, seconds after it ends */
const REMEMBERED = 1000;

export function resumeGuard(base: FetchLike): FetchLike {
  const answered = new Set<string>();
  const remember = (id: string) => {
    answered.add(id);
    if (answered.size > REMEMBERED) answered.delete(answered.values().next().value as string);
  };
  return async (url, init) => {
    const resumeFrom = new Headers(init?.headers).get("last-event-id");
    if ((init?.method ?? "GET").toUpperCase() === "GET" && resumeFrom !== null && answered.has(resumeFrom))
      return new Response(null, { status: 405, statusText: "nothing to resume: the stream's answer has arrived" });
    const response = await base(url, init);
    if (!response.body || !/^text\/event-stream/i.test(response.headers.get("content-type") ?? "")) return response;
    const scan = sseErrorScanner(remember);
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          scan(chunk);
          controller.enqueue(chunk);
        },
      }),
    );
    const wrapped = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    Object.defineProperties(wrapped, { url: { value: response.url }, redirected: { value: response.redirected } });
    return wrapped;
  };
}

/**
 * Reads an SSE stream as it passes, calling `onAnswered` with the id of the event that carried a
 * JSON-RPC error response (or the last id before it, when it had none) and of every later event.
 * Results are left out: the SDK itself never resumes after one.
 */
export function sseErrorScanner(onAnswered: (id: string) => void): (chunk: Uint8Array) => void {
  const decoder = new TextDecoder();
  let partial = "";
  let lastId: string | undefined; // SSE: an event without an id keeps the last one
  let data: string[] = [];
  let answered = false;
  return (chunk) => {
    const lines = (partial + decoder.decode(chunk, { stream: true })).split(/\r\n|\r|\n/);
    partial = lines.pop() ?? "";
    for (const line of lines) {
      if (line === "") {
        if (!answered && data.length > 0 && isErrorResponse(data.join("\n"))) {
          answered = true;
          if (lastId !== undefined) onAnswered(lastId);
        }
        data = [];
        continue;
      }
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "id") {
        lastId = value;
        if (answered) onAnswered(value);
      } else if (field === "data") data.push(value);
    }
  };
}

function isErrorResponse(text: string): boolean {
  // most events are results, some large: parsed only when an error is possible at all
  if (!text.includes('"error"')) return false;
  try {
    const m = JSON.parse(text) as unknown;
    return !!m && typeof m === "object" && !Array.isArray(m) && "error" in m && "id" in m && !("method" in m);
  } catch {
    return false;
  }
}
