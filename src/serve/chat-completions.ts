/**
 * POST /v1/chat/completions: from a validated request to OpenAI's `chat.completion` object, or to
 * a stream of `chat.completion.chunk` server-sent events ending with `data: [DONE]`. The prompt is
 * the conversation rendered through the model's chat template with the request's tools; each of
 * the n choices is one row of the serve loop (generate.ts) with its own random stream, batched by
 * the scheduler (queue.ts) with whatever else is waiting. Streaming sends content as it is decoded (holding back what could
 * still turn into a stop string or a `<tool_call>` tag) and tool calls as one delta at the end,
 * as vLLM's tool-call streaming does for parsers that cannot stream arguments; text after a call
 * goes out just before that delta (as the non-streamed message holds it, up to surrounding
 * whitespace). With a reasoning parser, text inside <think> blocks streams as `reasoning` deltas
 * (a <tool_call> tag written inside a thought is part of the thought and holds nothing back).
 */
import type * as http from "node:http";
import type { ChatMessage } from "../rollout/trajectory.js";
import type { OpenAiTool } from "../mcp/types.js";
import { THINK_CLOSE, THINK_OPEN, TOOL_CALL_CLOSE, TOOL_CALL_OPEN } from "../policy/tool-calls.js";
import { ApiError } from "./api-error.js";
import type { GenerateParams, GenerateResult } from "./generate.js";
import { JsonConstraint, type ConstraintFrame } from "./json-constraint.js";
import { ToolCallConstraint } from "./tool-call-constraint.js";
import type { ModelRegistry, ServedModel } from "./models.js";
import type { Scheduler } from "./queue.js";
import type { ChatCompletionRequest, RequestMessage } from "./request-schema.js";
import { beforeCutCall, buildMessage, byteLevelBytes, logprobEntries, newId, splitForParser, type ReasoningOptions, type TokenPiece } from "./response-builder.js";
import { ANY_OBJECT, SchemaError, type SchemaNode } from "./schema-node.js";
import { compileSchemaCached } from "./schema-cache.js";
import { writeSse } from "./sse.js";

export interface ChatContext {
  registry: ModelRegistry;
  scheduler: Scheduler;
  /** split <think> blocks into `reasoning` (vLLM's --reasoning-parser) */
  reasoningParser?: boolean;
}

interface Prepared {
  model: ServedModel;
  prompt: number[];
  n: number;
  parseTools: boolean;
  /** parallel_tool_calls: false keeps only the first call of a reply */
  maxToolCalls: number;
  schema: SchemaNode | null;
  /** text around the constrained document (a required tool call), or null */
  frame: ConstraintFrame | null;
  /** tool_choice auto: the call object a call is held to once opened (an offered name; a strict
   *  tool's arguments per its schema), or null */
  autoCalls: SchemaNode | null;
  /** the offered tools' names: a call to any other is not returned as a tool call */
  toolNames: ReadonlySet<string>;
  base: Omit<GenerateParams, "index" | "constraint" | "onToken" | "aborted">;
  includeUsage: boolean;
  reasoning: ReasoningOptions;
}

function textOf(content: RequestMessage["content"]): string {
  if (content == null) return "";
  return typeof content === "string" ? content : content.map((p) => p.text).join("");
}

function toChatMessages(messages: RequestMessage[]): ChatMessage[] {
  return messages.map((m): ChatMessage => {
    switch (m.role) {
      case "developer":
        return { role: "system", content: textOf(m.content) };
      case "assistant":
        return { role: "assistant", content: textOf(m.content), ...(m.tool_calls?.length ? { tool_calls: m.tool_calls } : {}) };
      case "tool":
        return { role: "tool", content: textOf(m.content), tool_call_id: m.tool_call_id };
      default:
        return { role: m.role, content: textOf(m.content) };
    }
  });
}

