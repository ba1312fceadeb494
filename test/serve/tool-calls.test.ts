/**
 * Tool calls end to end through HTTP and the real `openai` client. An untrained model never
 * writes a tool call, so the default model's engine is replaced by a scripted one whose logits
 * put all the mass on the next token of a fixed Hermes reply (everything else — tokenizer, chat
 * template, step loop, scheduler, response building, SSE — is the real server).
 */
import fs from "node:fs";
import path from "node:path";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BatchSession, StepEngine } from "../../src/serve/engine.js";
import { startServer, type RunningServer } from "../../src/serve/server.js";
import type { OpenAiTool } from "../../src/mcp/types.js";
import { RemotePolicy } from "../../src/rollout/remote-policy.js";
import { TokenLedger } from "../../src/rollout/token-ledger.js";
import { untrainedDefaultModelDir } from "../train/helpers.js";

const REPLY = 'Sure.\n<tool_call>\n{"name": "add", "arguments": {"a": 2, "b": 3}}\n</tool_call>';
const THOUGHT = "<think>\nadd them\n</think>\n\n";

/** The same request whole and streamed: the message, and the stream's content, reasoning and calls. */
/** A stream's content, tool-call deltas and finish reason, as a client puts them together. */
async function collect(stream: AsyncIterable<OpenAI.Chat.ChatCompletionChunk>) {
  let content = "";
  const calls: OpenAI.Chat.ChatCompletionChunk.Choice.Delta.ToolCall[] = [];
  let finish: string | null = null;
  for await (const chunk of stream) {
    for (const ch of chunk.choices) {
      content += ch.delta.content ?? "";
      calls.push(...(ch.delta.tool_calls ?? []));
      finish = ch.finish_reason ?? finish;
    }
  }
  return { content, calls, finish };
}

async function both(c: OpenAI, extra: Partial<OpenAI.Chat.ChatCompletionCreateParamsNonStreaming> = {}) {
  const params = { model: "default", messages: [{ role: "user" as const, content: "add 2 and 3" }], tools: TOOLS, temperature: 0, ...extra };
  const whole = await c.chat.completions.create(params);
  const stream = await c.chat.completions.create({ ...params, stream: true });
  let content = "";
  let reasoning = "";
  let calls = 0;
  for await (const chunk of stream) {
    for (const ch of chunk.choices) {
      content += ch.delta.content ?? "";
      reasoning += (ch.delta as { reasoning?: string }).reasoning ?? "";
      calls += ch.delta.tool_calls?.length ?? 0;
    }
  }
  return { message: whole.choices[0].message, content, reasoning, calls };
}

function scripted(base: StepEngine, script: number[], eos: number): StepEngine {
  const V = base.config.vocabSize;
  const logitsAt = (step: number) => {
    const l = new Float32Array(V); // [V]
    l[step < script.length ? script[step] : eos] = 20;
    return l;
  };
  return {
    kind: base.kind,
    config: base.config,
    maxBatch: 1,
    prefixCaching: false,
    prefixCacheTokens: 0,
    get closed() {
      return base.closed;
    },
    async start(): Promise<BatchSession> {
      let step = 0;
      const s = {
        logits: logitsAt(0),
        async step() {
          s.logits = logitsAt(++step);
        },
        dispose() {},
      };
      return s;
    },
    close: () => base.close(),
  };
}

let server: RunningServer;
let client: OpenAI;
const TOOLS: OpenAI.Chat.ChatCompletionTool[] = [
  { type: "function", function: { name: "add", description: "Add.", parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } } } },
];

beforeAll(async () => {
  server = await startServer({ model: untrainedDefaultModelDir(0), servedModelName: "default", port: 0 });
  const m = server.registry.get("default");
  const tok = server.registry.tokenizer;
  m.engine = scripted(m.engine, tok.encode(REPLY), tok.eosTokenIds[0]);
  client = new OpenAI({ baseURL: server.url, apiKey: "unused", maxRetries: 0 });
});

