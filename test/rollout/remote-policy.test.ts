import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "../../src/mcp/connect.js";
import type { Toolbox } from "../../src/mcp/types.js";
import { formatToolCall } from "../../src/policy/tool-calls.js";
import { playGroups } from "../../src/rollout/group.js";
import { contextRefusal } from "../../src/rollout/context-refusal.js";
import { RemotePolicy } from "../../src/rollout/remote-policy.js";
import { type ChatServer, startChatServer } from "../helpers/chat-server.js";

describe("RemotePolicy over a real OpenAI-compatible HTTP endpoint", () => {
  let toolbox: Toolbox;
  let server: ChatServer;
  beforeAll(async () => {
    toolbox = await connect("fixture:calculator");
    server = await startChatServer((req) => {
      const last = req.messages[req.messages.length - 1];
      return last.role === "tool"
        ? { content: `It is ${String(last.content).trim()}.` }
        : { content: formatToolCall("calculate", { expression: "6*7" }) };
    });
  });
  afterAll(async () => {
    await toolbox?.close();
    await server?.close();
  });

  it("plays the same rollout loop, sending tools and tool messages in the OpenAI shape", async () => {
    const policy = new RemotePolicy({ baseURL: server.url, model: "test-model", apiKey: "sk-secret-test" });
    const { groups } = await playGroups(
      [{ id: "r", task: "What is 6*7?", difficulty: 1, split: "test", tags: [] }],
      policy,
      toolbox,
      { groupSize: 2, seed: 9, temperature: 0.5 },
    );
    for (const t of groups[0].trajectories) {
      expect(t.finish).toBe("answer");
      expect(t.finalAnswer).toBe("It is 42.");
      expect(t.tokenIds).toEqual([]); // remote rollouts carry no token ids
    }
    expect(server.requests).toHaveLength(4);
    const second = server.requests[1];
    expect(second.model).toBe("test-model");
    expect((second.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toContain("calculate");
    const roles = server.requests.map((r) => r.messages.map((m) => m.role).join(","));
    expect(roles).toContain("system,user,assistant,tool");
    expect(server.headers[0].authorization).toBe("Bearer sk-secret-test");
  });

  it("keeps a malformed call's text in the trajectory, and sends the endpoint only the chat API's fields", async () => {
    const broken = '<tool_call>{"name": "calculate", "arguments": {"expression": }</tool_call>';
    const replies = await startChatServer((req) => (req.messages.some((m) => m.role === "tool") ? { content: "I could not." } : { content: broken }));
    try {
      const policy = new RemotePolicy({ baseURL: replies.url, model: "test-model" });
      const { groups } = await playGroups([{ id: "m", task: "What is 6*7?", difficulty: 1, split: "test", tags: [] }], policy, toolbox, { groupSize: 1, seed: 3 });
      const t = groups[0].trajectories[0];
      expect(t.messages.find((m) => m.role === "assistant")?.raw_content).toBe(broken);
      expect(replies.requests).toHaveLength(2);
      expect(replies.requests[1].messages.map((m) => Object.keys(m).filter((k) => k === "raw_content"))).toEqual(replies.requests[1].messages.map(() => []));
    } finally {
      await replies.close();
    }
  });

  it("keeps an endpoint's tool call whose arguments are no JSON object, verbatim, beside the calls that ran", async () => {
    const calls = [
      { id: "a", type: "function", function: { name: "calculate", arguments: '{"expression": "6*7"}' } },
      { id: "b", type: "function", function: { name: "calculate", arguments: '{"expression": 6*' } },
    ];
    const reply = (message: Record<string, unknown>) => ({ body: { id: "c", object: "chat.completion", created: 0, model: "m", choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: "stop", logprobs: null }] } });
    const replies = await startChatServer((req) => (req.messages.some((m) => m.role === "tool") ? reply({ content: "42" }) : reply({ content: "Computing.", tool_calls: calls })));
    try {
      const policy = new RemotePolicy({ baseURL: replies.url, model: "test-model" });
      const { groups } = await playGroups([{ id: "s", task: "What is 6*7?", difficulty: 1, split: "test", tags: [] }], policy, toolbox, { groupSize: 1, seed: 3 });
      const assistant = groups[0].trajectories[0].messages.find((m) => m.role === "assistant")!;
      expect(assistant.raw_content).toBe('Computing.\n<tool_call>\n{"name": "calculate", "arguments": {"expression": "6*7"}}\n</tool_call>\n<tool_call>\n{"name": "calculate", "arguments": {"expression": 6*}\n</tool_call>');
      expect(assistant.tool_calls?.map((c) => c.function.arguments)).toEqual(['{"expression":"6*7"}']);
      expect(groups[0].trajectories[0].toolCalls.map((c) => c.error)).toEqual(["parse:bad_arguments", undefined]);
    } finally {
      await replies.close();
    }
  });
});

