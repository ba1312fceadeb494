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
 * reaches it as an error, with the key blanked. Text is sent as text; a user turn's images
 * (PNG, JPEG, GIF, WebP) as `image_url` parts with a data: URL and its WAV and MP3 audio as
 * `input_audio` parts, as the OpenAI chat API takes them; what that API cannot take (another
 * type, media in an assistant turn) goes as a short placeholder. An endpoint that refuses media
 * (a text-only model answers 400) gets the request again with placeholders, and from then on
 * only those. Tool use inside sampling is refused (the capability is not declared).
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
  // set once the endpoint has refused a request for its media: later ones go as text at once
  let textOnly = false;
  return async (params, signal) => {
    if (params.tools?.length) throw requestError(ErrorCode.InvalidParams, "train-mcp does not support tool use in sampling requests (sampling.tools is not declared)");
    const body = (messages: OpenAI.ChatCompletionMessageParam[]) => ({
      messages,
      max_tokens: Math.max(1, Math.min(params.maxTokens, cap)),
      ...(params.temperature !== undefined ? { temperature: params.temperature } : {}),
      ...(params.stopSequences?.length ? { stop: params.stopSequences.slice(0, 4) } : {}),
    });
    const rich = chatMessages(params, !textOnly);
    const sendsMedia = rich.some((m) => Array.isArray(m.content)); // a turn of text alone is a string
    let completion: OpenAI.ChatCompletion;
    try {
      try {
        completion = await model.complete(body(rich), signal);
      } catch (e) {
        if (!sendsMedia || !refusedMedia(e)) throw e;
        completion = await model.complete(body(chatMessages(params, false)), signal);
        textOnly = true; // only once text alone got through: the 400 was about the media
      }
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

/** The request as chat messages: media as content parts where `media` allows and the API takes
 *  them (user turns), placeholders elsewhere; a turn of text alone stays one string. */
function chatMessages(params: CreateMessageRequest["params"], media: boolean): OpenAI.ChatCompletionMessageParam[] {
  const messages: OpenAI.ChatCompletionMessageParam[] = [];
  if (params.systemPrompt) messages.push({ role: "system", content: params.systemPrompt });
  for (const m of params.messages) {
    const blocks = (Array.isArray(m.content) ? m.content : [m.content]) as Block[];
    const parts = blocks.map((b) => (media && m.role === "user" ? mediaPart(b) : undefined) ?? ({ type: "text", text: blockText(b) } as const));
    if (m.role === "assistant" || parts.every((p) => p.type === "text")) messages.push({ role: m.role, content: parts.map((p) => (p.type === "text" ? p.text : "")).join("\n") });
    else messages.push({ role: "user", content: mergeText(parts) });
  }
  return messages;
}

const IMAGE_TYPES = /^image\/(png|jpeg|jpg|gif|webp)$/i;
const AUDIO_FORMATS: Record<string, "wav" | "mp3"> = { "audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav", "audio/vnd.wave": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3" };

/** An image or audio block as the OpenAI chat API takes it, or undefined (a placeholder then). */
function mediaPart(b: Block): OpenAI.ChatCompletionContentPart | undefined {
  if (!b.data || !b.mimeType) return undefined;
  const mime = b.mimeType.split(";")[0].trim().toLowerCase();
  if (b.type === "image" && IMAGE_TYPES.test(mime)) return { type: "image_url", image_url: { url: `data:${mime};base64,${b.data}` } };
  const format = AUDIO_FORMATS[mime];
  if (b.type === "audio" && format) return { type: "input_audio", input_audio: { data: b.data, format } };
  return undefined;
}

/** Adjacent text parts joined by a newline, as a turn of text alone is. */
function mergeText(parts: OpenAI.ChatCompletionContentPart[]): OpenAI.ChatCompletionContentPart[] {
  const out: OpenAI.ChatCompletionContentPart[] = [];
  for (const p of parts) {
    const last = out.at(-1);
    if (p.type === "text" && last?.type === "text") out[out.length - 1] = { type: "text", text: `${last.text}\n${p.text}` };
    else out.push(p);
  }
  return out;
}

/** A 400/415/422 answer to a request with media: a text-only model (vLLM, llama.cpp) refusing it. */
function refusedMedia(e: unknown): boolean {
  const status = (e as { status?: unknown }).status;
  return status === 400 || status === 415 || status === 422;
}

function blockText(b: Block): string {
  if (b.type === "text") return b.text ?? "";
  if (b.type === "image" || b.type === "audio") return mediaPlaceholder(b.type, b.mimeType, b.data);
  if (b.type === "tool_use" || b.type === "tool_result")
    throw requestError(ErrorCode.InvalidParams, "train-mcp does not support tool use in sampling requests (sampling.tools is not declared)");
  return `[${b.type} content]`;
}
