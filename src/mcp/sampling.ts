/**
 * MCP sampling (`sampling/createMessage`): a server's tool asks the client's model for a
 * completion in the middle of a call (summarize this, classify that). Servers that need it often
 * list such tools only to clients that declare the capability. train-mcp declares it only when
 * the user names a model to answer with (`--sampling-base-url`, `--sampling-model`: any
 * OpenAI-compatible endpoint), and answers from that model, never from the policy being
 * trained: the policy's rollouts are its training data, and text a server asked for is not the
 * policy's doing.
 *
 * A server is untrusted: it cannot choose the model (`modelPreferences` is a hint this client
 * may ignore, and does), cannot ask for more than `maxTokens` tokens (the request's, capped),
 * cannot see the conversation (`includeContext` is answered as "none"), and an endpoint failure
 * reaches it as an error, with the key blanked. Text is sent as text; images and audio as a
 * short placeholder; tool use inside sampling is refused (the capability is not declared).
 */
import type { CreateMessageRequest, CreateMessageResult } from "@modelcontextprotocol/sdk/types.js";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import type OpenAI from "openai";
import { scrubKey } from "./command-credentials.js";
import { mediaPlaceholder } from "./normalize.js";
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

export type SamplingHandler = (params: CreateMessageRequest["params"], signal?: AbortSignal) => Promise<CreateMessageResult>;

type Block = { type: string; text?: string; data?: string; mimeType?: string };

export function samplingHandler(endpoint: SamplingEndpoint): SamplingHandler {
  // the client library loads on the first request: every command that connects builds options
  let client: OpenAI | undefined;
  const openClient = async (): Promise<OpenAI> => {
    const { default: OpenAIClient } = await import("openai");
    return (client ??= new OpenAIClient({
      apiKey: endpoint.apiKey && endpoint.apiKey.length > 0 ? endpoint.apiKey : "EMPTY",
      baseURL: endpoint.baseUrl,
      timeout: endpoint.timeoutMs ?? 60_000,
      maxRetries: 0,
      logLevel: "off",
      organization: null,
      project: null,
    }));
  };
  const cap = endpoint.maxTokens ?? 1024;
  // a run's many rollouts may all reach a sampling tool at once: the endpoint sees a few at a time
  const slots = new Semaphore(endpoint.maxConcurrent ?? 8);
  return async (params, signal) => {
    if (params.tools?.length) throw requestError(ErrorCode.InvalidParams, "train-mcp does not support tool use in sampling requests (sampling.tools is not declared)");
    const messages: OpenAI.ChatCompletionMessageParam[] = [];
    if (params.systemPrompt) messages.push({ role: "system", content: params.systemPrompt });
    for (const m of params.messages) {
      const blocks = (Array.isArray(m.content) ? m.content : [m.content]) as Block[];
      messages.push({ role: m.role, content: blocks.map(blockText).join("\n") });
    }
    let completion: OpenAI.ChatCompletion;
    const release = await slots.acquire(signal);
    try {
      completion = await (await openClient()).chat.completions.create(
        {
          model: endpoint.model,
          messages,
          max_tokens: Math.max(1, Math.min(params.maxTokens, cap)),
          ...(params.temperature !== undefined ? { temperature: params.temperature } : {}),
          ...(params.stopSequences?.length ? { stop: params.stopSequences.slice(0, 4) } : {}),
        },
        { signal },
      );
    } catch (e) {
      const text = e instanceof Error ? e.message : String(e);
      throw requestError(ErrorCode.InternalError, `the client's sampling model (${endpoint.model}) failed: ${scrubKey(text, endpoint.apiKey)}`);
    } finally {
      release();
    }
    const choice = completion.choices?.[0];
    if (!choice) throw requestError(ErrorCode.InternalError, `the client's sampling model (${endpoint.model}) returned no completion`);
    return {
      role: "assistant",
      content: { type: "text", text: choice.message?.content ?? "" },
      model: completion.model || endpoint.model,
      stopReason: choice.finish_reason === "length" ? "maxTokens" : choice.finish_reason === "stop" ? "endTurn" : (choice.finish_reason ?? "endTurn"),
    };
  };
}

function blockText(b: Block): string {
  if (b.type === "text") return b.text ?? "";
  if (b.type === "image" || b.type === "audio") return mediaPlaceholder(b.type, b.mimeType, b.data);
  if (b.type === "tool_use" || b.type === "tool_result")
    throw requestError(ErrorCode.InvalidParams, "train-mcp does not support tool use in sampling requests (sampling.tools is not declared)");
  return `[${b.type} content]`;
}

/** An error the SDK answers the server with as {code, message}: an McpError would carry its
 *  "MCP error -32603: " prefix into the message, and the server's own McpError adds another. */
function requestError(code: ErrorCode, message: string): Error {
  return Object.assign(new Error(message), { code });
}