describe("RemotePolicy near the end of the model's context", () => {
  let calc: Toolbox;
  beforeAll(async () => {
    calc = await connect("fixture:calculator");
  });
  afterAll(async () => {
    await calc?.close();
  });

  it("reads the three wordings of a context-length refusal", () => {
    expect(contextRefusal("This model's maximum context length is 2048 tokens. However, you requested 2100 tokens (2000 in the messages, 100 in the completion). Please reduce the length of the messages or completion.")).toEqual({ context: 2048, prompt: 2000 });
    expect(contextRefusal("'max_tokens' or 'max_completion_tokens' is too large: 100. This model's maximum context length is 2048 tokens and your request has 2000 input tokens (100 > 2048 - 2000).")).toEqual({ context: 2048, prompt: 2000 });
    expect(contextRefusal("This model's maximum context length is 8192 tokens. However, your messages resulted in 8200 tokens. Please reduce the length of the messages.")).toEqual({ context: 8192, prompt: 8200 });
    expect(contextRefusal("tool_choice: no tool named x")).toBeUndefined();
  });

  it("takes the room a vLLM refusal names, and ends the rollout truncated when the prompt leaves none", async () => {
    const CONTEXT = 350;
    // 100 "tokens" a message: the system turn and the task leave 150, the next turn none
    const vllm = await startChatServer((req) => {
      const prompt = req.messages.length * 100;
      const asked = Number(req.max_tokens);
      if (prompt + asked > CONTEXT)
        return { status: 400, error: `'max_tokens' or 'max_completion_tokens' is too large: ${asked}. This model's maximum context length is ${CONTEXT} tokens and your request has ${prompt} input tokens (${asked} > ${CONTEXT} - ${prompt}).` };
      return { content: formatToolCall("calculate", { expression: "6*7" }) };
    });
    try {
      const policy = new RemotePolicy({ baseURL: vllm.url, model: "test-model", maxRetries: 0 });
      const { groups } = await playGroups([{ id: "c", task: "What is 6*7?", difficulty: 1, split: "test", tags: [] }], policy, calc, { groupSize: 1, seed: 3, maxTokensPerTurn: 200 });
      const t = groups[0].trajectories[0];
      expect(vllm.requests.map((r) => r.max_tokens)).toEqual([200, 150, 200]);
      expect(t.finish).toBe("max_tokens");
      expect(t.error).toBeUndefined();
      expect(t.toolCalls.map((c) => c.name)).toEqual(["calculate"]);
    } finally {
      await vllm.close();
    }
  });

  it("reads the refusal of a vLLM before 0.10.1, whose error sits at the top level of the body, and vLLM's prompt-over-context wording", async () => {
    expect(contextRefusal("This model's maximum context length is 2048 tokens. However, you requested 39197 tokens in the messages, Please reduce the length of the messages.")).toEqual({ context: 2048, prompt: 39197 });
    const CONTEXT = 350;
    const seen: number[] = [];
    const old = http.createServer((req, res) => {
      let raw = "";
      req.on("data", (d: Buffer) => (raw += d.toString()));
      req.on("end", () => {
        const body = JSON.parse(raw) as { messages: unknown[]; max_tokens: number };
        seen.push(body.max_tokens);
        const prompt = body.messages.length * 100;
        if (prompt + body.max_tokens > CONTEXT) {
          res.writeHead(400, { "content-type": "application/json" });
          // vLLM ≤ 0.10.0's ErrorResponse: no "error" wrapper
          res.end(JSON.stringify({ object: "error", message: `This model's maximum context length is ${CONTEXT} tokens. However, you requested ${prompt + body.max_tokens} tokens (${prompt} in the messages, ${body.max_tokens} in the completion). Please reduce the length of the messages or completion.`, type: "BadRequestError", param: null, code: 400 }));
          return;
        }
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ id: "c", object: "chat.completion", created: 0, model: "m", choices: [{ index: 0, message: { role: "assistant", content: formatToolCall("calculate", { expression: "6*7" }) }, finish_reason: "stop", logprobs: null }] }));
      });
    });
    await new Promise<void>((resolve) => old.listen(0, "127.0.0.1", resolve));
    try {
      const policy = new RemotePolicy({ baseURL: `http://127.0.0.1:${(old.address() as AddressInfo).port}/v1`, model: "m", maxRetries: 0 });
      const { groups } = await playGroups([{ id: "v", task: "What is 6*7?", difficulty: 1, split: "test", tags: [] }], policy, calc, { groupSize: 1, seed: 3, maxTokensPerTurn: 200 });
      expect(seen).toEqual([200, 150, 200]);
      expect(groups[0].trajectories[0].finish).toBe("max_tokens");
    } finally {
      await new Promise<void>((resolve) => old.close(() => resolve()));
    }
  });

  it("still fails the rollout on a refusal of another kind", async () => {
    const other = await startChatServer(() => ({ status: 400, error: "messages.1.content: unsupported part type" }));
    try {
      const policy = new RemotePolicy({ baseURL: other.url, model: "test-model", maxRetries: 0 });
      const { groups } = await playGroups([{ id: "o", task: "What is 6*7?", difficulty: 1, split: "test", tags: [] }], policy, calc, { groupSize: 1, seed: 3 });
      expect(groups[0].trajectories[0].finish).toBe("error");
      expect(groups[0].trajectories[0].error).toMatch(/unsupported part type/);
    } finally {
      await other.close();
    }
  });
});

