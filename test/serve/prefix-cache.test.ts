/**
 * Prefix caching in the onnxruntime engine: prompts that share whole leading blocks with one
 * prefilled before run only their new tokens, and decode exactly as an engine without the store
 * does (ids equal, log-probs within float rounding), alone or mixed with uncached prompts in one
 * batch or joining a running one. Then the store itself: block matching, LRU budget, no copy
 * stored for a prompt another one already covers; and the server's usage report of cached tokens.
 */
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { runBatch, type BatchMember, type GenerateParams, type GenerateResult } from "../../src/serve/generate.js";
import { generateBatch, greedy, noEosCodec } from "./greedy.js";
import { OrtEngine } from "../../src/serve/ort-engine.js";
import { PrefixStore } from "../../src/serve/prefix-cache.js";
import { startServer } from "../../src/serve/server.js";
import { CASES, randomIds, randomWeights } from "../onnx/helpers.js";
import { untrainedDefaultModelDir } from "../train/helpers.js";


function expectSame(got: GenerateResult, want: GenerateResult): void {
  expect(got.ids).toEqual(want.ids);
  got.logprobs!.forEach((l, t) => expect(l.logprob).toBeCloseTo(want.logprobs![t].logprob, 4));
}

describe("prefix caching (engine)", () => {
  for (const [name, c] of Object.entries(CASES)) {
    it(`${name}: cached prefixes decode as uncached prompts do`, async () => {
      const w = randomWeights(c, 9);
      const cached = await OrtEngine.create(c, w);
      const plain = await OrtEngine.create(c, w, { prefixCacheBytes: 0 });
      try {
        const V = c.vocabSize;
        const system = randomIds(40, V, 1); // a shared system turn: two whole blocks of 16, and 8 more
        const a = [...system, ...randomIds(10, V, 2)]; // 50 tokens: 3 whole blocks stored
        const b = [...system, ...randomIds(9, V, 3)]; // its first 2 blocks are a's
        const turn2 = [...a, ...randomIds(12, V, 4)]; // a's next turn: a's 3 blocks
        const fresh = randomIds(20, V, 5);
        const want = new Map<number[], GenerateResult>();
        for (const p of [a, b, turn2, fresh]) want.set(p, (await generateBatch(plain, noEosCodec, [greedy(p)]))[0]);

        expectSame((await generateBatch(cached, noEosCodec, [greedy(a)]))[0], want.get(a)!);
        expect(cached.prefixStats).toEqual({ promptTokens: a.length, cachedTokens: 0, computedTokens: a.length });
        // one batch: two prompts with a stored prefix and one without
        const batch = await generateBatch(cached, noEosCodec, [greedy(b), greedy(fresh, 8, 1), greedy(turn2, 8, 2)]);
        expectSame(batch[0], want.get(b)!);
        expectSame(batch[1], want.get(fresh)!);
        expectSame(batch[2], want.get(turn2)!);
        expect(cached.prefixStats.cachedTokens).toBe(32 + 48);
        expect(plain.prefixStats.cachedTokens).toBe(0);
      } finally {
        await cached.close();
        await plain.close();
      }
    });
  }

  it("a prompt sent several times at once (a GRPO group's first turn) is run once, with the store or without", async () => {
    const c = Object.values(CASES)[1];
    const w = randomWeights(c, 9);
    for (const prefixCacheBytes of [undefined, 0]) {
      const engine = await OrtEngine.create(c, w, { prefixCacheBytes });
      try {
        const prompt = randomIds(21, c.vocabSize, 8);
        const other = randomIds(9, c.vocabSize, 9);
        const alone = (await generateBatch(engine, noEosCodec, [greedy(prompt)]))[0];
        const before = engine.prefixStats.computedTokens;
        const group = await generateBatch(engine, noEosCodec, [greedy(prompt, 8, 1), greedy(other, 8, 2), greedy(prompt, 8, 3), greedy(prompt, 8, 4)]);
        for (const i of [0, 2, 3]) expectSame(group[i], alone);
        // with the store the prompt's first block is a hit (5 tokens run), without it 21 run once
        expect(engine.prefixStats.computedTokens - before).toBe(other.length + (prefixCacheBytes === 0 ? prompt.length : prompt.length - 16));
      } finally {
        await engine.close();
      }
    }
  });

  it("a joiner with a stored prefix joins a running batch and decodes as it would alone", async () => {
    const c = Object.values(CASES)[0];
    const w = randomWeights(c, 9);
    const cached = await OrtEngine.create(c, w);
    const plain = await OrtEngine.create(c, w, { prefixCacheBytes: 0 });
    try {
      const prefix = randomIds(33, c.vocabSize, 7);
      const first = [...prefix, 3, 4];
      const second = [...prefix, 5, 6, 7, 8];
      const want = (await generateBatch(plain, noEosCodec, [greedy(second, 6, 1)]))[0];
      const wantFirst = (await generateBatch(plain, noEosCodec, [greedy(first, 12, 0)]))[0];
      const got = new Map<number, GenerateResult>();
      const member = (p: GenerateParams): BatchMember => ({ params: p, done: (r) => got.set(p.index, r), fail: (e) => { throw e; } });
      let calls = 0;
      await runBatch(cached, noEosCodec, [member(greedy(first, 12, 0))], { admit: () => (calls++ === 2 ? [member(greedy(second, 6, 1))] : []) });
      expectSame(got.get(0)!, wantFirst);
      expectSame(got.get(1)!, want);
      expect(cached.prefixStats.cachedTokens).toBe(32);
    } finally {
      await cached.close();
      await plain.close();
    }
  });
});