function responseSchema(req: ChatCompletionRequest): SchemaNode | null {
  const rf = req.response_format;
  if (!rf || rf.type === "text") return null;
  if (rf.type === "json_object") return ANY_OBJECT;
  const schema = rf.json_schema.schema;
  if (schema === undefined) return ANY_OBJECT;
  try {
    // as OpenAI reads it: `strict: true` promises the whole schema, so what constrained decoding
    // cannot enforce is refused; otherwise the schema is followed as far as the subset goes
    // (format, pattern… unenforced; oneOf as anyOf), as vLLM's guided decoding does
    return compileSchemaCached(schema, "response_format.json_schema.schema", { loose: rf.json_schema.strict !== true });
  } catch (e) {
    if (e instanceof SchemaError) throw new ApiError(400, e.message, "invalid_request_error", e.path);
    throw e;
  }
}

/** One call object `{"name": ..., "arguments": {...}}` to one of the tools (or the named one). Its
 *  arguments follow the tool's parameters, keywords outside the decoder's subset left unenforced;
 *  a tool without parameters takes none (as OpenAI reads it). Parameters the decoder cannot follow
 *  at all (allOf, not, recursive $refs) give any-object arguments, and so does every tool not
 *  marked `strict` when `strictOnly` (tool_choice auto). */
function toolCallNode(tools: NonNullable<ChatCompletionRequest["tools"]>, only: string | null, strictOnly = false): SchemaNode {
  const options = tools
    .filter((t) => only === null || t.function.name === only)
    .map((t, i): SchemaNode => {
      let args: SchemaNode = ANY_OBJECT;
      if (!strictOnly || t.function.strict === true) {
        try {
          args = compileSchemaCached(t.function.parameters ?? NO_PARAMETERS, `tools[${i}].function.parameters`, { loose: true });
        } catch (e) {
          if (!(e instanceof SchemaError)) throw e;
        }
      }
      const name: SchemaNode = { kind: "string", enum: [t.function.name], minLength: 0, maxLength: Infinity };
      return { kind: "object", props: new Map([["name", name], ["arguments", args]]), required: ["name", "arguments"], additional: null };
    });
  return options.length === 1 ? options[0] : { kind: "anyOf", options };
}

const NO_PARAMETERS = { type: "object", properties: {}, additionalProperties: false };

