/**
 * A defensive secret scrub for anything written into a report. The loop already removes
 * secrets from config.json; this second pass exists because a report is the file people share.
 *
 * Two rules, applied to every value in a JSON tree:
 * - by key: a string (or object/array) under a key that names a secret (`api_key`, `apiKey`,
 *   `OPENAI_API_KEY`, `token`, `hf_token`, `secret`, `password`, `Authorization`, `cookie`...) is
 *   replaced by "[redacted]". Numbers and booleans stay: `max_tokens: 512` is not a secret.
 * - by value: substrings that look like credentials (`sk-…`, `hf_…`, `Bearer …`, `ghp_…`, a
 *   URL's `user:pass@` or `?token=…`) are replaced in every string, wherever they appear (a tool result can echo an environment).
 * The report applies both to config.json and summary.json, and only the value rule to
 * trajectories: there a tool argument named `key` is data (a key-value store's key), not a secret.
 */

import { redactSecretValues } from "../mcp/command-credentials.js";

export const REDACTED = "[redacted]";

// `key`/`token` only at the end of a name (`judge_api_key`, `hfToken`), so `tokenizer`,
// `keywords` or `token_budget` stay readable; the unambiguous words anywhere.
const SECRET_KEY = /(secret|passw(or)?d|authori[sz]ation|credential|cookie|api[_-]?key|private[_-]?key)|(key|token|keys|tokens)$/i;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

export function scrubString(s: string): string {
  return redactSecretValues(s);
}

/** Both rules: a scrubbed deep copy of a JSON value (no cycles: it came from JSON). */
export function scrubSecrets<T>(value: T): T {
  return scrub(value, false, true) as T;
}

/** The value rule only: every string scrubbed of credential-looking substrings. */
export function scrubSecretValues<T>(value: T): T {
  return scrub(value, false, false) as T;
}

function scrub(value: unknown, underSecretKey: boolean, byKey: boolean): unknown {
  if (typeof value === "string") return underSecretKey ? REDACTED : scrubString(value);
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => scrub(v, underSecretKey, byKey));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = scrub(v, underSecretKey || (byKey && isSecretKey(k)), byKey);
  }
  return out;
}