afterAll(async () => {
  await server?.close();
});

describe("tool calls over HTTP", () => {
  it("parses Hermes output into tool_calls", async () => {
    const r = await client.chat.completions.create({ model: "default", messages: [{ role: "user", content: "add 2 and 3" }], tools: TOOLS, temperature: 0 });
    const c = r.choices[0];
    expect(c.finish_reason).toBe("tool_calls");
    expect(c.message.content).toBe("Sure.");
    expect(c.message.tool_calls).toHaveLength(1);
    const call = c.message.tool_calls![0] as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).toBe("add");
    expect(JSON.parse(call.function.arguments)).toEqual({ a: 2, b: 3 });
    // without tools the same text is plain content
    const plain = await client.chat.completions.create({ model: "default", messages: [{ role: "user", content: "add" }], temperature: 0 });
    expect(plain.choices[0].message.content).toBe(REPLY);
    expect(plain.choices[0].finish_reason).toBe("stop");
  });

  it("streams the content, then the tool call as one delta", async () => {
    const stream = await client.chat.completions.create({ model: "default", messages: [{ role: "user", content: "add 2 and 3" }], tools: TOOLS, temperature: 0, stream: true });
    const { content, calls, finish } = await collect(stream);
    expect(content.trim()).toBe("Sure.");
    expect(content).not.toContain("<tool");
    expect(calls).toHaveLength(1);
    expect(calls[0].function?.name).toBe("add");
    expect(JSON.parse(calls[0].function!.arguments!)).toEqual({ a: 2, b: 3 });
    expect(finish).toBe("tool_calls");
  });

  it("a call cut off by max_tokens inside its arguments: the partial call (name, arguments so far), finish_reason length, whole and streamed", async () => {
    const tok = server.registry.tokenizer;
    const ids = tok.encode(REPLY);
    // the budget ends inside the arguments
    const k = ids.findIndex((_, i) => tok.decode(ids.slice(0, i)).includes('"a": 2'));
    expect(k).toBeGreaterThan(0);
    const params = { model: "default", messages: [{ role: "user" as const, content: "add 2 and 3" }], tools: TOOLS, temperature: 0, max_tokens: k };
    const whole = await client.chat.completions.create(params);
    expect(whole.choices[0].finish_reason).toBe("length");
    expect(whole.choices[0].message.content).toBe("Sure.");
    const call = whole.choices[0].message.tool_calls?.[0] as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).toBe("add");
    expect(call.function.arguments).toBe('{"a": 2');
    const stream = await client.chat.completions.create({ ...params, stream: true });
    const { content, calls, finish } = await collect(stream);
    expect(content.trim()).toBe("Sure.");
    expect(content).not.toContain("<tool");
    expect(calls.map((c) => c.function)).toEqual([{ name: "add", arguments: '{"a": 2' }]);
    expect(finish).toBe("length");
    // cut inside the name: the text before the call, no call
    const n = ids.findIndex((_, i) => tok.decode(ids.slice(0, i)).includes('"name": "a'));
    const short = await client.chat.completions.create({ ...params, max_tokens: n });
    expect(short.choices[0].finish_reason).toBe("length");
    expect(short.choices[0].message.content).toBe("Sure.");
    expect(short.choices[0].message.tool_calls ?? []).toEqual([]);
  });

  it("under tool_choice auto never returns a call to a tool that was not offered (it comes back as the text it is)", async () => {
    const m = server.registry.get("default");
    const tok = server.registry.tokenizer;
    const before = m.engine;
    // the scripted model calls `percentage`; only `add` is offered
    const stray = REPLY.replace('"add"', '"percentage"');
    m.engine = scripted(before, tok.encode(stray), tok.eosTokenIds[0]);
    try {
      const { message, calls, content } = await both(client, { max_tokens: 40 });
      // not a tool call: the model's text, as vLLM returns a call its parser does not take
      expect(message.tool_calls ?? []).toEqual([]);
      expect(calls).toBe(0);
      expect(message.content).toContain('"name": "percentage"');
      expect(content.trim()).toBe(message.content);
      // offered, the same call goes through
      const offered = await client.chat.completions.create({ model: "default", messages: [{ role: "user", content: "%" }], tools: [...TOOLS, { type: "function", function: { name: "percentage", parameters: { type: "object", properties: {} } } }], temperature: 0 });
      expect((offered.choices[0].message.tool_calls?.[0] as OpenAI.Chat.ChatCompletionMessageFunctionToolCall).function.name).toBe("percentage");
    } finally {
      m.engine = before;
    }
  });

  it("streams the text after a tool call too, as the non-streamed message holds it", async () => {
    const m = server.registry.get("default");
    const tok = server.registry.tokenizer;
    const before = m.engine;
    m.engine = scripted(before, tok.encode(`${REPLY}\nDone.`), tok.eosTokenIds[0]);
    try {
      const whole = await client.chat.completions.create({ model: "default", messages: [{ role: "user", content: "add 2 and 3" }], tools: TOOLS, temperature: 0 });
      expect(whole.choices[0].message.content).toMatch(/^Sure\.\s+Done\.$/);
      const stream = await client.chat.completions.create({ model: "default", messages: [{ role: "user", content: "add 2 and 3" }], tools: TOOLS, temperature: 0, stream: true });
      let content = "";
      let calls = 0;
      for await (const chunk of stream) {
        for (const ch of chunk.choices) {
          content += ch.delta.content ?? "";
          calls += ch.delta.tool_calls?.length ?? 0;
        }
      }
      expect(content.trim()).toBe(whole.choices[0].message.content);
      expect(calls).toBe(1);
    } finally {
      m.engine = before;
    }
  });

  it("keeps a think block in the content beside the calls, streamed or not, without a reasoning parser", async () => {
    const m = server.registry.get("default");
    const tok = server.registry.tokenizer;
    const before = m.engine;
    m.engine = scripted(before, tok.encode(`${THOUGHT}${REPLY}\nDone.`), tok.eosTokenIds[0]);
    try {
      const { message, content, reasoning, calls } = await both(client);
      expect(message.content).toMatch(/^<think>\nadd them\n<\/think>\s+Sure\.\s+Done\.$/);
      expect(content.trim()).toBe(message.content);
      expect(reasoning).toBe("");
      expect(calls).toBe(1);
    } finally {
      m.engine = before;
    }
  });

  it("with --reasoning-parser qwen3, puts the thought in `reasoning`, streamed as reasoning deltas", async () => {
    const reasoning = await startServer({ model: untrainedDefaultModelDir(0), servedModelName: "default", port: 0, reasoningParser: "qwen3" });
    try {
      const m = reasoning.registry.get("default");
      const tok = reasoning.registry.tokenizer;
      m.engine = scripted(m.engine, tok.encode(`${THOUGHT}${REPLY}\nDone.`), tok.eosTokenIds[0]);
      const rc = new OpenAI({ baseURL: reasoning.url, apiKey: "unused", maxRetries: 0 });
      const got = await both(rc);
      expect((got.message as { reasoning?: string }).reasoning).toBe("add them");
      expect(got.message.content).toMatch(/^Sure\.\s+Done\.$/);
      expect(got.reasoning.trim()).toBe("add them");
      expect(got.content.trim()).toBe(got.message.content);
      expect(got.content).not.toContain("think");
      expect(got.calls).toBe(1);
      // a remote policy puts the thought back where the model wrote it, for the trainer to score
      const policy = new RemotePolicy({ baseURL: reasoning.url, model: "default" });
      const [turn] = await policy.turn([{ messages: [{ role: "user", content: "add 2 and 3" }], tools: TOOLS as OpenAiTool[], ledger: new TokenLedger() }], { maxTokens: 80, temperature: 0, topP: 1, topK: 0, seed: 1 });
      expect(turn.text).toMatch(/^<think>\nadd them\n<\/think>\n\nSure\./);
      expect(turn.toolCalls?.map((c) => c.name)).toEqual(["add"]);
    } finally {
      await reasoning.close();
    }
  });

  it("holds a strict tool's arguments to its schema under tool_choice auto, once the model opens a call", async () => {
    const m = server.registry.get("default");
    const tok = server.registry.tokenizer;
    const before = m.engine;
    // the scripted model calls add with a string where the schema wants a number
    m.engine = scripted(before, tok.encode(REPLY.replace('"a": 2', '"a": "two"')), tok.eosTokenIds[0]);
    const ask = async (strict: boolean) => {
      const tools = TOOLS.map((t) => ({ ...t, function: { ...(t as OpenAI.Chat.ChatCompletionFunctionTool).function, strict } }));
      const r = await client.chat.completions.create({ model: "default", messages: [{ role: "user", content: "add 2 and 3" }], tools, temperature: 0, max_tokens: 60 });
      const call = r.choices[0].message.tool_calls?.[0] as OpenAI.Chat.ChatCompletionMessageFunctionToolCall | undefined;
      return { content: r.choices[0].message.content, args: call ? (JSON.parse(call.function.arguments) as Record<string, unknown>) : undefined };
    };
    try {
      const loose = await ask(false);
      expect(loose.args).toEqual({ a: "two", b: 3 });
      const strict = await ask(true);
      // the text before the call is the model's own; the call is whole and its arguments fit
      expect(strict.content).toBe("Sure.");
      expect(typeof strict.args?.a).toBe("number");
      // a call cut off by max_tokens (here inside its arguments) stays cut off, not closed early
      // with made-up arguments: its arguments are returned as far as the model wrote them
      m.engine = scripted(before, tok.encode(REPLY), tok.eosTokenIds[0]);
      const tools = TOOLS.map((x) => ({ ...x, function: { ...(x as OpenAI.Chat.ChatCompletionFunctionTool).function, strict: true } }));
      const cut = await client.chat.completions.create({ model: "default", messages: [{ role: "user", content: "add 2 and 3" }], tools, temperature: 0, max_tokens: 20 });
      expect(cut.choices[0].finish_reason).toBe("length");
      const partial = (cut.choices[0].message.tool_calls ?? []) as OpenAI.Chat.ChatCompletionMessageFunctionToolCall[];
      expect(partial.map((c) => c.function.name)).toEqual(["add"]);
      expect(() => JSON.parse(partial[0].function.arguments)).toThrow();
    } finally {
      m.engine = before;
    }
  });
});