export function prepareChat(ctx: ChatContext, req: ChatCompletionRequest): Prepared {
  const model = ctx.registry.get(req.model);
  const tc = req.tool_choice ?? undefined;
  // tool_choice none: the tools stay in the prompt (as OpenAI and vLLM keep them), no call is read
  const toolsOffered = (req.tools?.length ?? 0) > 0;
  const toolsOn = toolsOffered && tc !== "none";
  let schema = responseSchema(req);
  let frame: ConstraintFrame | null = null;
  if (tc !== undefined && tc !== "auto" && tc !== "none") {
    // a call is required: decode exactly one Hermes call to an offered tool, arguments per its schema
    if (!toolsOn) throw new ApiError(400, `tool_choice: ${JSON.stringify(tc)} needs tools`, "invalid_request_error", "tool_choice");
    if (schema) throw new ApiError(400, "tool_choice: a required tool call and response_format json cannot be combined", "invalid_request_error", "tool_choice");
    const only = tc === "required" ? null : tc.function.name;
    if (only !== null && !req.tools!.some((t) => t.function.name === only)) throw new ApiError(400, `tool_choice.function.name: no tool named "${only}" in tools`, "invalid_request_error", "tool_choice.function.name");
    schema = toolCallNode(req.tools!, only);
    frame = { prefix: `${TOOL_CALL_OPEN}\n`, suffix: `\n${TOOL_CALL_CLOSE}` };
  }
  // tool_choice auto with strict tools: once the model opens a call, its name is held to the
  // offered tools and a strict tool's arguments to its schema; it may still answer in text.
  // Without strict tools the model writes as it will, as vLLM's auto tool choice lets it: a
  // --policy-url rollout must see the policy's own malformed or unknown calls (RL learns from
  // them), and its logprobs stay the model's. A call to a tool not offered is then returned as
  // text, never as a tool call (buildMessage).
  const autoCalls = toolsOn && schema === null && req.tools!.some((t) => t.function.strict === true) ? toolCallNode(req.tools!, null, true) : null;
  const tools: OpenAiTool[] | undefined = toolsOffered
    ? req.tools!.map((t) => ({ type: "function", function: { name: t.function.name, description: t.function.description ?? "", parameters: (t.function.parameters ?? { type: "object", properties: {} }) as OpenAiTool["function"]["parameters"] } }))
    : undefined;
  let prompt: number[];
  let opensThink = false;
  try {
    const kwargs = req.chat_template_kwargs ?? {};
    const enableThinking = typeof kwargs.enable_thinking === "boolean" ? kwargs.enable_thinking : undefined;
    const messages = toChatMessages(req.messages);
    prompt = ctx.registry.tokenizer.encodeChat(messages, { tools, addGenerationPrompt: true, enableThinking, extra: kwargs });
    // a template that opens the thought itself (DeepSeek-R1, Qwen3.5) leaves only </think> to the
    // reply: look for that in what the generation prompt adds, not in the conversation. A forced
    // call or JSON document is decoded from the first token, so it is never a thought
    if (ctx.reasoningParser && schema === null) {
      const bare = ctx.registry.tokenizer.encodeChat(messages, { tools, addGenerationPrompt: false, enableThinking, extra: kwargs });
      const same = bare.length <= prompt.length && bare.every((t, i) => t === prompt[i]);
      const added = ctx.registry.tokenizer.decode(prompt.slice(same ? bare.length : prompt.length), { skipSpecial: false });
      opensThink = added.lastIndexOf(THINK_OPEN) > added.lastIndexOf(THINK_CLOSE);
    }
  } catch (e) {
    throw new ApiError(400, `messages: the chat template failed: ${(e as Error).message}`, "invalid_request_error", "messages");
  }
  const ctxLen = ctx.registry.config.maxPositions;
  // OpenAI's wording, which clients (ours: rollout/context-refusal.ts) read the two numbers from
  if (prompt.length >= ctxLen)
    throw new ApiError(400, `This model's maximum context length is ${ctxLen} tokens. However, your messages resulted in ${prompt.length} tokens. Please reduce the length of the messages.`, "invalid_request_error", "messages", "context_length_exceeded");
  const room = ctxLen - prompt.length;
  const asked = req.max_completion_tokens ?? req.max_tokens ?? room;
  const stop = req.stop == null ? [] : typeof req.stop === "string" ? [req.stop] : req.stop;
  return {
    model,
    prompt,
    n: req.n ?? 1,
    parseTools: toolsOn && (schema === null || frame !== null),
    maxToolCalls: req.parallel_tool_calls === false ? 1 : Number.POSITIVE_INFINITY,
    schema,
    frame,
    autoCalls,
    toolNames: new Set((req.tools ?? []).map((t) => t.function.name)),
    includeUsage: req.stream_options?.include_usage === true,
    reasoning: { parse: ctx.reasoningParser === true, opensThink },
    base: {
      prompt,
      maxTokens: Math.min(asked, room),
      temperature: req.temperature ?? 1,
      topP: req.top_p ?? 1,
      topK: req.top_k != null && req.top_k > 0 ? req.top_k : 0,
      // any integer seed (OpenAI's are 64-bit): its low 32 bits seed the sampler
      seed: req.seed != null ? Number(BigInt.asUintN(32, BigInt(req.seed))) : Math.floor(Math.random() * 2 ** 31),
      stop,
      topLogprobs: req.logprobs ? (req.top_logprobs ?? 0) : null,
    },
  };
}

