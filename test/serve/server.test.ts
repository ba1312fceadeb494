/**
 * `train-mcp serve` end to end through the real `openai` client: a server started in the test on
 * port 0 with the default tiny model (random weights, seed 0), onnxruntime engine. An untrained
 * model writes noise, so the checks are about the protocol: shapes, counts, logprobs, streaming
 * equal to the non-streamed text, determinism per seed, json_schema outputs that parse and
 * validate (the convincing test: garbage logits, valid documents), LoRA load/unload changing
 * outputs under the adapter's name only, OpenAI-shaped errors, and the bind address.
 */
import http from "node:http";
import * as tf from "@tensorflow/tfjs-core";
import { Ajv } from "ajv";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initRandomWeights, readModelConfig, saveCheckpoint } from "../../src/policy/weights.js";
import { startServer, type RunningServer } from "../../src/serve/server.js";
import { SCHEMAS } from "./schemas.js";
import { makeAdapter } from "./adapter.js";
import { tinyModelDir, untrainedDefaultModelDir } from "../train/helpers.js";
import { contextRefusal } from "../../src/rollout/context-refusal.js";

let server: RunningServer;
let client: OpenAI;
let adapterDir: string;
let untrained: string;
const ajv = new Ajv({ strict: false });
const user = (content: string) => [{ role: "user" as const, content }];

beforeAll(async () => {
  untrained = untrainedDefaultModelDir(0);
  server = await startServer({ model: untrained, servedModelName: "default", port: 0, engine: "auto" });
  adapterDir = fs.mkdtempSync(path.join(os.tmpdir(), "serve-lora-"));
  await makeAdapter(adapterDir, server.registry.config);
  client = new OpenAI({ baseURL: server.url, apiKey: "unused", maxRetries: 0 });
});

afterAll(async () => {
  await server?.close();
  if (adapterDir) fs.rmSync(adapterDir, { recursive: true, force: true });
});

const TOOLS: OpenAI.Chat.ChatCompletionTool[] = [
  {
    type: "function",
    function: {
      name: "add",
      description: "Add two numbers.",
      parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    },
  },
];