describe("PrefixStore", () => {
  const kv = (n: number, fill: number) => [new Float32Array(n).fill(fill)];
  it("matches whole blocks, leaves the last token to run, and checks the tokens", () => {
    const store = new PrefixStore(1000, 4);
    const ids = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    store.insert(ids, kv(10, 1), kv(10, 1));
    expect(store.lookup([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])?.length).toBe(8); // 9 tokens before the last: 2 blocks
    expect(store.lookup([1, 2, 3, 4, 5, 6, 7, 8])?.length).toBe(4); // 8 would leave nothing to run
    expect(store.lookup([1, 2, 3, 4, 5, 0, 7, 8, 9])?.length).toBe(4);
    expect(store.lookup([0, 2, 3, 4, 5, 6, 7, 8, 9])).toBeNull();
    expect(store.lookup([1, 2, 3])).toBeNull();
    expect(store.lookup([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])?.capacity).toBe(10);
  });

  it("keeps within its budget, least recently used out first, and stores no covered prompt", () => {
    const store = new PrefixStore(20, 4);
    const a = [1, 1, 1, 1, 1, 1, 1, 1];
    const b = [2, 2, 2, 2, 2, 2, 2, 2];
    const c = [3, 3, 3, 3, 3, 3, 3, 3];
    store.insert(a, kv(8, 0), kv(8, 0));
    store.insert(b, kv(8, 0), kv(8, 0));
    store.insert(a.slice(0, 6), kv(6, 0), kv(6, 0)); // a prefix of a stored prompt: nothing new
    expect(store.size).toEqual({ prompts: 2, tokens: 16 });
    expect(store.lookup([...a, 9])).not.toBeNull(); // a is now the most recently used
    store.insert(c, kv(8, 0), kv(8, 0)); // 24 > 20: b goes
    expect(store.size).toEqual({ prompts: 2, tokens: 16 });
    expect(store.lookup([...b, 9])).toBeNull();
    expect(store.lookup([...a, 9])?.length).toBe(8);
    expect(store.lookup([...c, 9])?.length).toBe(8);
  });

  it("keeps a shared block findable when the newer prompt holding it goes", () => {
    const store = new PrefixStore(20, 4);
    const a = [1, 2, 3, 4, 5, 6, 7, 8];
    const b = [1, 2, 3, 4, 9, 9, 9, 9]; // shares a's first block
    store.insert(a, kv(8, 0), kv(8, 0));
    store.insert(b, kv(8, 0), kv(8, 0));
    expect(store.lookup([...a, 0])?.capacity).toBe(8); // a is now the most recently used
    store.insert([3, 3, 3, 3, 3, 3, 3, 3], kv(8, 0), kv(8, 0)); // over budget: b goes
    expect(store.lookup([...b, 0])?.length).toBe(4); // b's first block, from a
    expect(store.lookup([1, 2, 3, 4, 7, 7, 7])?.length).toBe(4);
  });

  it("drops a stored prompt that a new one extends (the turns of one conversation), so it does not crowd others out", () => {
    const store = new PrefixStore(30, 4);
    const turn1 = [1, 2, 3, 4, 5, 6, 7, 8];
    const other = [9, 9, 9, 9, 9, 9, 9, 9];
    const turn2 = [...turn1, 10, 11, 12, 13];
    const turn3 = [...turn2, 14, 15, 16, 17];
    for (const ids of [turn1, other, turn2, turn3]) {
      store.lookup(ids);
      store.insert(ids, kv(ids.length, 0), kv(ids.length, 0));
    }
    expect(store.size).toEqual({ prompts: 2, tokens: 24 }); // turn3 and other
    expect(store.lookup([...other, 0])?.length).toBe(8);
    expect(store.lookup([...turn1, 0])?.capacity).toBe(16); // turn1's blocks, from turn3
  });
});

