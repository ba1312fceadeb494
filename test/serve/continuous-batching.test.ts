/**
 * Continuous batching: requests that join a running onnxruntime batch between steps decode
 * exactly as they would alone, and so do the rows already running, through every cache layout
 * change (a joiner longer than the filled slots moves the running rows right; a joiner shorter is
 * padded; slots no live row needs are dropped as rows leave). Then the scheduler over HTTP: a
 * request sent while another streams joins it, and both answers equal their solo runs.
 */
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { generateBatch, greedy, noEosCodec } from "./greedy.js";
import { OrtEngine } from "../../src/serve/ort-engine.js";
import { runBatch, type BatchMember, type GenerateParams, type GenerateResult } from "../../src/serve/generate.js";
import { startServer } from "../../src/serve/server.js";
import { CASES, randomIds, randomWeights } from "../onnx/helpers.js";
import { untrainedDefaultModelDir } from "../train/helpers.js";


describe("continuous batching (engine)", () => {
  for (const [name, c] of Object.entries(CASES)) {
    it(`${name}: rows joining and leaving mid-flight decode as they would alone`, async () => {
      const engine = await OrtEngine.create(c, randomWeights(c, 5));
      try {
        const V = c.vocabSize;
        const a = greedy(randomIds(5, V, 1), 14, 0); // running from the start
        const b = greedy(randomIds(40, V, 2), 4, 1); // joins after step 2: longer than the filled slots
        const d = greedy(randomIds(3, V, 3), 12, 2); // joins after step 4: padded to the filled slots
        const e = greedy(randomIds(7, V, 4), 6, 3); // joins after b has left: slots were dropped
        const alone: GenerateResult[] = [];
        for (const p of [a, b, d, e]) alone.push((await generateBatch(engine, noEosCodec, [p]))[0]);

        const got = new Map<GenerateParams, GenerateResult>();
        const member = (p: GenerateParams): BatchMember => ({ params: p, done: (r) => got.set(p, r), fail: (err) => { throw err; } });
        const joinAt = new Map([[2, [b]], [4, [d]], [8, [e]]]);
        let steps = 0;
        const rooms: number[] = [];
        await runBatch(engine, noEosCodec, [member(a)], {
          admit: (room) => {
            rooms.push(room);
            return (joinAt.get(++steps) ?? []).map(member);
          },
          maxRows: 3,
        });
        [a, b, d, e].forEach((p, i) => {
          const r = got.get(p)!;
          expect(r.ids).toEqual(alone[i].ids);
          expect(r.ids).toHaveLength(p.maxTokens);
          r.logprobs!.forEach((l, t) => expect(l.logprob).toBeCloseTo(alone[i].logprobs![t].logprob, 4));
        });
        // admit is asked only for the room left under maxRows: 3 rows once b and d had joined
        expect(rooms.slice(0, 4)).toEqual([2, 2, 1, 1]);
        expect(Math.min(...rooms)).toBeGreaterThanOrEqual(1);
      } finally {
        await engine.close();
      }
    });
  }

  it("a joiner whose row cannot be built fails alone; one whose client left is not prefilled", async () => {
    const c = Object.values(CASES)[0];
    const engine = await OrtEngine.create(c, randomWeights(c, 5));
    try {
      const results: string[] = [];
      const member = (p: GenerateParams, tag: string): BatchMember => ({
        params: p,
        done: (r) => results.push(`${tag} done ${r.ids.length} ${r.finish}`),
        fail: (err) => results.push(`${tag} failed: ${(err as Error).name}`),
      });
      let calls = 0;
      await runBatch(engine, noEosCodec, [member(greedy([1, 2, 3], 5, 0), "running")], {
        admit: () =>
          calls++ > 0 ? [] : [member({ ...greedy([4], 5, 1), seed: Number.NaN }, "bad seed"), member({ ...greedy([5], 5, 2), aborted: () => true }, "gone")],
      });
      expect(results).toEqual(["bad seed failed: RangeError", "gone done 0 length", "running done 5 length"]);
    } finally {
      await engine.close();
    }
  });

  it("a row whose constraint fails mid-decode fails alone: the rows beside it decode as they would alone", async () => {
    const c = Object.values(CASES)[0];
    const engine = await OrtEngine.create(c, randomWeights(c, 5));
    try {
      const a = greedy([1, 2, 3], 8, 0);
      const alone = (await generateBatch(engine, noEosCodec, [a]))[0];
      let picks = 0;
      const broken = { pick: () => (++picks === 3 ? (() => { throw new Error("constraint broke"); })() : 7), advance: () => undefined, done: false };
      const results: string[] = [];
      const got: GenerateResult[] = [];
      await runBatch(engine, noEosCodec, [
        { params: a, done: (r) => got.push(r), fail: (err) => results.push(`a failed: ${(err as Error).message}`) },
        { params: { ...greedy([4, 5], 8, 1), constraint: broken }, done: () => results.push("b done"), fail: (err) => results.push(`b failed: ${(err as Error).message}`) },
      ]);
      expect(results).toEqual(["b failed: constraint broke"]);
      expect(got[0].ids).toEqual(alone.ids);
    } finally {
      await engine.close();
    }
  });

  it("fails the rows still running when the engine fails, and gives finished rows their result", async () => {
    const c = Object.values(CASES)[0];
    const engine = await OrtEngine.create(c, randomWeights(c, 5));
    const results: string[] = [];
    const member = (p: GenerateParams, tag: string): BatchMember => ({
      params: p,
      done: (r) => results.push(`${tag} done ${r.ids.length}`),
      fail: (err) => results.push(`${tag} failed: ${(err as Error).message}`),
    });
    await runBatch(engine, noEosCodec, [member(greedy([1, 2, 3], 2, 0), "short"), member(greedy([4, 5], 20, 1), "long")], {
      admit: () => {
        void engine.close(); // the session is released under the running batch
        return [];
      },
    });
    expect(results[0]).toBe("short done 2");
    expect(results[1]).toMatch(/^long failed: /);
    expect(results).toHaveLength(2);
  });
});

