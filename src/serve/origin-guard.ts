/**
 * Which callers a local `serve` answers. A server on 127.0.0.1 is still reachable from any web
 * page the operator opens: a page may POST to it (a `text/plain` body needs no CORS preflight)
 * and, through DNS rebinding (a hostile name that resolves to 127.0.0.1), read the replies. So:
 * - the Host header of a loopback-bound server must name a loopback host (MCP's and Jupyter's
 *   DNS-rebinding rule);
 * - a request with an Origin header (every cross-origin browser request has one) is served only
 *   for a loopback origin or one given with `--allow-origin` (`*` for any), and those get CORS
 *   headers, preflights included, so browser UIs can use the server on purpose.
 * Clients that are not browsers (the openai SDK, curl, the trainer) send no Origin: unaffected.
 */
import type * as http from "node:http";
import { ApiError } from "./api-error.js";

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

export interface OriginPolicy {
  /** the address the server is bound to */
  bindHost: string;
  /** origins (scheme://host[:port]) whose pages may call the server, or "*" */
  allowOrigins: readonly string[];
}

const hostnameOf = (hostHeader: string): string => {
  try {
    return new URL(`http://${hostHeader}`).hostname;
  } catch {
    return "";
  }
};

/**
 * Throws a 403 for a request the policy refuses; otherwise sets the CORS headers an allowed
 * origin needs, and returns true when the request was a CORS preflight (answered here: 204).
 */
export function guardOrigin(req: http.IncomingMessage, res: http.ServerResponse, policy: OriginPolicy): boolean {
  if (LOOPBACK_HOSTS.has(policy.bindHost)) {
    const host = req.headers.host ?? "";
    if (!LOOPBACK_HOSTS.has(hostnameOf(host)))
      throw new ApiError(
        403,
        `Host "${host}" is not this server's name (it listens on ${policy.bindHost}): refused, as a DNS-rebinding page would send it ` +
          "(behind a reverse proxy on this machine, have it send Host: localhost, e.g. nginx's proxy_set_header Host localhost)",
        "permission_error",
      );
  }
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  let loopback = false;
  try {
    loopback = LOOPBACK_HOSTS.has(new URL(origin).hostname);
  } catch {
    // "null" (a file:// page, a sandboxed frame) and other opaque origins are no loopback origin
  }
  if (!loopback && !policy.allowOrigins.includes("*") && !policy.allowOrigins.includes(origin))
    throw new ApiError(403, `requests from web pages at ${origin} are refused; start serve with --allow-origin ${origin} to allow them`, "permission_error");
  res.setHeader("access-control-allow-origin", origin);
  res.setHeader("vary", "Origin");
  if (req.method !== "OPTIONS") return false;
  res.writeHead(204, {
    "access-control-allow-methods": "GET, POST, OPTIONS",
    "access-control-allow-headers": req.headers["access-control-request-headers"] ?? "authorization, content-type",
    "access-control-max-age": "600",
  });
  res.end();
  return true;
}
