/**
 * The token record of one conversation as a local policy saw it: ids, which ids the policy
 * sampled (mask 1) and their sampler log-probs. Turn by turn, the ledger appends only what is
 * new — the exact sampled ids, and the template's text for the messages that came after them —
 * so training scores the very tokens that were sampled, never a re-tokenization of them.
 *
 * The new text is found by rendering the chat template with the new messages and the generation
 * prompt, and taking what follows the end-of-turn token that closed the sampled turn. When a
 * template gives no such token, `appendMessages` throws and the rollout records the failure.
 */
import type { OpenAiTool } from "../mcp/types.js";
import type { ChatMessage } from "./trajectory.js";

/** The tokenizer side a ledger needs (ChatTokenizer in src/policy satisfies it). */
export interface ChatCodec {
  renderChat(messages: readonly ChatMessage[], opts: { tools?: OpenAiTool[]; addGenerationPrompt: boolean }): string;
  /** `continuation`: text that follows other ids (never gets a BOS, even with add_bos_token) */
  encode(text: string, opts?: { continuation?: boolean }): number[];
  decode(ids: readonly number[], opts?: { skipSpecial?: boolean }): string;
}

export class TokenLedger {
  readonly ids: number[] = [];
  readonly mask: number[] = [];
  readonly logprobs: number[] = [];
  /** how many messages the ids cover */
  private messagesCovered = 0;
  /** text of the end-of-turn token the last sampled turn ended with (e.g. "<|im_end|>") */
  private lastEndText: string | null = null;

  get length(): number {
    return this.ids.length;
  }

  /** Tokens the policy did not sample (prompt, tool results): mask 0. */
  appendContext(ids: readonly number[]): void {
    for (const id of ids) {
      this.ids.push(id);
      this.mask.push(0);
      this.logprobs.push(0);
    }
  }

  /** Tokens the policy sampled, with their sampler log-probs: mask 1. `endText` is the text of
   *  the end-of-turn token when the turn ended with one. */
  appendSampled(ids: readonly number[], logprobs: readonly number[], endText: string | null = null): void {
    this.lastEndText = endText;
    if (ids.length !== logprobs.length) throw new Error(`appendSampled: ${ids.length} ids but ${logprobs.length} log-probs`);
    for (let i = 0; i < ids.length; i++) {
      this.ids.push(ids[i]);
      this.mask.push(1);
      this.logprobs.push(logprobs[i]);
    }
  }

  /**
   * Brings the ids up to date with `messages` (which must extend what is covered) and opens
   * the assistant's next turn. The first call renders the whole prompt.
   */
  appendMessages(codec: ChatCodec, messages: readonly ChatMessage[], tools: OpenAiTool[]): void {
    const opts = { tools: tools.length ? tools : undefined };
    if (this.messagesCovered === 0) {
      this.appendContext(codec.encode(codec.renderChat(messages, { ...opts, addGenerationPrompt: true })));
      this.messagesCovered = messages.length;
      return;
    }
    const covered = messages.slice(0, this.messagesCovered);
    if (covered[covered.length - 1]?.role !== "assistant") {
      throw new Error("token ledger: the covered conversation must end with the assistant's turn");
    }
    const end = this.lastEndText;
    if (!end) throw new Error("token ledger: the last sampled turn did not end with an end-of-turn token");
    // Templates may render the LAST assistant message differently from an earlier one (Qwen3
    // adds an empty think block to the last), so `before` need not be a prefix of `after`.
    // The end-of-turn tokens do line up: the n-th one in `after` closes the assistant turn
    // the policy just sampled, and everything after it is new.
    const before = codec.renderChat(covered, { ...opts, addGenerationPrompt: false });
    const after = codec.renderChat(messages, { ...opts, addGenerationPrompt: true });
    const n = countOccurrences(before, end);
    const cut = indexAfterOccurrence(after, end, n);
    if (n === 0 || cut < 0) {
      throw new Error(`chat template: cannot find the end of the assistant's turn ("${end}" #${n}) in the rendered conversation`);
    }
    this.appendContext(codec.encode(after.slice(cut), { continuation: true }));
    this.messagesCovered = messages.length;
  }

  /** Records that the assistant message just appended is covered by the sampled ids. */
  coverAssistant(messageCount: number): void {
    this.messagesCovered = messageCount;
  }

  toJSON(): { ids: number[]; mask: number[]; logprobs: number[] } {
    return { ids: [...this.ids], mask: [...this.mask], logprobs: [...this.logprobs] };
  }
}

function countOccurrences(text: string, needle: string): number {
  let n = 0;
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length)) n++;
  return n;
}

/** index just past the n-th (1-based) occurrence of needle, or -1 */
function indexAfterOccurrence(text: string, needle: string, n: number): number {
  let i = -1;
  for (let k = 0; k < n; k++) {
    i = text.indexOf(needle, i < 0 ? 0 : i + needle.length);
    if (i < 0) return -1;
  }
  return i + needle.length;
}
