/**
 * The client's model: an OpenAI-compatible endpoint the user names to answer what a server asks
 * of the client mid-call — sampling requests (sampling.ts) and, in `model` mode, elicitation
 * forms (elicitation.ts). One HTTP client per endpoint, loaded on the first request (every
 * command that connects builds its options; few ever get such a request), with a limit on the
 * requests in flight from every server instance together.
 */
import type OpenAI from "openai";
import { openAiEndpoint } from "./openai-base-url.js";
import { Semaphore } from "./semaphore.js";

export interface SamplingEndpoint {
  /** OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** most tokens one request may get, whatever the server asks; default 1024 */
  maxTokens?: number;
  /** per request; default 60 000 ms */
  timeoutMs?: number;
  /** requests in flight at once, from every server instance together; default 8 */
  maxConcurrent?: number;
}

export interface ClientModel {
  endpoint: SamplingEndpoint;
  /** one chat completion, waiting for a free slot first */
  complete(body: Omit<OpenAI.ChatCompletionCreateParamsNonStreaming, "model">, signal?: AbortSignal): Promise<OpenAI.ChatCompletion>;
}

export function clientModel(endpoint: SamplingEndpoint): ClientModel {
  let client: OpenAI | undefined;
  const openClient = async (): Promise<OpenAI> => {
    const { default: OpenAIClient } = await import("openai");
    return (client ??= new OpenAIClient({
      apiKey: endpoint.apiKey && endpoint.apiKey.length > 0 ? endpoint.apiKey : "EMPTY",
      ...openAiEndpoint(endpoint.baseUrl),
      timeout: endpoint.timeoutMs ?? 60_000,
      maxRetries: 0,
      logLevel: "off",
      organization: null,
      project: null,
    }));
  };
  // a run's many rollouts may all reach such a tool at once: the endpoint sees a few at a time
  const slots = new Semaphore(endpoint.maxConcurrent ?? 8);
  return {
    endpoint,
    async complete(body, signal) {
      const release = await slots.acquire(signal);
      try {
        return await (await openClient()).chat.completions.create({ ...body, model: endpoint.model }, { signal });
      } finally {
        release();
      }
    },
  };
}

/** An error the SDK answers the server with as {code, message}: an McpError would carry its
 *  "MCP error -32603: " prefix into the message, and the server's own McpError adds another. */
export function requestError(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
}
