/**
 * A policy behind any OpenAI-compatible chat-completions endpoint (vLLM, train-mcp serve, a
 * hosted model), through the `openai` client. The same rollout code drives it; tool calls come
 * back structured (or as Hermes text, which the tool environment parses). Token ids are not
 * recorded: such rollouts train a remote learner, or are evaluated, not trained in-process.
 */
import OpenAI from "openai";
import type { Policy, PolicyConversation, PolicyTurn, TurnOptions } from "./policy.js";

export interface RemotePolicyOptions {
  baseURL: string;
  model: string;
  /** passed in by the caller (resolved once from flags/env); never logged */
  apiKey?: string;
  timeoutMs?: number;
  maxRetries?: number;
}

export class RemotePolicy implements Policy {
  readonly kind = "remote" as const;
  private readonly client: OpenAI;
  constructor(private readonly options: RemotePolicyOptions) {
    this.client = new OpenAI({
      baseURL: options.baseURL,
      apiKey: options.apiKey ?? "not-needed",
      timeout: options.timeoutMs ?? 120_000,
      maxRetries: options.maxRetries ?? 2,
    });
  }

  async turn(conversations: PolicyConversation[], opts: TurnOptions): Promise<PolicyTurn[]> {
    return Promise.all(
      conversations.map(async (c, i): Promise<PolicyTurn> => {
        const reply = await this.client.chat.completions.create({
          model: this.options.model,
          messages: c.messages as OpenAI.Chat.ChatCompletionMessageParam[],
          tools: c.tools.length ? c.tools : undefined,
          max_tokens: opts.maxTokens,
          temperature: opts.temperature,
          top_p: opts.topP,
          seed: opts.seed + i,
          // the sampler's log-probs, for a remote learner's importance ratio
          logprobs: true,
        });
        const choice = reply.choices[0];
        if (!choice) throw new Error(`${this.options.baseURL}: reply has no choices`);
        const toolCalls = (choice.message.tool_calls ?? []).flatMap((t) =>
          t.type === "function" ? [{ name: t.function.name, arguments: t.function.arguments }] : [],
        );
        const logprobs = choice.logprobs?.content?.map((t) => t.logprob);
        return {
          text: choice.message.content ?? "",
          finish: choice.finish_reason === "length" ? "length" : "stop",
          toolCalls: toolCalls.length ? toolCalls : undefined,
          logprobs: logprobs?.length ? logprobs : undefined,
        };
      }),
    );
  }
}
