/**
 * The LLM generator end to end: the real `openai` client against a real HTTP chat-completions
 * server (test/helpers/chat-server.ts) over the real calculator fixture's tools. Covers the
 * json_schema request, the fallback to JSON mode when a provider refuses json_schema, a 5xx
 * then success, persistent failure (an error, and through the CLI: exit ≠ 0, no file), and
 * rejection of invalid, duplicate and tool-naming tasks.
 */
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/main.js";
import { connect } from "../../src/mcp/connect.js";
import type { Toolbox } from "../../src/mcp/types.js";
import { readScenarioFile } from "../../src/scenarios/io.js";
import { generateWithLlm } from "../../src/scenarios/llm/generate.js";
import { checkLlmScenarios } from "../../src/scenarios/llm/verify.js";
import { isTrainMcpError } from "../../src/errors.js";
import { startChatServer, type ChatRequest } from "../helpers/chat-server.js";

let calc: Toolbox;
beforeAll(async () => {
  calc = await connect("fixture:calculator");
});
afterAll(async () => {
  await calc.close();
});

/** A reply with tasks numbered from `from`, distinct by their numbers and subjects. */
function reply(from: number, count: number): string {
  const subjects = ["a shop bill", "a recipe", "a loan", "a class's marks", "a road trip", "a garden", "a salary", "a savings plan"];
  return JSON.stringify({
    scenarios: Array.from({ length: count }, (_, i) => ({
      task: `For ${subjects[(from + i) % subjects.length]}, work out ${from + i + 3} times ${from * 7 + i * 13 + 11} exactly (case ${from + i}).`,
      difficulty: ((from + i) % 5) + 1,
      tags: ["arithmetic"],
      expected_answer: String((from + i + 3) * (from * 7 + i * 13 + 11)),
      answer_kind: "numeric",
    })),
  });
}

const base = { model: "test-model", retryDelayMs: 5, seed: 3 };

