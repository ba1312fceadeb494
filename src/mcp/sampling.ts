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
import { clientModel, requestError, type ClientModel, type SamplingEndpoint } from "./client-model.js";
import { scrubKey } from "./command-credentials.js";
import { mediaPlaceholder } from "./normalize.js";

export type { SamplingEndpoint } from "./client-model.js";

export type SamplingHandler = (params: CreateMessageRequest["params"], signal?: AbortSignal) => Promise<CreateMessageResult>;

type Block = { type: string; text?: string; data?: string; mimeType?: string };

export function samplingHandler(endpoint: SamplingEndpoint | ClientModel): SamplingHandler {
  const model = "complete" in endpoint ? endpoint : clientModel(endpoint);
  const { model: name, maxTokens: cap = 1024, apiKey } = model.endpoint;
  return async (params, signal) => {
    if (params.tools?.length) throw requestError(ErrorCode.InvalidParams, "train-mcp does not support tool use in sampling requests (sampling.tools is not declared)");
    const messages: OpenAI.ChatCompletionMessageParam[] = [];
    if (params.systemPrompt) messages.push({ role: "system", content: params.systemPrompt });
    for (const m of params.messages) {
      const blocks = (Array.isArray(m.content) ? m.content : [m.content]) as Block[];
      messages.push({ role: m.role, content: blocks.map(blockText).join("\n") });
    }
    let completion: OpenAI.ChatCompletion;
    try {
      completion = await model.complete(
        {
          messages,
          max_tokens: Math.max(1, Math.min(params.maxTokens, cap)),
          ...(params.temperature !== undefined ? { temperature: params.temperature } : {}),
          ...(params.stopSequences?.length ? { stop: params.stopSequences.slice(0, 4) } : {}),
        },
        signal,
      );
    } catch (e) {
      const text = e instanceof Error ? e.message : String(e);
      throw requestError(ErrorCode.InternalError, `the client's sampling model (${name}) failed: ${scrubKey(text, apiKey)}`);
    }
    const choice = completion.choices?.[0];
    if (!choice) throw requestError(ErrorCode.InternalError, `the client's sampling model (${name}) returned no completion`);
    return {
      role: "assistant",
      content: { type: "text", text: choice.message?.content ?? "" },
      model: completion.model || name,
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
