/**
 * RULER with train-mcp's own `serve` as the judge endpoint (the built-in model, random weights):
 * the judge request goes through the real `openai` client and HTTP to a server that enforces the
 * request's json_schema by constrained decoding. The prose is nonsense, but every reply is a
 * document of the per-request schema — every trajectory id exactly once — so the only thing left
 * for RULER to reject is what strict-mode schemas cannot say: a score outside [0, 1].
 */
import { Ajv } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TrainMcpError } from "../../src/errors.js";
import { rulerScore } from "../../src/rewards/ruler.js";
import { dedupe, judgeReplyJsonSchema, judgeSystemPrompt, judgeUserPrompt, DEFAULT_RUBRIC } from "../../src/rewards/ruler-prompt.js";
import { startServer } from "../../src/serve/server.js";
import { trajectory, type Step } from "./build.js";
import { untrainedDefaultModelDir } from "../train/helpers.js";

const get: Step = { name: "get_order", args: { order_id: 5003 }, result: '{"status":"placed"}' };
const cancel: Step = { name: "cancel_order", args: { order_id: 5003 }, result: '{"status":"cancelled"}' };
const lists = [
  trajectory({ steps: [get, cancel], answer: "Cancelled." }),
  trajectory({ steps: [get], answer: "It is placed." }),
  trajectory({ answer: "No." }),
].map((t) => t.messages);

describe("RULER against train-mcp serve", () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    server = await startServer({ model: untrainedDefaultModelDir(3), servedModelName: "default", port: 0, engine: "tfjs" });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("serve answers the judge's own request with a document of its schema, every id once", async () => {
    const { text, ids } = judgeUserPrompt(dedupe(lists).unique);
    const schema = judgeReplyJsonSchema(ids);
    const validate = new Ajv({ strict: false }).compile(schema);
    for (const seed of [1, 2, 3]) {
      const res = await fetch(`${server.url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: "default",
          messages: [
            { role: "system", content: judgeSystemPrompt(DEFAULT_RUBRIC) },
            { role: "user", content: text },
          ],
          response_format: { type: "json_schema", json_schema: { name: "ruler_scores", schema, strict: true } },
          max_tokens: 160,
          seed,
        }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { choices: Array<{ message: { content: string } }> };
      const reply = JSON.parse(body.choices[0].message.content) as { scores: Record<string, { score: number }> };
      expect(validate(reply), JSON.stringify(validate.errors)).toBe(true);
      expect(Object.keys(reply.scores).sort()).toEqual(["1", "2", "3"]);
    }
  });

  it("rulerScore through the openai client: only the score range is left to reject, and it gives up after its attempts", async () => {
    const logs: string[] = [];
    const run = rulerScore(lists, {
      judge: { baseURL: server.url, model: "default", maxTokens: 160, temperature: 1, seed: 7, maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 },
      log: (m) => logs.push(m),
    });
    const err = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    // seeded (each attempt its own draw), so the outcome is fixed: random weights do not keep the
    // number in [0, 1]; were they to, every id must be scored
    if (err === undefined) return expect((await run).scores.map((s) => s.trajectoryId)).toEqual(["1", "2", "3"]);
    expect(err).toBeInstanceOf(TrainMcpError);
    expect(String(err)).toMatch(/gave up after 3 attempt/);
    expect(logs).toHaveLength(2);
    for (const m of [...logs, String(err)]) expect(m).toMatch(/malformed reply: .*scores\.\d+\.score: score (above 1|below 0)/);
  });
});
