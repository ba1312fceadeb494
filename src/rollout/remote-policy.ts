/**
 * A policy behind any OpenAI-compatible chat-completions endpoint (vLLM, train-mcp serve, a
 * hosted model), through the `openai` client. The same rollout code drives it; tool calls come
 * back structured (or as Hermes text, which the tool environment parses). Given the trainer's
 * tokenizer, a finished conversation is tokenized with its chat template (src/rollout/retokenize.ts)
 * so the in-process trainer can learn from rollouts sampled elsewhere; the model it asks for can be
 * switched to a freshly loaded LoRA adapter after each update.
 */
import OpenAI from "openai";
import type { OpenAiTool } from "../mcp/types.js";
import { redactUrlCredentials } from "../mcp/url-credentials.js";
import type { Policy, PolicyConversation, PolicyTurn, TurnOptions } from "./policy.js";
import { tokenizeConversation, type TokenRecord } from "./retokenize.js";
import type { ChatCodec } from "./token-ledger.js";
import type { ChatMessage } from "./trajectory.js";
import { openAiEndpoint } from "../mcp/openai-base-url.js";
import { contextRefusal } from "./context-refusal.js";
import { errorBodyFetch } from "./error-body-fetch.js";

export interface RemotePolicyOptions {
  baseURL: string;
  model: string;
  /** passed in by the caller (resolved once from flags/env); never logged */
  apiKey?: string;
  timeoutMs?: number;
  maxRetries?: number;
  /** the trainer's tokenizer and the texts of its end-of-turn tokens: rollouts get token records */
  trainer?: { codec: ChatCodec; endTexts: string[] };
}

/** The thought a reasoning parser split off: vLLM's `reasoning` (named `reasoning_content` before 0.11). */
export function reasoningOf(message: object): string | undefined {
  const m = message as { reasoning?: unknown; reasoning_content?: unknown };
  const r = typeof m.reasoning === "string" ? m.reasoning : typeof m.reasoning_content === "string" ? m.reasoning_content : "";
  return r.trim() === "" ? undefined : r.trim();
}

export class RemotePolicy implements Policy {
  readonly kind = "remote" as const;
  private readonly client: OpenAI;
  /** the model name requests use: the base model, or the adapter loaded last */
  model: string;
  private adapter?: string;
  readonly tokenize?: (messages: readonly ChatMessage[], tools: OpenAiTool[], opts: { truncated: boolean }) => TokenRecord;
  constructor(private readonly options: RemotePolicyOptions) {
    this.model = options.model;
    const trainer = options.trainer;
    if (trainer) this.tokenize = (messages, tools, opts) => tokenizeConversation(trainer.codec, messages, tools, trainer.endTexts, opts);
    this.client = new OpenAI({
      ...openAiEndpoint(options.baseURL),
      apiKey: options.apiKey ?? "not-needed",
      timeout: options.timeoutMs ?? 120_000,
      maxRetries: options.maxRetries ?? 2,
      fetch: errorBodyFetch,
    });
  }

  async turn(conversations: PolicyConversation[], opts: TurnOptions): Promise<PolicyTurn[]> {
    return Promise.all(
      // each request stands alone: one refused (a prompt over the context length) fails only its own rollout
      conversations.map((c, i): Promise<PolicyTurn> =>
        this.turnOne(c, opts, i).catch((e: unknown) => ({ text: "", finish: "stop" as const, error: (e as Error).message })),
      ),
    );
  }

