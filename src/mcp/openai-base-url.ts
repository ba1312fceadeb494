/**
 * An OpenAI-compatible base URL as the `openai` client must be given it. The client appends
 * `/chat/completions` to the URL's text, so a query (Azure's `?api-version=…`, a gateway's
 * `?key=…`) would end up before the path; it goes in `defaultQuery` instead, sent with every
 * request. Credentials in the URL (`user:pass@`) cannot be sent by fetch at all: they become a
 * Basic Authorization header, which the user wrote for this endpoint, so it wins over an API key
 * (often $OPENAI_API_KEY, set for another one).
 */

export interface OpenAiEndpoint {
  baseURL: string;
  defaultQuery?: Record<string, string>;
  defaultHeaders?: Record<string, string>;
}

export function openAiEndpoint(url: string): OpenAiEndpoint {
  if (!URL.canParse(url)) return { baseURL: url }; // the client's own error names it
  const u = new URL(url);
  const out: OpenAiEndpoint = { baseURL: url };
  if (u.search) {
    out.defaultQuery = Object.fromEntries(u.searchParams);
    u.search = "";
  }
  if (u.username || u.password) {
    out.defaultHeaders = { Authorization: `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString("base64")}` };
    u.username = "";
    u.password = "";
  }
  if (out.defaultQuery || out.defaultHeaders) out.baseURL = u.toString().replace(/\/$/, "");
  return out;
}
