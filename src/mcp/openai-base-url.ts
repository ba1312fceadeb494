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

/** An Azure OpenAI endpoint, by its host or by the api-version query only Azure asks for: its
 *  model names are deployment names, which GET /models does not list. */
export function isAzureEndpoint(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const u = new URL(url);
  return u.searchParams.has("api-version") || /\.(openai\.azure\.com|azure-api\.net|services\.ai\.azure\.com)$/i.test(u.hostname);
}

/** Whether a GET /models listing names `model`; Ollama lists "llama3:latest" and serves it as "llama3" too. */
export function listsModel(served: readonly string[], model: string): boolean {
  return served.some((id) => id === model || id === `${model}:latest`);
}