describe("serve", () => {
  it("binds 127.0.0.1 and lists the model", async () => {
    expect(server.host).toBe("127.0.0.1");
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(["default"]);
    expect((models.data[0] as unknown as { root: string }).root).toBe(untrained);
    // the root is no route: the 404 says where the API is
    const root = await fetch(server.url.replace(/\/v1$/, "/"));
    expect(root.status).toBe(404);
    expect(((await root.json()) as { error: { message: string } }).error.message).toBe("no route GET / (the API is under /v1: /v1/models, /v1/chat/completions)");
  });

  it("answers a chat with tools in the OpenAI shape, with usage", async () => {
    const noTools = await client.chat.completions.create({ model: "default", messages: user("add 2 and 3"), max_tokens: 8, temperature: 0, seed: 1 });
    const r = await client.chat.completions.create({ model: "default", messages: user("add 2 and 3"), tools: TOOLS, max_tokens: 8, temperature: 0, seed: 1 });
    expect(r.object).toBe("chat.completion");
    expect(r.choices).toHaveLength(1);
    const c = r.choices[0];
    expect(c.message.role).toBe("assistant");
    expect(["stop", "length", "tool_calls"]).toContain(c.finish_reason);
    expect(typeof c.message.content === "string" || (c.message.tool_calls?.length ?? 0) > 0).toBe(true);
    expect(r.usage!.completion_tokens).toBeGreaterThan(0);
    expect(r.usage!.completion_tokens).toBeLessThanOrEqual(8);
    expect(r.usage!.total_tokens).toBe(r.usage!.prompt_tokens + r.usage!.completion_tokens);
    // the tools went through the chat template into the prompt
    expect(r.usage!.prompt_tokens).toBeGreaterThan(noTools.usage!.prompt_tokens + 5);
    // history with an assistant tool call and a tool result renders too
    const follow = await client.chat.completions.create({
      model: "default",
      tools: TOOLS,
      max_tokens: 4,
      temperature: 0,
      messages: [
        { role: "system", content: "You add numbers." },
        { role: "user", content: "add 2 and 3" },
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "add", arguments: '{"a":2,"b":3}' } }] },
        { role: "tool", tool_call_id: "call_1", content: "5" },
      ],
    });
    expect(follow.usage!.prompt_tokens).toBeGreaterThan(r.usage!.prompt_tokens);
  });

  it("forces a valid tool call with tool_choice required or a named function", async () => {
    const tools: OpenAI.Chat.ChatCompletionTool[] = [
      ...TOOLS,
      { type: "function", function: { name: "lookup", description: "Find a word.", parameters: { type: "object", properties: { word: { type: "string", maxLength: 12 }, exact: { type: "boolean" } }, required: ["word"], additionalProperties: false } } },
    ];
    const schemas = new Map(tools.map((t) => [(t as OpenAI.Chat.ChatCompletionFunctionTool).function.name, ajv.compile((t as OpenAI.Chat.ChatCompletionFunctionTool).function.parameters as object)]));
    const choices: OpenAI.Chat.ChatCompletionToolChoiceOption[] = ["required", { type: "function", function: { name: "lookup" } }];
    for (const [k, tool_choice] of choices.entries()) {
      for (const seed of [1, 2]) {
        const r = await client.chat.completions.create({ model: "default", messages: user("look up 'cat'"), tools, tool_choice, max_tokens: 40, temperature: 1, seed });
        const c = r.choices[0];
        expect(c.finish_reason).toBe("tool_calls");
        expect(c.message.tool_calls).toHaveLength(1);
        const call = (c.message.tool_calls![0] as OpenAI.Chat.ChatCompletionMessageFunctionToolCall).function;
        if (k === 1) expect(call.name).toBe("lookup");
        const validate = schemas.get(call.name)!;
        expect(validate(JSON.parse(call.arguments)), call.arguments).toBe(true);
      }
    }
  });

  it("forces calls to tools with $defs (inlined), with pattern (not enforced, the rest is), and without parameters (none)", async () => {
    const point = { type: "object", properties: { x: { type: "number" }, y: { type: "number" } }, required: ["x", "y"], additionalProperties: false };
    const tools: OpenAI.Chat.ChatCompletionTool[] = [
      { type: "function", function: { name: "move", parameters: { type: "object", $defs: { Point: point }, properties: { to: { $ref: "#/$defs/Point", description: "where" } }, required: ["to"], additionalProperties: false } } },
      { type: "function", function: { name: "code", parameters: { type: "object", properties: { id: { type: "string", pattern: "^[A-Z]+$", maxLength: 6 } }, required: ["id"], additionalProperties: false } } },
      { type: "function", function: { name: "ping" } },
    ];
    const inlined = { type: "object", properties: { to: point }, required: ["to"], additionalProperties: false };
    const checks: Record<string, (a: Record<string, unknown>) => boolean> = {
      move: ajv.compile(inlined),
      code: (a) => Object.keys(a).join() === "id" && typeof a.id === "string" && a.id.length <= 6,
      ping: (a) => Object.keys(a).length === 0,
    };
    for (const name of Object.keys(checks)) {
      for (const seed of [1, 2, 3]) {
        const r = await client.chat.completions.create({ model: "default", messages: user("go"), tools, tool_choice: { type: "function", function: { name } }, max_tokens: 60, temperature: 1, seed });
        const call = (r.choices[0].message.tool_calls![0] as OpenAI.Chat.ChatCompletionMessageFunctionToolCall).function;
        expect(call.name).toBe(name);
        expect(checks[name](JSON.parse(call.arguments)), `${name}: ${call.arguments}`).toBe(true);
      }
    }
  });

  it("takes the nulls an echoed message carries, keeps tools in the prompt under tool_choice none, and refuses vLLM sampling fields it cannot honour", async () => {
    const reply = await client.chat.completions.create({ model: "default", messages: user("hi"), max_tokens: 4, seed: 1 });
    // what `messages.append(resp.choices[0].message.model_dump())` sends back
    const echoed = { ...reply.choices[0].message, refusal: null, function_call: null, tool_calls: null, name: null, audio: null };
    const body = { model: "default", messages: [...user("hi"), echoed, ...user("and?")], tools: null, tool_choice: null, parallel_tool_calls: null, user: null, max_tokens: 4 };
    const res = await fetch(`${server.url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    expect(res.status, await res.clone().text()).toBe(200);

    const usage = async (tool_choice: "auto" | "none") =>
      (await client.chat.completions.create({ model: "default", messages: user("hi"), tools: TOOLS, tool_choice, max_tokens: 1 })).usage!.prompt_tokens;
    expect(await usage("none")).toBe(await usage("auto"));

    for (const [field, value] of [["repetition_penalty", 1.3], ["min_tokens", 4], ["ignore_eos", true], ["guided_json", { type: "object" }], ["continue_final_message", true], ["add_generation_prompt", false]] as const) {
      const r = await fetch(`${server.url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "default", messages: user("x"), max_tokens: 2, [field]: value }) });
      expect(r.status, field).toBe(400);
      expect(((await r.json()) as { error: { param: string } }).error.param).toBe(field);
    }
    // the message says what is supported, not zod's "expected 0"
    const penalty = await fetch(`${server.url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "default", messages: user("x"), max_tokens: 2, presence_penalty: 0.5 }) });
    expect(((await penalty.json()) as { error: { message: string } }).error.message).toBe("presence_penalty: only 0 is supported");
    const guided = await fetch(`${server.url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "default", messages: user("x"), max_tokens: 2, guided_json: { type: "object" } }) });
    expect(((await guided.json()) as { error: { message: string } }).error.message).toBe("guided_json: vLLM's guided decoding: use response_format json_schema");
    // their neutral values are fine
    const neutral = await fetch(`${server.url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "default", messages: user("x"), max_tokens: 2, repetition_penalty: 1, min_tokens: 0, ignore_eos: false, add_generation_prompt: true }) });
    expect(neutral.status).toBe(200);
  });

  it("returns one logprob per generated token, all <= 0, with top alternatives", async () => {
    const r = await client.chat.completions.create({ model: "default", messages: user("hello"), max_tokens: 12, temperature: 0, seed: 3, logprobs: true, top_logprobs: 3 });
    const lp = r.choices[0].logprobs!.content!;
    expect(lp).toHaveLength(r.usage!.completion_tokens);
    for (const t of lp) {
      expect(t.logprob).toBeLessThanOrEqual(0);
      expect(t.top_logprobs).toHaveLength(3);
      // greedy: the chosen token is the most likely one
      expect(t.top_logprobs[0].logprob).toBeCloseTo(t.logprob, 6);
      expect(t.top_logprobs[0].logprob).toBeGreaterThanOrEqual(t.top_logprobs[2].logprob);
      expect(Array.isArray(t.bytes)).toBe(true);
    }
    // the tokens' raw bytes, read as UTF-8, are the content (a token may hold part of a character)
    expect(Buffer.from(lp.flatMap((t) => t.bytes!)).toString("utf8")).toBe(r.choices[0].message.content);
  });

  it("streams chunks that add up to the non-streamed text for the same seed", async () => {
    for (const temperature of [0, 1]) {
      const req = { model: "default", messages: user("tell me a story"), max_tokens: 16, temperature, seed: 11 };
      const whole = await client.chat.completions.create(req);
      const stream = await client.chat.completions.create({ ...req, stream: true, stream_options: { include_usage: true } });
      let text = "";
      let finish: string | null = null;
      let usage: OpenAI.CompletionUsage | undefined;
      let chunks = 0;
      for await (const chunk of stream) {
        chunks++;
        expect(chunk.object).toBe("chat.completion.chunk");
        if (chunk.usage) usage = chunk.usage;
        for (const c of chunk.choices) {
          text += c.delta.content ?? "";
          finish = c.finish_reason ?? finish;
        }
      }
      expect(chunks).toBeGreaterThan(2);
      expect(text).toBe(whole.choices[0].message.content);
      expect(finish).toBe(whole.choices[0].finish_reason);
      expect(usage?.completion_tokens).toBe(whole.usage!.completion_tokens);
    }
  });

  it("is deterministic for a seed, and n gives independent choices", async () => {
    const req = { model: "default", messages: user("pick a word"), max_tokens: 10, temperature: 1, seed: 5 };
    const a = await client.chat.completions.create(req);
    const b = await client.chat.completions.create(req);
    const c = await client.chat.completions.create({ ...req, seed: 6 });
    expect(b.choices[0].message.content).toBe(a.choices[0].message.content);
    expect(c.choices[0].message.content).not.toBe(a.choices[0].message.content);
    const two = await client.chat.completions.create({ ...req, n: 2 });
    expect(two.choices.map((x) => x.index)).toEqual([0, 1]);
    expect(two.choices[0].message.content).toBe(a.choices[0].message.content);
    expect(two.choices[1].message.content).not.toBe(two.choices[0].message.content);
  });

  it("cuts at a stop string", async () => {
    const base = await client.chat.completions.create({ model: "default", messages: user("count"), max_tokens: 24, temperature: 0, seed: 1 });
    const text = base.choices[0].message.content!;
    const stop = text.slice(8, 11);
    const r = await client.chat.completions.create({ model: "default", messages: user("count"), max_tokens: 24, temperature: 0, seed: 1, stop: [stop] });
    expect(r.choices[0].message.content).toBe(text.slice(0, text.indexOf(stop)));
    expect(r.choices[0].finish_reason).toBe("stop");
    // streamed, the same text: the stop string itself is never sent
    let streamed = "";
    for await (const chunk of await client.chat.completions.create({ model: "default", messages: user("count"), max_tokens: 24, temperature: 0, seed: 1, stop: [stop], stream: true }))
      for (const c of chunk.choices) streamed += c.delta.content ?? "";
    expect(streamed).toBe(r.choices[0].message.content);
  });

  it("enforces json_schema by constrained decoding: the random model's output validates", async () => {
    for (const [name, schema] of Object.entries(SCHEMAS)) {
      const validate = ajv.compile(schema as object);
      for (const seed of [1, 2, 3]) {
        const r = await client.chat.completions.create({
          model: "default",
          messages: user("Score the trajectories."),
          max_tokens: 40 + seed * 10,
          temperature: 1,
          seed,
          response_format: { type: "json_schema", json_schema: { name, schema: schema as Record<string, unknown>, strict: true } },
        });
        const text = r.choices[0].message.content!;
        expect(r.choices[0].finish_reason, text).toBe("stop");
        const doc: unknown = JSON.parse(text);
        expect(validate(doc), `${name} seed ${seed}: ${text} ${JSON.stringify(validate.errors)}`).toBe(true);
      }
    }
    const obj = await client.chat.completions.create({ model: "default", messages: user("json"), max_tokens: 30, temperature: 1, seed: 9, response_format: { type: "json_object" } });
    const parsed: unknown = JSON.parse(obj.choices[0].message.content!);
    expect(typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)).toBe(true);
  });

  it("rejects bad bodies with a 400 naming the field", async () => {
    const bad = async (body: Record<string, unknown>) => {
      try {
        await client.chat.completions.create(body as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming);
      } catch (e) {
        return e as InstanceType<typeof OpenAI.APIError>;
      }
      throw new Error("expected an error");
    };
    let e = await bad({ model: "default", messages: [{ role: "usr", content: "x" }] });
    expect(e.status).toBe(400);
    expect(e).toBeInstanceOf(OpenAI.BadRequestError);
    expect((e.error as { param: string }).param).toBe("messages.0.role");
    e = await bad({ model: "default", messages: user("x"), temperature: 7 });
    expect((e.error as { param: string }).param).toBe("temperature");
    expect(e.message).toMatch(/temperature/);
    // a strict schema is refused what constrained decoding cannot promise; a loose one is followed
    // as far as it can be (the object, its keys and types), as OpenAI reads `strict`
    const patterned = { type: "object", properties: { a: { type: "string", pattern: "^a", format: "email" }, b: { oneOf: [{ const: "x" }, { const: "y" }] } }, required: ["a", "b"], additionalProperties: false };
    e = await bad({ model: "default", messages: user("x"), response_format: { type: "json_schema", json_schema: { name: "x", schema: patterned, strict: true } } });
    expect(e.status).toBe(400);
    expect((e.error as { param: string }).param).toBe("response_format.json_schema.schema.properties.a.pattern");
    const loose = await client.chat.completions.create({ model: "default", messages: user("x"), seed: 3, max_tokens: 60, response_format: { type: "json_schema", json_schema: { name: "x", schema: patterned } } });
    const value = JSON.parse(loose.choices[0].message.content ?? "") as Record<string, unknown>;
    expect(Object.keys(value).sort()).toEqual(["a", "b"]);
    expect(typeof value.a).toBe("string");
    expect(["x", "y"]).toContain(value.b);
    // bounds no number of 24 characters meets: refused up front, not a 500 mid-decode
    e = await bad({ model: "default", messages: user("x"), response_format: { type: "json_schema", json_schema: { name: "x", schema: { type: "integer", minimum: 1e25 } } } });
    expect(e.status).toBe(400);
    expect(e.message).toMatch(/no integer of at most 24 characters satisfies the bounds/);
    e = await bad({ model: "nope", messages: user("x") });
    expect(e.status).toBe(404);
    expect(e.code).toBe("model_not_found");
    const res = await fetch(`${server.url}/chat/completions`, { method: "POST", body: "{not json" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/invalid JSON/);
    // what cannot be honoured is refused, not ignored
    e = await bad({ model: "default", messages: user("x"), logit_bias: { "3": -100 } });
    expect((e.error as { param: string }).param).toBe("logit_bias");
    e = await bad({ model: "default", messages: user("x"), top_logprobs: 2 });
    expect(e.message).toMatch(/top_logprobs needs logprobs: true/);
    e = await bad({ model: "default", messages: user("x"), functions: [{ name: "f", parameters: {} }] });
    expect(e.message).toBe("400 functions: functions (legacy function calling) is not supported: send tools and tool_choice");
    e = await bad({ model: "default", messages: user("x"), stream_options: { include_usage: true } });
    expect(e.message).toBe("400 stream_options: stream_options is only allowed when stream is true");
    e = await bad({ model: "default", messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "data:," } }] }] });
    expect(e.message).toBe('400 messages.0.content.0.type: content parts of type "image_url" are not supported: text only (no images or audio)');
    e = await bad({ model: "default", messages: [{ role: "user", content: null }] });
    expect(e.message).toBe("400 messages.0.content: content must be a string or a list of text parts");
    e = await bad({ model: "default", messages: user("x"), stop: Array.from({ length: 17 }, (_, i) => `s${i}`) });
    expect(e.message).toMatch(/^400 stop: at most 16 stop strings/);
    // a body over the limit gets its 413, not a reset connection
    const big = await fetch(`${server.url}/chat/completions`, { method: "POST", body: JSON.stringify({ model: "default", messages: user("x".repeat(17 * 2 ** 20)) }) });
    expect(big.status).toBe(413);
    // a 64-bit seed is an ordinary seed
    const seeded = await client.chat.completions.create({ model: "default", messages: user("x"), max_tokens: 4, seed: 9223372036854775807 });
    expect(seeded.choices).toHaveLength(1);
  });

  it("loads and unloads a PEFT LoRA adapter under its own name, safely with requests in flight", async () => {
    const dir = adapterDir;
    {
      const req = { messages: user("hello there"), max_tokens: 12, temperature: 0, seed: 2 };
      const before = await client.chat.completions.create({ model: "default", ...req });
      // the load is queued behind an in-flight generation, which keeps the base weights
      const [during, load] = await Promise.all([
        client.chat.completions.create({ model: "default", ...req }),
        fetch(`${server.url}/load_lora_adapter`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ lora_name: "tuned", lora_path: dir }) }),
      ]);
      expect(load.status, await load.clone().text()).toBe(200);
      expect(during.choices[0].message.content).toBe(before.choices[0].message.content);
      const models = await client.models.list();
      expect(models.data.map((m) => m.id).sort()).toEqual(["default", "tuned"]);
      const tuned = await client.chat.completions.create({ model: "tuned", ...req });
      const after = await client.chat.completions.create({ model: "default", ...req });
      expect(tuned.model).toBe("tuned");
      expect(tuned.choices[0].message.content).not.toBe(before.choices[0].message.content);
      expect(after.choices[0].message.content).toBe(before.choices[0].message.content);
      const dup = await fetch(`${server.url}/load_lora_adapter`, { method: "POST", body: JSON.stringify({ lora_name: "tuned", lora_path: dir }) });
      expect(dup.status).toBe(400);
      // vLLM's load_inplace: fresh weights under the same name (as a trainer pushes after a step)
      const inplace = await fetch(`${server.url}/load_lora_adapter`, { method: "POST", body: JSON.stringify({ lora_name: "tuned", lora_path: dir, load_inplace: true }) });
      expect(inplace.status).toBe(200);
      expect((await client.chat.completions.create({ model: "tuned", ...req })).choices[0].message.content).toBe(tuned.choices[0].message.content);
      const missing = await fetch(`${server.url}/load_lora_adapter`, { method: "POST", body: JSON.stringify({ lora_name: "x", lora_path: path.join(dir, "nope") }) });
      expect(missing.status).toBe(400);
      expect(((await missing.json()) as { error: { param: string } }).error.param).toBe("lora_path");
      // a LoRA run's directory: the error names the checkpoint to load instead
      const run = fs.mkdtempSync(path.join(os.tmpdir(), "lora-run-"));
      fs.mkdirSync(path.join(run, "checkpoints", "step-000004"), { recursive: true });
      const runDir = await fetch(`${server.url}/load_lora_adapter`, { method: "POST", body: JSON.stringify({ lora_name: "x", lora_path: run }) });
      expect(runDir.status).toBe(400);
      expect(((await runDir.json()) as { error: { message: string } }).error.message).toBe(
        `lora_path ${run} is a run directory, not a model: name one of its checkpoints, e.g. ${path.join(run, "checkpoints", "step-000004")} (the latest)`,
      );
      // an unload racing with requests for the adapter: each request succeeds or gets a 404, never a 500
      const post = (url: string, body: object) => fetch(`${server.url}${url}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      const racing = await Promise.all([
        post("/chat/completions", { model: "tuned", ...req }),
        post("/unload_lora_adapter", { lora_name: "tuned" }),
        post("/chat/completions", { model: "tuned", ...req }),
      ]);
      expect(racing[1].status).toBe(200);
      for (const r of [racing[0], racing[2]]) expect([200, 404], await r.clone().text()).toContain(r.status);
      await expect(client.chat.completions.create({ model: "tuned", ...req })).rejects.toMatchObject({ status: 404 });
    }
  });

  it("says when an adapter was trained on another base: refused with both named when the shapes do not fit, a warning when they do", async () => {
    const load = (name: string, dir: string) => fetch(`${server.url}/load_lora_adapter`, { method: "POST", body: JSON.stringify({ lora_name: name, lora_path: dir }) });
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "lora-base-"));
    try {
      // trained on this very folder: loaded without a word
      const own = path.join(tmp, "own");
      await makeAdapter(own, server.registry.config, 7, untrained);
      const ok = await load("own", own);
      expect(await ok.text()).toBe("Success: LoRA adapter 'own' added successfully.");
      expect(server.registry.get("own").warning).toBeUndefined();
      // trained on the built-in model's pretrained weights, served on a random-init copy of it: the
      // shapes fit, so it loads, with a warning naming both
      const builtIn = await load("builtin", adapterDir);
      expect(builtIn.status).toBe(200);
      const said = await builtIn.text();
      expect(said).toMatch(/^Success: LoRA adapter 'builtin' added successfully\. Warning: /);
      expect(said).toContain('trained on base model "default"');
      expect(said).toContain(`this server's base model is ${untrained} (served as "default")`);
      // a Hub id whose name is another model's (Qwen2.5-0.5B vs -Instruct have the same shapes)
      const hub = path.join(tmp, "hub");
      await makeAdapter(hub, server.registry.config, 7, "Qwen/Qwen2.5-0.5B-Instruct");
      expect(await (await load("hub", hub)).text()).toContain('trained on base model "Qwen/Qwen2.5-0.5B-Instruct"');
      // another model's shapes: refused, naming both bases
      const tiny = tinyModelDir(1);
      const other = path.join(tmp, "other");
      await makeAdapter(other, readModelConfig(tiny), 7, tiny);
      const bad = await load("other", other);
      expect(bad.status).toBe(400);
      const err = ((await bad.json()) as { error: { message: string; param: string } }).error;
      expect(err.param).toBe("lora_path");
      expect(err.message).toContain(`the adapter was trained on base model "${tiny}"`);
      expect(err.message).toContain(`this server's base model is ${untrained} (served as "default"), and the adapter does not fit it`);
      expect(server.registry.list().map((m) => m.name)).not.toContain("other");
    } finally {
      for (const n of ["own", "builtin", "hub"]) if (server.registry.list().some((m) => m.name === n)) await server.registry.unloadAdapter(n);
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("refuses a prompt over the context (400) and cuts max_tokens to the room the prompt leaves", async () => {
    const ctx = server.registry.config.maxPositions;
    const promptTokens = (n: number) => server.registry.tokenizer.encodeChat(user("7 ".repeat(n)), { addGenerationPrompt: true }).length;
    let n = 1;
    while (promptTokens(n) < ctx - 40) n++;
    const room = ctx - promptTokens(n);
    const r = await client.chat.completions.create({ model: "default", messages: user("7 ".repeat(n)), max_tokens: 4 * ctx, temperature: 0, seed: 3 });
    expect(r.usage!.prompt_tokens).toBe(ctx - room);
    expect(r.usage!.completion_tokens).toBe(room);
    expect(r.choices[0].finish_reason).toBe("length");
    try {
      await client.chat.completions.create({ model: "default", messages: user("7 ".repeat(2 * n)), max_tokens: 4 });
      throw new Error("expected a 400");
    } catch (e) {
      expect((e as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
      expect((e as InstanceType<typeof OpenAI.APIError>).code).toBe("context_length_exceeded");
      expect((e as Error).message).toMatch(new RegExp(`maximum context length is ${ctx} tokens. However, your messages resulted in \\d+ tokens`));
      expect(contextRefusal((e as Error).message)?.context).toBe(ctx);
    }
  });

  it("reports a port in use clearly", async () => {
    await expect(startServer({ model: "default", port: server.port })).rejects.toThrow(new RegExp(`port ${server.port} on 127.0.0.1 is already in use`));
  });
});

describe("serve options", () => {
  it("never echoes a file an adapter folder points at, and loads adapters over HTTP off loopback only with a key", async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "lora-leak-"));
    const secret = path.join(tmp, "secret.txt");
    fs.writeFileSync(secret, "root:x:0:0:TOPSECRET-line-of-a-private-file\n".repeat(20));
    const lines: string[] = [];
    const s = await startServer({ model: untrained, port: 0, host: "0.0.0.0", log: (l) => lines.push(l) });
    try {
      const url = `http://127.0.0.1:${s.port}/v1`;
      const load = (dir: string) => fetch(`${url}/load_lora_adapter`, { method: "POST", body: JSON.stringify({ lora_name: "x", lora_path: dir }) });
      const refused = await load(adapterDir);
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
        "/v1/load_lora_adapter is off on a server reachable from other machines (0.0.0.0) without --api-key: start serve with --api-key, or on 127.0.0.1",
      );
      const unload = await fetch(`${url}/unload_lora_adapter`, { method: "POST", body: JSON.stringify({ lora_name: "x" }) });
      expect(unload.status).toBe(403);
      expect(((await unload.json()) as { error: { type: string } }).error.type).toBe("permission_error");
      expect(lines.join("\n")).toContain("warning: listening on 0.0.0.0, reachable from other machines with no --api-key (loading LoRA adapters over HTTP is off until one is given)");
      // on loopback: the config or the weights linked to a private file fail without quoting it
      for (const linked of ["adapter_config.json", "adapter_model.safetensors"]) {
        const dir = path.join(tmp, linked);
        fs.cpSync(adapterDir, dir, { recursive: true });
        fs.rmSync(path.join(dir, linked));
        fs.symlinkSync(secret, path.join(dir, linked));
        const r = await fetch(`${server.url}/load_lora_adapter`, { method: "POST", body: JSON.stringify({ lora_name: "x", lora_path: dir }) });
        const message = ((await r.json()) as { error: { message: string } }).error.message;
        expect(r.status, message).toBe(400);
        expect(message).toMatch(linked === "adapter_config.json" ? /adapter_config\.json: not valid JSON/ : /adapter_model\.safetensors: not a safetensors file \(its header length runs past the end of the file, \d+ bytes\)/);
        expect(message).not.toMatch(/root|TOPSECRET|\d{12,}/);
      }
    } finally {
      await s.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("loads and unloads adapters over HTTP off loopback when the caller holds the --api-key", async () => {
    const s = await startServer({ model: untrained, port: 0, host: "0.0.0.0", apiKey: "sekret" });
    try {
      const post = (route: string, body: object) =>
        fetch(`http://127.0.0.1:${s.port}/v1/${route}`, { method: "POST", headers: { authorization: "Bearer sekret" }, body: JSON.stringify(body) });
      expect((await post("load_lora_adapter", { lora_name: "x", lora_path: adapterDir })).status).toBe(200);
      expect(s.registry.list().map((m) => m.name)).toContain("x");
      expect((await post("unload_lora_adapter", { lora_name: "x" })).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it("logs a request's path, never its query (a client may put its key there)", async () => {
    const lines: string[] = [];
    const s = await startServer({ model: "default", port: 0, engine: "tfjs", log: (l) => lines.push(l) });
    try {
      await fetch(`http://127.0.0.1:${s.port}/v1/models?api_key=QUERYKEY-12345`);
      expect(lines.some((l) => /^GET \/v1\/models\?… 200 \d+ms$/.test(l))).toBe(true);
      expect(lines.join("\n")).not.toContain("QUERYKEY");
    } finally {
      await s.close();
    }
  });

  it("warns in the log when an --adapter given at start was trained on another base", async () => {
    const lines: string[] = [];
    const s = await startServer({ model: untrained, port: 0, adapters: [{ name: "mine", path: adapterDir }], log: (l) => lines.push(l) });
    try {
      expect(s.registry.list().map((m) => m.name)).toEqual([path.basename(untrained), "mine"]);
      expect(lines.filter((l) => l.startsWith("warning: LoRA adapter \"mine\""))).toHaveLength(1);
      expect(lines.join("\n")).toContain(`was trained on base model "default" (adapter_config.json base_model_name_or_path), but this server's base model is ${untrained}`);
    } finally {
      await s.close();
    }
  });

  it("checks the bearer key when one is set, runs on the tfjs engine, loads --adapter at start", async () => {
    const dir = adapterDir;
    const s = await startServer({ model: "default", port: 0, apiKey: "sekret", engine: "tfjs", servedModelName: "tiny", adapters: [{ name: "mine", path: dir }] });
    try {
      expect(s.registry.list().map((m) => [m.name, m.parent])).toEqual([["tiny", null], ["mine", "tiny"]]);
      const anon = new OpenAI({ baseURL: s.url, apiKey: "wrong", maxRetries: 0 });
      await expect(anon.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
      const ok = new OpenAI({ baseURL: s.url, apiKey: "sekret", maxRetries: 0 });
      // the scheme's name is case-insensitive
      expect((await fetch(`${s.url}/models`, { headers: { authorization: "bearer sekret" } })).status).toBe(200);
      // the key guards /v1 only: another path is a 404 with or without it, /health stays open
      const root = s.url.replace(/\/v1$/, "");
      for (const p of ["/", "/nope", "/v2/models"]) {
        expect((await fetch(`${root}${p}`)).status, p).toBe(404);
        expect((await fetch(`${root}${p}`, { headers: { authorization: "Bearer sekret" } })).status, p).toBe(404);
      }
      expect((await fetch(`${root}/health`)).status).toBe(200);
      expect((await fetch(`${root}/v1/nope`)).status).toBe(401);
      const r = await ok.chat.completions.create({
        model: "tiny",
        messages: user("score"),
        max_tokens: 40,
        temperature: 1,
        seed: 4,
        response_format: { type: "json_schema", json_schema: { name: "ruler", schema: SCHEMAS.ruler as unknown as Record<string, unknown> } },
      });
      expect(r.system_fingerprint).toBe("train-mcp-tfjs");
      expect(ajv.validate(SCHEMAS.ruler, JSON.parse(r.choices[0].message.content!))).toBe(true);
      // no tensor leaks across requests (the KV cache and logits are disposed every step)
      const tensors = tf.memory().numTensors;
      await ok.chat.completions.create({ model: "mine", messages: user("again"), max_tokens: 6 });
      expect(tf.memory().numTensors).toBe(tensors);
    } finally {
      await s.close();
    }
  });
});

describe("serve --adapter at start", () => {
  it("names the --adapter flag, not the API's lora_path, when an adapter folder does not load", async () => {
    const missing = path.join(os.tmpdir(), "serve-no-such-adapter");
    const err = await startServer({ model: "default", port: 0, engine: "tfjs", adapters: [{ name: "mine", path: missing }] }).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toBe(`--adapter ${missing}: no such folder (expected a PEFT adapter folder)`);
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), "serve-empty-adapter-"));
    const noConfig = await startServer({ model: "default", port: 0, engine: "tfjs", adapters: [{ name: "mine", path: empty }] }).then(
      () => null,
      (e: Error) => e,
    );
    expect(noConfig?.message).toBe(`--adapter ${empty}: no adapter_config.json (expected a PEFT adapter folder)`);
    fs.rmSync(empty, { recursive: true, force: true });
    const twice = await startServer({ model: "default", port: 0, engine: "tfjs", adapters: [{ name: "mine", path: adapterDir }, { name: "mine", path: adapterDir }] }).then(
      () => null,
      (e: Error) => e,
    );
    expect(twice?.message).toBe(`--adapter "mine" is already loaded; give each --adapter its own name (NAME=DIR)`);
  });
});

describe("web pages", () => {
  it("refuses a foreign Origin or Host (a page, DNS rebinding); serves loopback pages and --allow-origin ones with CORS, preflights included", async () => {
    const s = await startServer({ model: "default", port: 0, engine: "tfjs", allowOrigins: ["https://app.example"] });
    try {
      const body = JSON.stringify({ model: "default", messages: user("hi"), max_tokens: 2 });
      const post = (headers: Record<string, string>) => fetch(`${s.url}/chat/completions`, { method: "POST", headers: { "content-type": "text/plain", ...headers }, body });
      const evil = await post({ origin: "https://evil.example" });
      expect(evil.status).toBe(403);
      expect(((await evil.json()) as { error: { message: string } }).error.message).toBe("requests from web pages at https://evil.example are refused; start serve with --allow-origin https://evil.example to allow them");
      // a name that resolves here but is not this server's: what DNS rebinding sends
      const rebound = await new Promise<number>((resolve, reject) => {
        const req = http.request(`${s.url}/models`, { headers: { host: `evil.example:${s.port}` } }, (res) => (res.resume(), resolve(res.statusCode ?? 0)));
        req.on("error", reject);
        req.end();
      });
      expect(rebound).toBe(403);
      const local = await post({ origin: "http://localhost:5173" });
      expect(local.status).toBe(200);
      expect(local.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
      const allowed = await post({ origin: "https://app.example" });
      expect(allowed.status).toBe(200);
      expect(allowed.headers.get("access-control-allow-origin")).toBe("https://app.example");
      const preflight = await fetch(`${s.url}/chat/completions`, { method: "OPTIONS", headers: { origin: "https://app.example", "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" } });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get("access-control-allow-methods")).toBe("GET, POST, OPTIONS");
      expect(preflight.headers.get("access-control-allow-headers")).toBe("authorization, content-type");
      // clients that are not browsers send no Origin: as before
      expect((await fetch(`${s.url}/models`)).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});

describe("batching", () => {
  it("decodes concurrent requests together, each as it would alone", async () => {
    const prompts = ["one", "two two", "three three three", "four"];
    const req = (content: string) => ({ model: "default", messages: user(content), max_tokens: 10, temperature: 0, seed: 1 });
    const alone: string[] = [];
    for (const p of prompts) alone.push((await client.chat.completions.create(req(p))).choices[0].message.content!);
    const before = server.scheduler.batchSizes.length;
    const joinedBefore = server.scheduler.joined;
    const together = await Promise.all(prompts.map((p) => client.chat.completions.create(req(p))));
    const sizes = server.scheduler.batchSizes.slice(before);
    // together: started as one batch, or joined the running one (continuous batching), as the
    // requests' arrival happened to fall
    expect(Math.max(...sizes) > 1 || server.scheduler.joined > joinedBefore).toBe(true);
    expect(sizes.length).toBeLessThan(prompts.length);
    expect(together.map((r) => r.choices[0].message.content)).toEqual(alone);
  });
});

describe("checkpoints", () => {
  it("serves a saved checkpoint folder (tiny model without a tokenizer: the embedded one)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "serve-ckpt-"));
    try {
      const config = server.registry.config;
      saveCheckpoint(dir, config, initRandomWeights(config, 42));
      const s = await startServer({ model: dir, port: 0 });
      try {
        const c = new OpenAI({ baseURL: s.url, apiKey: "unused", maxRetries: 0 });
        const models = await c.models.list();
        expect(models.data[0].id).toBe(path.basename(dir));
        expect((models.data[0] as unknown as { root: string }).root).toBe(dir);
        const r = await c.chat.completions.create({ model: path.basename(dir), messages: user("hi"), max_tokens: 5, temperature: 0 });
        const base = await client.chat.completions.create({ model: "default", messages: user("hi"), max_tokens: 5, temperature: 0 });
        expect(r.choices[0].message.content).not.toBe(base.choices[0].message.content); // other weights
      } finally {
        await s.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
