/**
 * A fetch for the SDK's HTTP transports that gives every request its own AbortSignal, linked to
 * the one the transport passes. The transports pass one signal, alive as long as the session, to
 * every request; Node's fetch (undici) adds an abort listener to it per request and removes it
 * only when that request is garbage-collected, so a busy session (scenario generation, hundreds
 * of calls a minute) collects listeners past undici's limit of 1500 and floods stderr with
 * MaxListenersExceededWarning. Here the listener on the session's signal lives exactly as long
 * as its request: until the response body is read to the end, fails, or is cancelled.
 * Aborting the session's signal still aborts every request and body in flight.
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";

export function linkedFetch(base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const outer = init?.signal;
    if (!outer) return base(url, init);
    const own = new AbortController();
    const forward = () => own.abort(outer.reason);
    const unlink = () => outer.removeEventListener("abort", forward);
    if (outer.aborted) forward();
    else outer.addEventListener("abort", forward, { once: true });
    let response: Response;
    try {
      response = await base(url, { ...init, signal: own.signal });
    } catch (e) {
      unlink();
      throw e;
    }
    // nothing left to read (or a redirect the SDK reads by status and location only)
    if (!response.body || (response.status >= 300 && response.status < 400)) {
      unlink();
      return response;
    }
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            unlink();
            controller.close();
          } else controller.enqueue(value);
        } catch (e) {
          unlink();
          controller.error(e);
        }
      },
      cancel(reason) {
        unlink();
        return reader.cancel(reason);
      },
    });
    const wrapped = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    // a constructed Response has no url or redirect flag; keep the real ones for whoever reads them
    Object.defineProperties(wrapped, { url: { value: response.url }, redirected: { value: response.redirected } });
    return wrapped;
  };
}
