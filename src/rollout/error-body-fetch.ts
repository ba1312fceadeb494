/**
 * vLLM before 0.10.1 sent its errors as `{"object": "error", "message": …, "code": 400}`, at the
 * top level of the body; the openai client reads only `error.message`, so such a refusal reached
 * the caller as "400 status code (no body)". This fetch moves a top-level message under `error`,
 * so what the server said (a context-length refusal's numbers) reaches the caller.
 */
export async function errorBodyFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const res = await fetch(input, init);
  if (res.ok || !(res.headers.get("content-type") ?? "").includes("json")) return res;
  const text = await res.text();
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  headers.delete("content-encoding"); // the text is decoded already
  const again = (body: string) => new Response(body, { status: res.status, statusText: res.statusText, headers });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return again(text);
  }
  if (!body || typeof body !== "object" || "error" in body) return again(text);
  const b = body as { message?: unknown; type?: unknown; param?: unknown; code?: unknown };
  if (typeof b.message !== "string") return again(text);
  return again(JSON.stringify({ error: { message: b.message, type: typeof b.type === "string" ? b.type : "invalid_request_error", param: b.param ?? null, code: b.code ?? null } }));
}