describe("prefix caching (server)", () => {
  it("reports cached prompt tokens in usage, as OpenAI does, and leaves them out when caching is off", async () => {
    const model = untrainedDefaultModelDir(0);
    const system = { role: "system" as const, content: "You are a careful assistant. Use the tools to answer every question, and say what you did. ".repeat(3) };
    const ask = (content: string) => ({ model: "default", messages: [system, { role: "user" as const, content }], max_tokens: 4, temperature: 0 });
    const s = await startServer({ model, servedModelName: "default", port: 0, engine: "ort" });
    const off = await startServer({ model, servedModelName: "default", port: 0, engine: "ort", prefixCacheBytes: 0 });
    try {
      const client = new OpenAI({ baseURL: s.url, apiKey: "unused", maxRetries: 0 });
      const first = await client.chat.completions.create(ask("what is 2 + 2?"));
      expect(first.usage!.prompt_tokens_details!.cached_tokens).toBe(0);
      const second = await client.chat.completions.create(ask("and 3 + 3?"));
      const cached = second.usage!.prompt_tokens_details!.cached_tokens!;
      expect(cached % 16).toBe(0);
      expect(cached).toBeGreaterThanOrEqual(32);
      expect(cached).toBeLessThan(second.usage!.prompt_tokens);
      // streamed, with include_usage: the same figure
      let streamedUsage: OpenAI.CompletionUsage | undefined;
      for await (const chunk of await client.chat.completions.create({ ...ask("and 4 + 4?"), stream: true, stream_options: { include_usage: true } })) {
        if (chunk.usage) streamedUsage = chunk.usage;
      }
      expect(streamedUsage!.prompt_tokens_details!.cached_tokens).toBe(cached);
      // the same answers without the store, and no cached_tokens to report
      const plain = new OpenAI({ baseURL: off.url, apiKey: "unused", maxRetries: 0 });
      const again = await plain.chat.completions.create(ask("and 3 + 3?"));
      expect(again.choices[0].message.content).toBe(second.choices[0].message.content);
      expect(again.usage!.prompt_tokens_details).toBeUndefined();
    } finally {
      await s.close();
      await off.close();
    }
  });
});