function tokenPiece(registry: ModelRegistry): TokenPiece {
  const tok = registry.tokenizer;
  return (id) => {
    const s = tok.idToToken(id);
    const bytes = s === undefined || tok.isSpecial(id) ? null : byteLevelBytes(s);
    if (bytes) return { token: Buffer.from(bytes).toString("utf8"), bytes };
    const token = s !== undefined && tok.isSpecial(id) ? s : tok.decode([id]);
    return { token, bytes: [...Buffer.from(token, "utf8")] };
  };
}

function runChoice(ctx: ChatContext, p: Prepared, index: number, extra: Partial<GenerateParams>): Promise<GenerateResult> {
  const reg = ctx.registry;
  const eos = reg.tokenizer.eosTokenIds.length ? reg.tokenizer.eosTokenIds : reg.config.eosTokenIds;
  const constraint = p.schema
    ? new JsonConstraint(p.schema, reg.texts(), eos, p.frame ?? undefined)
    : p.autoCalls
      ? new ToolCallConstraint(p.autoCalls, reg.texts(), eos, p.reasoning.parse && p.reasoning.opensThink)
      : undefined;
  // the engine is looked up when the batch forms: an adapter reloaded meanwhile serves the request
  return ctx.scheduler.generate(() => reg.get(p.model.name).engine, reg.tokenizer, { ...p.base, index, constraint, ...extra });
}

/** OpenAI's usage; `prompt_tokens_details.cached_tokens` where the engine caches prefixes. */
function usage(p: Prepared, completion: number, cached: number) {
  const promptTokens = p.prompt.length;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completion,
    total_tokens: promptTokens + completion,
    ...(p.model.engine.prefixCaching ? { prompt_tokens_details: { cached_tokens: cached } } : {}),
  };
}

/** The whole response at once; `aborted` (the client went away) stops the work early. */
export async function completeChat(ctx: ChatContext, p: Prepared, aborted: () => boolean = () => false): Promise<object> {
  const results = await Promise.all(Array.from({ length: p.n }, (_, i) => runChoice(ctx, p, i, { aborted })));
  const piece = tokenPiece(ctx.registry);
  return {
    id: newId("chatcmpl-"),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: p.model.name,
    system_fingerprint: `train-mcp-${p.model.engine.kind}`,
    choices: results.map((r, index) => {
      const { message, finishReason } = buildMessage(r.text, r.finish, p.parseTools, p.maxToolCalls, p.reasoning, p.toolNames);
      return { index, message, logprobs: r.logprobs ? { content: logprobEntries(r.logprobs, piece) } : null, finish_reason: finishReason };
    }),
    usage: usage(
      p,
      results.reduce((s, r) => s + r.ids.length, 0),
      Math.max(...results.map((r) => r.cachedTokens)),
    ),
  };
}

/** Text that may be sent now: not a possible start of a stop string, a tool-call tag or one of
 *  `tags` (<think> and </think> with a reasoning parser). */
export function releasable(text: string, stops: string[], parseTools: boolean, tags: readonly string[] = []): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === "\uFFFD") end--; // a character still being assembled
  // a stop string already complete: generation ends there, and the stop is never sent
  for (const s of stops) {
    const at = text.indexOf(s);
    if (at >= 0) end = Math.min(end, at);
  }
  const guards = [...stops, ...(parseTools ? [TOOL_CALL_OPEN] : []), ...tags];
  if (parseTools) {
    const at = text.indexOf(TOOL_CALL_OPEN);
    if (at >= 0) end = Math.min(end, at);
  }
  for (const g of guards) {
    for (let k = Math.min(g.length - 1, end); k > 0; k--) {
      if (text.slice(end - k, end) === g.slice(0, k)) {
        end -= k;
        break;
      }
    }
  }
  return text.slice(0, end);
}

