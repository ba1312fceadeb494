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
    // a conversation already at its context limit gets an empty, truncated turn
    const live = conversations.map((c, i) => ({ c, i })).filter(({ c }) => c.ledger.length < maxContext);
    const turns: PolicyTurn[] = conversations.map(() => ({ text: "", finish: "length" }));
    if (live.length === 0) return turns;
    const results = await this.sampler().generate(
      live.map(({ c }) => [...c.ledger.ids]),
      {
        maxTokens: Math.max(1, Math.min(opts.maxTokens, ...live.map(({ c }) => maxContext - c.ledger.length))),
        temperature: opts.temperature,
        topP: opts.topP,
        topK: opts.topK,
        stop: [],
        seed: opts.seed,
      },
    );
    results.forEach((r, k) => {
      const { c, i } = live[k];
      const endText = r.finish === "eos" ? codec.decode(r.ids.slice(-1)) : null;
      c.ledger.appendSampled(r.ids, r.logprobs, endText);
      const ids = r.finish === "eos" ? r.ids.slice(0, -1) : r.ids;
      turns[i] = { text: codec.decode(ids, { skipSpecial: false }), finish: r.finish === "length" ? "length" : "stop" };
    });
    return turns;
  }
}
