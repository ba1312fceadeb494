/**
 * Server-sent events as OpenAI streams them: each event one `data: <json>` line and a blank
 * line; the stream ends with `data: [DONE]` (written by the caller).
 */
import type * as http from "node:http";

export function writeSse(res: http.ServerResponse, data: object): void {
  if (!res.writableEnded && !res.destroyed) res.write(`data: ${JSON.stringify(data)}\n\n`);
}
