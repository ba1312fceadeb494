/**
 * The token record of a conversation another process played (a remote policy): the trainer's
 * own chat template renders it turn by turn, and each assistant message becomes the tokens
 * this model writes for it — its text and tool calls in the template's format, then the
 * end-of-turn token — with mask 1. The remote sampler's own ids are not available (an
 * OpenAI-compatible reply carries text), so training scores this canonical tokenization, as
 * ART and TRL's server mode do. Sampler log-probs are 0: the trainer's ratio is taken against
 * its own log-probs.
 */
import type { OpenAiTool } from "../mcp/types.js";
import { TokenLedger, type ChatCodec } from "./token-ledger.js";
import type { ChatMessage } from "./trajectory.js";

export interface TokenRecord {
  ids: number[];
  mask: number[];
  logprobs: number[];
}

/**
 * `endTexts`: the texts of the tokens that can close an assistant turn (the tokenizer's eos
 * tokens); the first one found after the assistant's text is used. `truncated`: the last turn
 * hit its token limit, so it gets no end token (the model did not choose to stop there). Throws
 * when the template does not render the conversation as prefix + assistant turn + end token.
 */
export function tokenizeConversation(
  codec: ChatCodec,
  messages: readonly ChatMessage[],
  tools: OpenAiTool[],
  endTexts: readonly string[],
  { truncated = false }: { truncated?: boolean } = {},
): TokenRecord {
  const last = messages.map((m) => m.role).lastIndexOf("assistant");
  const ledger = new TokenLedger();
  const render = { tools: tools.length ? tools : undefined };
  messages.forEach((m, i) => {
    if (m.role !== "assistant") return;
    const before = messages.slice(0, i);
    ledger.appendMessages(codec, before, tools); // context up to this turn's generation prompt
    const prompt = codec.renderChat(before, { ...render, addGenerationPrompt: true });
    const full = codec.renderChat(messages.slice(0, i + 1), { ...render, addGenerationPrompt: false });
    if (!full.startsWith(prompt)) throw new Error(`chat template: assistant message ${i} does not extend the rendered prompt`);
    const turn = full.slice(prompt.length);
    const ends = endTexts.map((e) => ({ e, at: turn.indexOf(e) })).filter((x) => x.at >= 0);
    if (ends.length === 0) throw new Error(`chat template: assistant message ${i} renders without an end-of-turn token (${endTexts.join(", ")})`);
    const end = ends.reduce((a, b) => (b.at < a.at ? b : a));
    const cutOff = truncated && i === last;
    const ids = codec.encode(turn.slice(0, cutOff ? end.at : end.at + end.e.length), { continuation: true });
    ledger.appendSampled(ids, ids.map(() => 0), end.e);
    ledger.coverAssistant(i + 1);
  });
  return ledger.toJSON();
}