describe("the reasoning parser, streamed and whole alike", () => {
  /** A server with the parser whose scripted model writes `reply`; `opensThink`: its chat template
   *  ends the generation prompt inside a <think> block (as DeepSeek-R1's does). */
  async function serve(reply: string, opensThink = false) {
    const dir = untrainedDefaultModelDir(0);
    if (opensThink) {
      const file = path.join(dir, "chat_template.jinja");
      fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("'<|im_start|>assistant\\n' -}}{%- endif", "'<|im_start|>assistant\\n<think>\\n' -}}{%- endif"));
    }
    const s = await startServer({ model: dir, servedModelName: "default", port: 0, reasoningParser: "deepseek_r1" });
    const m = s.registry.get("default");
    m.engine = scripted(m.engine, s.registry.tokenizer.encode(reply), s.registry.tokenizer.eosTokenIds[0]);
    return { server: s, client: new OpenAI({ baseURL: s.url, apiKey: "unused", maxRetries: 0 }) };
  }
  const reasoningOf = (m: object) => (m as { reasoning?: string }).reasoning;

  it("joins several think blocks the same way in both, and leaves a lone </think> as text", async () => {
    for (const [reply, thought, content] of [
      ["<think>a</think>x<think>b</think>y", "ab", "xy"],
      ["plan</think>answer", undefined, "plan</think>answer"],
    ] as const) {
      const { server: s, client: c } = await serve(reply);
      try {
        const got = await both(c, { tools: undefined });
        expect(reasoningOf(got.message)).toBe(thought);
        expect(got.message.content).toBe(content);
        expect(got.reasoning.trim()).toBe(thought ?? "");
        expect(got.content.trim()).toBe(content);
      } finally {
        await s.close();
      }
    }
  });

  it("streams a thought that mentions <tool_call> as it comes, and a broken call outside it whole at the end", async () => {
    const { server: s, client: c } = await serve("<think>\nmaybe <tool_call> then more\n</think>\n\nDone. <tool_call> oops");
    try {
      const stream = await c.chat.completions.create({ model: "default", messages: [{ role: "user", content: "add" }], tools: TOOLS, temperature: 0, stream: true });
      let content = "";
      let reasoningAlone = ""; // reasoning sent in chunks that carry no content
      let reasoning = "";
      for await (const chunk of stream)
        for (const ch of chunk.choices) {
          const d = ch.delta as { reasoning?: string; content?: string };
          reasoning += d.reasoning ?? "";
          content += d.content ?? "";
          if (!d.content) reasoningAlone += d.reasoning ?? "";
        }
      expect(reasoningAlone).toContain("then more");
      expect(reasoning.trim()).toBe("maybe <tool_call> then more");
      const whole = await c.chat.completions.create({ model: "default", messages: [{ role: "user", content: "add" }], tools: TOOLS, temperature: 0 });
      expect(whole.choices[0].message.tool_calls).toBeUndefined();
      expect(content.trim()).toBe(whole.choices[0].message.content);
      expect(content).toContain("oops");
    } finally {
      await s.close();
    }
  });

  it("gives a remote policy a thought cut off by max_tokens without a close tag the model never wrote", async () => {
    const { server: s } = await serve("<think>\nthinking about it at some length, then more");
    try {
      const policy = new RemotePolicy({ baseURL: s.url, model: "default" });
      const [turn] = await policy.turn([{ messages: [{ role: "user", content: "hm" }], tools: [], ledger: new TokenLedger() }], { maxTokens: 14, temperature: 0, topP: 1, topK: 0, seed: 1 });
      expect(turn.finish).toBe("length");
      expect(turn.text).toMatch(/^<think>\nthinking/);
      expect(turn.text).not.toContain("</think>");
    } finally {
      await s.close();
    }
  });

  it("reads the reply as a thought when the template opened one, but not for a forced call or a <think> the user wrote", async () => {
    const opened = await serve("plan\n</think>\n\nHi.", true);
    try {
      const got = await both(opened.client, { tools: undefined });
      expect(reasoningOf(got.message)).toBe("plan");
      expect(got.message.content).toBe("Hi.");
      expect(got.reasoning.trim()).toBe("plan");
      expect(got.content.trim()).toBe("Hi.");
    } finally {
      await opened.server.close();
    }
    const forced = await serve("unused", true);
    try {
      const r = await forced.client.chat.completions.create({ model: "default", messages: [{ role: "user", content: "add" }], tools: TOOLS, tool_choice: "required", temperature: 0, max_tokens: 60 });
      expect(r.choices[0].finish_reason).toBe("tool_calls");
      expect(r.choices[0].message.tool_calls).toHaveLength(1);
      expect(reasoningOf(r.choices[0].message)).toBeUndefined();
    } finally {
      await forced.server.close();
    }
    const plain = await serve("Hello there.");
    try {
      const got = await both(plain.client, { tools: undefined, messages: [{ role: "user", content: "Say <think>" }] });
      expect(got.message.content).toBe("Hello there.");
      expect(reasoningOf(got.message)).toBeUndefined();
    } finally {
      await plain.server.close();
    }
  });
});