/** Server-sent events: one chunk per token with new content (and its logprobs), then the end. */
export async function streamChat(ctx: ChatContext, p: Prepared, res: http.ServerResponse): Promise<void> {
  const id = newId("chatcmpl-");
  const created = Math.floor(Date.now() / 1000);
  const piece = tokenPiece(ctx.registry);
  const chunk = (choices: object[], extra: object = {}) => ({ id, object: "chat.completion.chunk", created, model: p.model.name, system_fingerprint: `train-mcp-${p.model.engine.kind}`, choices, ...extra });
  let closed = false;
  res.on("close", () => (closed = true));
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  let completion = 0;
  let cached = 0;
  const decode = (ids: readonly number[]) => ctx.registry.tokenizer.decode(ids, { skipSpecial: true });
  for (let index = 0; index < p.n; index++) writeSse(res, chunk([{ index, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }]));
  // the n choices run as rows of one batch; each streams its own deltas
  const tags = p.reasoning.parse ? [THINK_OPEN, THINK_CLOSE] : [];
  await Promise.all(
    Array.from({ length: p.n }, async (_, index) => {
      // what went out so far: the content, and with a reasoning parser the thought apart
      let sent = "";
      let thought = "";
      const send = (text: string, lp: object | null, final = false) => {
        const parts = p.reasoning.parse ? splitForParser(text, p.reasoning) : { reasoning: "", content: text };
        // with the parser, only a call outside the thought holds the content back
        if (p.reasoning.parse && p.parseTools && !final) parts.content = releasable(parts.content, [], true);
        const dr = parts.reasoning.startsWith(thought) ? parts.reasoning.slice(thought.length) : "";
        const dc = parts.content.startsWith(sent) ? parts.content.slice(sent.length) : "";
        thought += dr;
        sent += dc;
        if (!dr && !dc && !lp) return;
        const delta = dr && !dc ? { reasoning: dr } : dr ? { reasoning: dr, content: dc } : { content: dc };
        writeSse(res, chunk([{ index, delta, logprobs: lp, finish_reason: null }]));
      };
      const r = await runChoice(ctx, p, index, {
        aborted: () => closed,
        onToken: (ids, lp) => send(releasable(decode(ids), p.base.stop, p.parseTools && !p.reasoning.parse, tags), lp ? { content: logprobEntries([lp], piece) } : null),
      });
      completion += r.ids.length;
      cached = Math.max(cached, r.cachedTokens);
      if (closed) return;
      const { message, finishReason } = buildMessage(r.text, r.finish, p.parseTools, p.maxToolCalls, p.reasoning, p.toolNames);
      if (message.tool_calls) {
        // from the first call on everything was held back: the rest of the thought, then the text
        // the reply holds besides its calls
        const whole = p.reasoning.parse ? splitForParser(r.text, p.reasoning).reasoning : "";
        if (whole.length > thought.length && whole.startsWith(thought))
          writeSse(res, chunk([{ index, delta: { reasoning: whole.slice(thought.length) }, logprobs: null, finish_reason: null }]));
        const rest = message.content ?? "";
        const head = sent.trimStart();
        if (rest.length > head.length && rest.startsWith(head))
          writeSse(res, chunk([{ index, delta: { content: rest.slice(head.length) }, logprobs: null, finish_reason: null }]));
        const calls = message.tool_calls.map((c, i) => ({ index: i, ...c }));
        writeSse(res, chunk([{ index, delta: { tool_calls: calls }, logprobs: null, finish_reason: null }]));
      } else {
        // a call cut off by max_tokens before its name was whole is not sent as text (the whole
        // message leaves it out too); one with its name is a tool_calls delta above
        const head = p.parseTools && r.finish === "length" ? beforeCutCall(r.text, p.reasoning) : null;
        send(head ?? r.text, null, true);
      }
      writeSse(res, chunk([{ index, delta: {}, logprobs: null, finish_reason: finishReason }]));
    }),
  );
  if (closed) return;
  if (p.includeUsage) writeSse(res, chunk([], { usage: usage(p, completion, cached) }));
  res.write("data: [DONE]\n\n");
  res.end();
}