describe("continuous batching (server)", () => {
  it("a request sent while another streams joins its batch; both answer as they would alone", async () => {
    const user = (content: string) => [{ role: "user" as const, content }];
    const long = { model: "default", messages: user("tell me a long story"), max_tokens: 40, temperature: 0, seed: 1 };
    const short = { model: "default", messages: user("hi"), max_tokens: 6, temperature: 0, seed: 1 };
    for (const continuousBatching of [true, false]) {
      const s = await startServer({ model: untrainedDefaultModelDir(0), servedModelName: "default", port: 0, engine: "ort", continuousBatching });
      try {
        const client = new OpenAI({ baseURL: s.url, apiKey: "unused", maxRetries: 0 });
        const soloLong = (await client.chat.completions.create(long)).choices[0].message.content;
        const soloShort = (await client.chat.completions.create(short)).choices[0].message.content;
        const batches = s.scheduler.batchSizes.length;
        let shortAnswer: Promise<string | null> | null = null;
        let streamed = "";
        let chunksBeforeShortDone = 0;
        let shortDone = false;
        for await (const chunk of await client.chat.completions.create({ ...long, stream: true })) {
          streamed += chunk.choices[0]?.delta?.content ?? "";
          if (!shortDone) chunksBeforeShortDone++;
          // the first content chunk: the long request is decoding, so the short one arrives mid-batch
          shortAnswer ??= client.chat.completions.create(short).then((r) => {
            shortDone = true;
            return r.choices[0].message.content;
          });
        }
        expect(streamed).toBe(soloLong);
        expect(await shortAnswer).toBe(soloShort);
        if (continuousBatching) {
          expect(s.scheduler.joined).toBe(1);
          expect(s.scheduler.batchSizes.length).toBe(batches + 1); // one batch for both
        } else {
          expect(s.scheduler.joined).toBe(0);
          expect(s.scheduler.batchSizes.length).toBe(batches + 2); // the short one waited for the long one
        }
        // joined, the short answer came back before the long one had finished streaming
        if (continuousBatching) expect(chunksBeforeShortDone).toBeLessThan(40);
      } finally {
        await s.close();
      }
    }
  });
});