describe("RemotePolicy's adapter routes", () => {
  /** A server whose first load_lora_adapter connection is cut before any reply (an idle
   *  keep-alive connection the server closed, as seen by the client); `second` answers the retry. */
  async function cuttingServer(second: (res: http.ServerResponse) => void) {
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (d: Buffer) => (body += d.toString()));
      req.on("end", () => {
        seen.push(`${req.url} ${body}`);
        if (req.url === "/v1/load_lora_adapter" && seen.filter((s) => s.startsWith("/v1/load_lora_adapter")).length === 1) return void req.socket.destroy();
        if (req.url === "/v1/load_lora_adapter") return second(res);
        res.writeHead(200, { "content-type": "text/plain" }).end("Success");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    return { url, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  }

  it("retries a load whose connection broke, and takes 'already loaded' on the retry as done", async () => {
    for (const second of [
      (res: http.ServerResponse) => res.writeHead(200, { "content-type": "text/plain" }).end("Success: LoRA adapter 'a' added successfully."),
      (res: http.ServerResponse) =>
        res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: `lora_name "a" is already loaded`, type: "invalid_request_error" } })),
    ]) {
      const s = await cuttingServer(second);
      try {
        const policy = new RemotePolicy({ baseURL: s.url, model: "base", maxRetries: 2, timeoutMs: 5000 });
        await policy.useAdapter("a", "/adapters/a");
        expect(policy.model).toBe("a");
        expect(s.seen.filter((x) => x.startsWith("/v1/load_lora_adapter"))).toHaveLength(2);
        expect(JSON.parse(s.seen[0].slice(s.seen[0].indexOf(" ") + 1))).toEqual({ lora_name: "a", lora_path: "/adapters/a" });
      } finally {
        await s.close();
      }
    }
  });

  it("fails with the server's message when a load is refused", async () => {
    const s = await cuttingServer((res) => res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "no adapter at /adapters/a" } })));
    try {
      const policy = new RemotePolicy({ baseURL: s.url, model: "base", maxRetries: 2, timeoutMs: 5000 });
      await expect(policy.useAdapter("a", "/adapters/a")).rejects.toThrow(/404.*no adapter at \/adapters\/a/);
      expect(policy.model).toBe("base");
    } finally {
      await s.close();
    }
  });
});
