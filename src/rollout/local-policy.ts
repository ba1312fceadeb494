/**
 * A policy that runs in this process: a chat tokenizer plus a token sampler (tfjs or
 * onnxruntime). It renders each conversation through the chat template into its ledger,
 * samples every conversation's next turn in ONE batched call, and records the sampled ids and
 * log-probs — the tokens training will score.
 */
import type { Sampler } from "../policy/sampler.js";
import type { Policy, PolicyConversation, PolicyTurn, TurnOptions } from "./policy.js";
import type { ChatCodec } from "./token-ledger.js";

export interface LocalPolicyOptions {
  codec: ChatCodec;
  /** a function so the training loop can swap in a sampler with fresh weights */
  sampler: Sampler | (() => Sampler);
  /** conversations longer than this many tokens are not extended (the rollout ends truncated) */
  maxContextTokens?: number;
  /**
   * The text the chat template closes an assistant turn with (ChatTokenizer.turnEndId): a turn
   * that stopped on another end-of-generation token (a Qwen model's <|endoftext|> where the
   * template writes <|im_end|>) is found in the next rendering by this one. Default: the text of
   * the token the turn stopped on.
   */
  turnEndText?: string;
}

export class LocalPolicy implements Policy {
  readonly kind = "local" as const;
  constructor(private readonly options: LocalPolicyOptions) {}

  private sampler(): Sampler {
    const s = this.options.sampler;
    return typeof s === "function" ? s() : s;
  }

  async turn(conversations: PolicyConversation[], opts: TurnOptions): Promise<PolicyTurn[]> {
    const { codec } = this.options;
    for (const c of conversations) c.ledger.appendMessages(codec, c.messages, c.tools);
    const maxContext = this.options.maxContextTokens ?? Number.POSITIVE_INFINITY;
    // each conversation's own cap: the turn's, its rollout's completion budget, its context room
    const caps = conversations.map((c) => Math.min(opts.maxTokens, c.maxTokens ?? Number.POSITIVE_INFINITY, maxContext - c.ledger.length));
    // a conversation with no room left gets an empty, truncated turn
    const live = conversations.map((c, i) => ({ c, i, cap: caps[i] })).filter(({ cap }) => cap >= 1);
    const turns: PolicyTurn[] = conversations.map(() => ({ text: "", finish: "length", tokens: 0 }));
    if (live.length === 0) return turns;
    // one batch runs to the largest cap; each row is then cut at its own. Every row draws from
    // its own random stream, so a cut row holds exactly what a call with its cap would have drawn.
    const results = await this.sampler().generate(
      live.map(({ c }) => [...c.ledger.ids]),
      { maxTokens: Math.max(...live.map(({ cap }) => cap)), temperature: opts.temperature, topP: opts.topP, topK: opts.topK, stop: [], seed: opts.seed },
    );
    results.forEach((full, k) => {
      const { c, i, cap } = live[k];
      const r = full.ids.length > cap ? { ids: full.ids.slice(0, cap), logprobs: full.logprobs.slice(0, cap), finish: "length" as const } : full;
      const endText = r.finish === "eos" ? (this.options.turnEndText ?? codec.decode(r.ids.slice(-1))) : null;
      c.ledger.appendSampled(r.ids, r.logprobs, endText);
      const ids = r.finish === "eos" ? r.ids.slice(0, -1) : r.ids;
      turns[i] = { text: codec.decode(ids, { skipSpecial: false }), finish: r.finish === "length" ? "length" : "stop", tokens: r.ids.length };
    });
    return turns;
  }
}