describe("LLM generator", () => {
  it("asks for a json_schema reply and turns it into scenarios", async () => {
    const server = await startChatServer((_req, i) => ({ content: reply(i * 10, 6) }));
    try {
      const r = await generateWithLlm(calc.tools, { ...base, baseUrl: server.url, apiKey: "sk-test-123", n: 8, batchSize: 6, server: "fixture:calculator" });
      expect(r.scenarios).toHaveLength(8);
      expect(r.usedJsonObjectFallback).toBe(false);
      const first = server.requests[0] as ChatRequest;
      expect(first.model).toBe("test-model");
      expect(first.response_format?.type).toBe("json_schema");
      expect(first.response_format?.json_schema?.strict).toBe(true);
      const prompt = JSON.stringify(first.messages);
      for (const t of calc.tools) expect(prompt).toContain(t.name); // the model is shown the tools
      expect(server.headers[0].authorization).toBe("Bearer sk-test-123");
      expect(r.scenarios.filter((s) => s.split === "test")).toHaveLength(2);
      expect(r.scenarios[0]).toMatchObject({ id: "llm-0001", server: "fixture:calculator", tags: ["generator:llm", "arithmetic"] });
      expect(r.scenarios[0].expected?.[0]).toMatchObject({ kind: "numeric", value: 3 * 11 });
      expect(new Set(r.scenarios.map((s) => s.task)).size).toBe(8);
    } finally {
      await server.close();
    }
  });

  it("falls back to JSON mode when the provider refuses json_schema (HTTP 400)", async () => {
    const server = await startChatServer((req, i) =>
      req.response_format?.type === "json_schema" ? { status: 400, error: "response_format json_schema is not supported by this model" } : { content: "```json\n" + reply(i * 10, 5) + "\n```" },
    );
    const lines: string[] = [];
    try {
      const r = await generateWithLlm(calc.tools, { ...base, baseUrl: server.url, n: 5, log: (l) => lines.push(l) });
      expect(r.usedJsonObjectFallback).toBe(true);
      expect(r.scenarios).toHaveLength(5);
      expect(server.requests.map((q) => q.response_format?.type)).toEqual(["json_schema", "json_object"]);
      expect(lines.join("\n")).toMatch(/JSON mode/);
    } finally {
      await server.close();
    }
  });

  it("retries a 5xx and then succeeds", async () => {
    const server = await startChatServer((_req, i) => (i === 0 ? { status: 503, error: "overloaded" } : { content: reply(i * 10, 4) }));
    try {
      const r = await generateWithLlm(calc.tools, { ...base, baseUrl: server.url, n: 4 });
      expect(r.scenarios).toHaveLength(4);
      expect(server.requests).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  it("rejects invalid, near-duplicate and tool-naming tasks, and asks again", async () => {
    const server = await startChatServer((_req, i) => {
      if (i === 0) {
        return {
          content: JSON.stringify({
            scenarios: [
              { task: "What is 12 * 12 in total?", difficulty: 1, tags: [], expected_answer: "144", answer_kind: "numeric" },
              { task: "What is 12 * 12 in total", difficulty: 1, tags: [], expected_answer: "144", answer_kind: "numeric" },
              { task: "Use compound_interest on 1000 dollars for 3 years.", difficulty: 2, tags: [], expected_answer: null, answer_kind: "none" },
              { task: "A task with a bad difficulty level", difficulty: 9, tags: [], expected_answer: null, answer_kind: "none" },
              { task: "short", difficulty: 1 },
              { task: "          x", difficulty: 1 }, // blank padding does not make a task long enough
              { task: "            ", difficulty: 1 },
              // what a tiny model writes: digits, template debris; and an answer that is no number
              { task: "103060062000, 77 4", difficulty: 1 },
              { task: "percent_<tool_call> +ation2 *22 -.706, of the value", difficulty: 1 },
              { task: "Is it warm in Lima today?", difficulty: 1, expected_answer: "warm", answer_kind: "numeric" },
            ],
          }),
        };
      }
      if (i === 1) return { content: "this is not JSON at all" };
      return { content: reply(i * 10, 3) };
    });
    try {
      const log: string[] = [];
      const r = await generateWithLlm(calc.tools, { ...base, baseUrl: server.url, n: 3, log: (l) => log.push(l) });
      expect(r.rejected).toEqual({ invalid: 8, duplicate: 1, namesTool: 1, contradicted: 0 });
      expect(log).toContain("request 1: task rejected (task: Too small: expected string to have >=8 characters)");
      expect(log).toContain("request 1: task rejected (task: not a request in words (fewer than three words))");
      expect(log).toContain("request 1: task rejected (task: holds chat-template markup (<tool_call>, <|…|>))");
      expect(log).toContain("request 1: task rejected (expected_answer: answer_kind is numeric but expected_answer holds no number)");
      expect(log).toContain("request 1: task rejected (it names a tool)");
      expect(log.find((l) => l.startsWith("request 2:"))).toMatch(/^request 2: the reply was not JSON \(.*\): "this is not JSON at all"$/);
      expect(r.scenarios.map((s) => s.task)[0]).toBe("What is 12 * 12 in total?");
      expect(r.scenarios).toHaveLength(3);
      expect(server.requests).toHaveLength(3);
      // Later requests tell the model what it already wrote.
      expect(JSON.stringify(server.requests[2].messages)).toContain("What is 12 * 12 in total?");
    } finally {
      await server.close();
    }
  });

  it("a web page where the API was expected is a usage error naming what came back, not a TypeError", async () => {
    const server = await startChatServer(() => ({ html: "<html><body>Welcome to nginx!</body></html>" }));
    try {
      const err = await generateWithLlm(calc.tools, { ...base, baseUrl: server.url, n: 2 }).then(
        () => new Error("expected an error"),
        (e: unknown) => e as Error,
      );
      expect(err.message).toMatch(/--llm-base-url http:\/\/127\.0\.0\.1:\d+\/v1: the reply is not a chat completion \(no "choices"\): .*Welcome to nginx!.*is it an OpenAI-compatible \/v1 endpoint\?/);
      expect(isTrainMcpError(err) && err.code).toBe("ConfigInvalid");
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it("a 404 (a model the endpoint does not serve, a URL without /v1) is a usage error at once", async () => {
    // an endpoint without GET /models: the chat request is the first to tell
    const server = await startChatServer(() => ({ status: 404, error: "The model `nosuch` does not exist." }), { models: null });
    try {
      const err = await generateWithLlm(calc.tools, { ...base, model: "nosuch", baseUrl: server.url, n: 2 }).then(
        () => new Error("expected an error"),
        (e: unknown) => e as Error,
      );
      expect(isTrainMcpError(err) && err.code).toBe("ConfigInvalid");
      expect(err.message).toMatch(/^--llm-model nosuch at --llm-base-url http:\/\/127\.0\.0\.1:\d+\/v1: HTTP 404: .*does not exist.*is the model served there/);
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it("a prompt past the model's context (HTTP 400, as train-mcp serve of the 2,048-token built-in model answers) is a usage error at once that says so, not a refusal retried or reported as the endpoint's", async () => {
    const server = await startChatServer(() => ({ status: 400, error: "This model's maximum context length is 2048 tokens. However, your messages resulted in 2266 tokens. Please reduce the length of the messages." }), { models: null });
    try {
      const err = await generateWithLlm(calc.tools, { ...base, baseUrl: server.url, n: 4 }).then(
        () => new Error("expected an error"),
        (e: unknown) => e as Error,
      );
      expect(isTrainMcpError(err) && err.code).toBe("ConfigInvalid");
      expect(err.message).toMatch(/^--llm-model test-model at --llm-base-url http:\/\/127\.0\.0\.1:\d+\/v1: the request does not fit the model's context \(HTTP 400: .*maximum context length is 2048 tokens.*\); it holds the rules, the server's \d+ tools with their descriptions and schemas \(\d+ characters\) .*use a model with a longer context; nothing written$/);
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it("a model GET /models does not list is a usage error before any chat request, naming the nearest served one (CLI: exit 2)", async () => {
    const server = await startChatServer((_req, i) => ({ content: reply(i * 10, 4) }), { models: ["gpt-4o-mini", "gpt-4o", "llama3:latest"] });
    const err: string[] = [];
    const spyErr = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => (err.push(String(chunk)), true));
    try {
      const e = await generateWithLlm(calc.tools, { ...base, model: "gpt-4o-mni", baseUrl: server.url, n: 2 }).then(
        () => new Error("expected an error"),
        (x: unknown) => x as Error,
      );
      expect(isTrainMcpError(e) && e.code).toBe("ConfigInvalid");
      expect(e.message).toMatch(/^--llm-model gpt-4o-mni: http:\/\/127\.0\.0\.1:\d+\/v1 does not serve it \(did you mean gpt-4o-mini\?\); it serves gpt-4o-mini, gpt-4o, llama3:latest; nothing written$/);
      expect(server.requests).toHaveLength(0);
      // a name far from every served one gets no guess
      await expect(generateWithLlm(calc.tools, { ...base, model: "claude-3-opus", baseUrl: server.url, n: 2 })).rejects.toThrow(/does not serve it; it serves /);
      // Ollama's "llama3" is its "llama3:latest"
      expect((await generateWithLlm(calc.tools, { ...base, model: "llama3", baseUrl: server.url, n: 2 })).scenarios).toHaveLength(2);

      const out = join(mkdtempSync(join(tmpdir(), "scen-llm-model-")), "never.jsonl");
      const code = await main(["scenarios", "generate", "--server", "fixture:calculator", "--generator", "llm", "--llm-base-url", server.url, "--llm-model", "gpt4o", "--n", "2", "--out", out]);
      expect(code).toBe(2);
      expect(err.join("")).toContain("did you mean gpt-4o?");
      expect(existsSync(out)).toBe(false);
    } finally {
      spyErr.mockRestore();
      await server.close();
    }
  });

  it("an endpoint without GET /models, or Azure's (which lists no deployment names), is trusted with the model name", async () => {
    const server = await startChatServer((_req, i) => ({ content: reply(i * 10, 3) }), { models: null });
    const azure = await startChatServer((_req, i) => ({ content: reply(i * 10, 3) }), { models: ["gpt-4o"] });
    try {
      const r = await generateWithLlm(calc.tools, { ...base, model: "whatever-it-serves", baseUrl: server.url, n: 3 });
      expect(r.scenarios).toHaveLength(3);
      expect(server.requests[0].model).toBe("whatever-it-serves");
      const a = await generateWithLlm(calc.tools, { ...base, model: "my-deployment", baseUrl: `${azure.url}?api-version=2024-10-21`, n: 3 });
      expect(a.scenarios).toHaveLength(3);
      expect(azure.queries).toEqual(["api-version=2024-10-21"]); // the chat request alone
    } finally {
      await server.close();
      await azure.close();
    }
  });

  it("a reply with a tool call and no text: the call's arguments are read as the reply when they hold the tasks, else it is reported as a tool call", async () => {
    /** a chat completion whose message is a tool call with these arguments and no content */
    const toolCall = (name: string, args: string) => ({
      body: {
        id: "chatcmpl-tc",
        object: "chat.completion",
        created: 0,
        model: "test-model",
        choices: [{ index: 0, message: { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name, arguments: args } }] }, finish_reason: "tool_calls", logprobs: null }],
      },
    });
    const server = await startChatServer((_req, i) => (i === 0 ? toolCall("calculate", '{"expression": "2+2"}') : toolCall("json_tool_call", reply(i * 10, 4))));
    const lines: string[] = [];
    try {
      const r = await generateWithLlm(calc.tools, { ...base, baseUrl: server.url, n: 4, log: (l) => lines.push(l) });
      expect(r.scenarios).toHaveLength(4);
      expect(r.scenarios[0].task).toContain("times 81 exactly (case 10)");
      expect(server.requests).toHaveLength(2);
      expect(lines).toEqual([
        'request 1: the reply was a tool call instead of the JSON asked for: calculate({"expression": "2+2"}), no tasks in its arguments',
        "request 2: the model answered with a tool call (json_tool_call) and no text; reading the tasks from its arguments",
      ]);
    } finally {
      await server.close();
    }
  });

  it("persistent failure is an error after bounded attempts", async () => {
    const server = await startChatServer(() => ({ status: 500, error: "boom" }));
    const lines: string[] = [];
    try {
      await expect(generateWithLlm(calc.tools, { ...base, baseUrl: server.url, n: 4, maxRequests: 3, log: (l) => lines.push(l) })).rejects.toThrow(/only 0 of 4 .* after 3 requests.*HTTP 500/);
      expect(server.requests).toHaveLength(3);
      // the last failure is not announced as retried
      expect(lines.map((l) => l.replace(/ \(.*\)/, ""))).toEqual(["request 1 failed; retrying in 5 ms", "request 2 failed; retrying in 10 ms"]);
    } finally {
      await server.close();
    }
  });

  it("a cut connection after the endpoint has answered is a blip: retried, not a usage error", async () => {
    const server = await startChatServer((_req, i) => (i === 1 ? { drop: true } : { content: reply(i * 10, 4) }));
    const lines: string[] = [];
    try {
      const r = await generateWithLlm(calc.tools, { ...base, baseUrl: server.url, n: 8, batchSize: 4, log: (l) => lines.push(l) });
      expect(r.scenarios).toHaveLength(8);
      expect(server.requests).toHaveLength(3);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^request 2 failed \(.*\); retrying in 5 ms$/);
    } finally {
      await server.close();
    }
  });

  it("an endpoint that never answered (nothing listening) is a usage error at once, not retried for a minute", async () => {
    // a port that was just listening and is now closed
    const gone = await startChatServer(() => ({ content: "{}" }));
    await gone.close();
    const e = await generateWithLlm(calc.tools, { ...base, retryDelayMs: 60_000, baseUrl: gone.url, n: 4 }).then(
      () => undefined,
      (x: unknown) => x as { message: string; usage: boolean },
    );
    expect(e?.usage).toBe(true);
    expect(e?.message).toMatch(new RegExp(`^--llm-base-url ${gone.url.replace(/[.]/g, "\\.")}: cannot connect \\(connect ECONNREFUSED 127\\.0\\.0\\.1:\\d+\\); nothing written$`));
  });

  it("through the CLI: success writes the file; persistent failure writes nothing; the key is never printed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "scen-llm-"));
    const ok = await startChatServer((_req, i) => ({ content: reply(i * 10, 6) }));
    const bad = await startChatServer(() => ({ status: 502, error: "bad gateway" }));
    const written: string[] = [];
    const spyErr = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true));
    const spyOut = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true));
    const oldKey = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = "sk-secret-key-xyz";
    try {
      const good = join(dir, "good.jsonl");
      const code = await main(["scenarios", "generate", "--server", "fixture:calculator", "--generator", "llm", "--llm-base-url", ok.url, "--llm-model", "test-model", "--n", "6", "--out", good]);
      expect(code).toBe(0);
      expect(readScenarioFile(good)).toHaveLength(6);
      expect(ok.headers[0].authorization).toBe("Bearer sk-secret-key-xyz");
      expect(written.join("")).toContain("checked on the server: 0 of 6 tasks confirmed by replaying their solution calls (tag verified:replay); 0 more dropped and replaced (no result states their expected answer); 6 kept unverified\n");

      // every task contradicted by the server: nothing written
      const wrong = await startChatServer(() => ({
        content: JSON.stringify({ scenarios: [{ task: "For a garden, what is 19 rows of 23 plants in all?", difficulty: 1, tags: [], expected_answer: "427", answer_kind: "numeric", solution: [{ tool: "calculate", arguments_json: '{"expression": "19*23"}' }] }] }),
      }));
      const contradicted = join(dir, "contradicted.jsonl");
      const code3 = await main(["scenarios", "generate", "--server", "fixture:calculator", "--generator", "llm", "--llm-base-url", wrong.url, "--llm-model", "test-model", "--n", "1", "--out", contradicted]);
      await wrong.close();
      expect(code3).toBe(2);
      expect(existsSync(contradicted)).toBe(false);
      expect(written.join("")).toContain(`every task the model wrote was contradicted by the server's results (1, e.g. "For a garden, what is 19 rows of 23 plants in all?": `);
      expect(written.join("")).toContain(`; nothing written to ${contradicted}`);

      const none = join(dir, "none.jsonl");
      const code2 = await main(["scenarios", "generate", "--server", "fixture:calculator", "--generator", "llm", "--llm-base-url", bad.url, "--llm-model", "test-model", "--llm-max-requests", "2", "--n", "2", "--out", none]);
      expect(code2).toBe(1);
      expect(existsSync(none)).toBe(false);
      expect(written.join("")).toMatch(/HTTP 502/);
      expect(written.join("")).not.toContain("sk-secret-key-xyz");
    } finally {
      spyErr.mockRestore();
      spyOut.mockRestore();
      if (oldKey === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = oldKey;
      await ok.close();
      await bad.close();
    }
  }, 120_000);
  it("replays each task's solution on the server: a confirmed answer keeps the calls as its reference, a contradicted one is dropped", async () => {
    const tasks = [
      // right: 17 * 23 = 391
      { task: "For a shop bill, what do 17 boxes at 23 dollars cost?", expected_answer: "391", answer_kind: "numeric", solution: [{ tool: "calculate", arguments_json: '{"expression": "17*23"}' }] },
      // the model's arithmetic is wrong: the server says 437
      { task: "For a garden, what is 19 rows of 23 plants in all?", expected_answer: "427", answer_kind: "numeric", solution: [{ tool: "calculate", arguments_json: '{"expression": "19*23"}' }] },
      // arguments the tool's schema refuses, and a tool the server lacks: kept, unverified
      { task: "For a recipe, how much is 3 times 250 grams?", expected_answer: "750", answer_kind: "numeric", solution: [{ tool: "calculate", arguments_json: '{"expr": "3*250"}' }] },
      { task: "For a loan, what is 12 squared in total?", expected_answer: "144", answer_kind: "numeric", solution: [{ tool: "square", arguments_json: '{"x": 12}' }] },
      // no solution, and arguments that are not JSON: kept, unverified
      { task: "For a class's marks, what is 40 plus 2 then?", expected_answer: "42", answer_kind: "numeric", solution: null },
      { task: "For a road trip, what is 300 divided by 4?", expected_answer: "75", answer_kind: "numeric", solution: [{ tool: "calculate", arguments_json: "300/4" }] },
    ].map((t) => ({ difficulty: 1, tags: [], ...t }));
    const server = await startChatServer(() => ({ content: JSON.stringify({ scenarios: tasks }) }));
    try {
      const r = await generateWithLlm(calc.tools, { ...base, baseUrl: server.url, n: 6 });
      const checked = await checkLlmScenarios(r.scenarios, r.solutions, calc);
      expect(checked.confirmed).toBe(1);
      const byTask = new Map(checked.scenarios.map((s) => [s.task, s]));
      expect(byTask.get(tasks[0].task)).toMatchObject({ reference: { calls: [{ name: "calculate", arguments: { expression: "17*23" } }], answer: "391" } });
      expect(byTask.get(tasks[0].task)?.tags).toContain("verified:replay");
      expect(byTask.has(tasks[1].task)).toBe(false);
      expect(checked.dropped).toHaveLength(1);
      expect(checked.dropped[0].detail).toMatch(/427/);
      expect(checked.scenarios).toHaveLength(5);
      for (const t of tasks.slice(2)) {
        expect(byTask.get(t.task)?.reference).toBeUndefined();
        expect(byTask.get(t.task)?.tags).not.toContain("verified:replay");
      }
      expect(checked.unreplayed.map((u) => u.why)).toEqual([
        expect.stringMatching(/^call 1 \(calculate\): .*expression/),
        "call 1: the server has no tool square",
        "call 1 (calculate): arguments_json is not JSON",
      ]);
      // the model was asked for its solution calls, in the strict schema
      const schema = JSON.stringify(server.requests[0].response_format?.json_schema?.schema);
      expect(schema).toContain('"solution"');
    } finally {
      await server.close();
    }
  });

  it("a task the server contradicts is replaced by a spare one of the reply, and a split of two or more always holds a test task", async () => {
    const things = ["boxes of tea", "garden chairs", "concert tickets", "bus passes", "paint tins"];
    const right = (i: number) => ({ task: `How much do ${i + 11} ${things[i]} cost at ${i + 23} dollars each?`, expected_answer: String((i + 11) * (i + 23)), answer_kind: "numeric", solution: [{ tool: "calculate", arguments_json: `{"expression": "${i + 11}*${i + 23}"}` }] });
    // the second task's answer is wrong: 2 + 2 is not 5
    const tasks = [right(0), { task: "For a garden, what is 2 plus 2 flower beds?", expected_answer: "5", answer_kind: "numeric", solution: [{ tool: "calculate", arguments_json: '{"expression": "2+2"}' }] }, right(1), right(2), right(3), right(4)].map((t) => ({ difficulty: 1, tags: [], ...t }));
    const server = await startChatServer(() => ({ content: JSON.stringify({ scenarios: tasks }) }));
    const dir = mkdtempSync(join(tmpdir(), "scen-llm-vet-"));
    const written: string[] = [];
    const spyErr = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true));
    const spyOut = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true));
    try {
      const out = join(dir, "five.jsonl");
      const code = await main(["scenarios", "generate", "--server", "fixture:calculator", "--generator", "llm", "--llm-base-url", server.url, "--llm-model", "test-model", "--n", "5", "--test-fraction", "0.5", "--out", out]);
      expect(code).toBe(0);
      const got = readScenarioFile(out);
      expect(got.map((x) => x.task)).toEqual([0, 2, 3, 4, 5].map((i) => tasks[i].task));
      expect(got.map((x) => x.id)).toEqual(["calculator-llm-0001", "calculator-llm-0002", "calculator-llm-0003", "calculator-llm-0004", "calculator-llm-0005"]);
      expect(got.every((x) => x.tags.includes("verified:replay"))).toBe(true);
      expect(got.filter((x) => x.split === "test").length).toBe(3); // round(2.5)
      expect(server.requests).toHaveLength(1);
      expect(written.join("")).toContain("checked on the server: 5 of 5 tasks confirmed by replaying their solution calls (tag verified:replay); 1 more dropped and replaced (no result states their expected answer: \"For a garden, what is 2 plus 2 flower beds?\": ");

      // 2 tasks at a test fraction of 0.2 round to no test task: one is held out all the same
      const two = await generateWithLlm(calc.tools, { ...base, baseUrl: server.url, n: 2, testFraction: 0.2 });
      expect(two.scenarios.map((x) => x.split).sort()).toEqual(["test", "train"]);
    } finally {
      spyErr.mockRestore();
      spyOut.mockRestore();
      await server.close();
    }
  });
});