  private async turnOne(c: PolicyConversation, opts: TurnOptions, i: number): Promise<PolicyTurn> {
    const ask = (maxTokens: number) =>
      this.client.chat.completions.create({
        model: this.model,
        // (raw_content is the trajectory's record of a malformed turn, no field of the chat API)
        messages: c.messages.map(({ raw_content: _raw, ...m }) => m) as OpenAI.Chat.ChatCompletionMessageParam[],
        tools: c.tools.length ? c.tools : undefined,
        max_tokens: maxTokens,
        temperature: opts.temperature,
        top_p: opts.topP,
        seed: opts.seed + i,
        // the sampler's log-probs, for a remote learner's importance ratio
        logprobs: true,
      });
    const asked = Math.min(opts.maxTokens, c.maxTokens ?? Number.POSITIVE_INFINITY);
    let reply: OpenAI.Chat.ChatCompletion;
    try {
      reply = await ask(asked);
    } catch (e) {
      // vLLM refuses prompt + max_tokens over the context, where a local policy takes the room
      // that is left: ask again for that room, or end the rollout truncated when there is none
      const refusal = e instanceof OpenAI.BadRequestError ? contextRefusal(e.message) : undefined;
      if (!refusal) throw e;
      const room = refusal.context - refusal.prompt;
      if (room >= asked) throw e;
      if (room <= 0) return { text: "", finish: "length", tokens: 0 };
      reply = await ask(room);
    }
    const choice = reply.choices[0];
    if (!choice) throw new Error(`${redactUrlCredentials(this.options.baseURL)}: reply has no choices`);
    const toolCalls = (choice.message.tool_calls ?? []).flatMap((t) =>
      t.type === "function" ? [{ name: t.function.name, arguments: t.function.arguments }] : [],
    );
    const logprobs = choice.logprobs?.content?.map((t) => t.logprob);
    const content = choice.message.content ?? "";
    const thought = reasoningOf(choice.message);
    // a thought cut off by max_tokens was never closed
    const cut = choice.finish_reason === "length" && content === "" && toolCalls.length === 0;
    return {
      // a server with a reasoning parser returns the thought apart: put it back where the model
      // wrote it, so the trainer scores what was generated (Qwen3's layout)
      text: thought ? (cut ? `<think>\n${thought}` : `<think>\n${thought}\n</think>\n\n${content}`) : content,
      finish: choice.finish_reason === "length" ? "length" : "stop",
      toolCalls: toolCalls.length ? toolCalls : undefined,
      logprobs: logprobs?.length ? logprobs : undefined,
      tokens: reply.usage?.completion_tokens ?? logprobs?.length,
    };
  }

  /** a one-token chat completion: the endpoint takes the key and plays the model */
  async ping(): Promise<void> {
    await this.client.chat.completions.create({ model: this.model, messages: [{ role: "user", content: "Reply with OK." }], max_tokens: 1 });
  }

  /** the ids GET /models lists */
  /** the served models with vLLM's `root` (the weights' folder or hub id) where the server says it */
  async listModelEntries(): Promise<Array<{ id: string; root?: string }>> {
    const page = await this.client.models.list();
    return page.data.map((m) => {
      const root = (m as unknown as { root?: unknown }).root;
      return { id: m.id, ...(typeof root === "string" ? { root } : {}) };
    });
  }

  /**
   * Serves a PEFT adapter folder under `name` (vLLM's and train-mcp serve's
   * POST /v1/load_lora_adapter; the path must be readable by the server) and asks for it from now
   * on; the adapter asked for before is unloaded.
   */
  async useAdapter(name: string, dir: string): Promise<void> {
    const previous = this.adapter;
    await this.post("load_lora_adapter", { lora_name: name, lora_path: dir }).catch((e: unknown) => {
      // a retried load whose first try got through before the connection broke: the name is this push's own
      if (!(e instanceof OpenAI.BadRequestError && /already loaded/.test(e.message))) throw e;
    });
    this.model = this.adapter = name;
    if (previous) await this.post("unload_lora_adapter", { lora_name: previous }).catch(() => undefined);
  }

  /** Unloads every adapter the server lists whose name starts with `prefix`, except the one in
   *  use; a server that refuses is left as it is (this is tidying, not training). */
  async unloadOthers(prefix: string): Promise<void> {
    const page = await this.client.models.list().catch(() => null);
    for (const m of page?.data ?? []) {
      if (m.id.startsWith(prefix) && m.id !== this.model) await this.post("unload_lora_adapter", { lora_name: m.id }).catch(() => undefined);
    }
  }

  /** POSTs to the server's LoRA routes through the `openai` client: its retries cover a
   *  connection the server closed while idle (keep-alive timeouts during a long update). */
  private async post(route: string, body: Record<string, unknown>): Promise<void> {
    await this.client.post(`/${route}`, { body, headers: { accept: "application/json, text/plain" } });
  }
}
