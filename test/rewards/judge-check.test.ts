/**
 * The judge preflight against a real OpenAI-compatible HTTP server: a model the endpoint lists
 * passes, one it does not list stops the run; an endpoint without GET /models is asked one
 * tiny completion with the judge model, which decides (a 429 only warns).
 */
import { afterEach, describe, expect, it } from "vitest";
import { TrainMcpError } from "../../src/errors.js";
import { checkJudge } from "../../src/rewards/judge-check.js";
import { type ChatServer, startChatServer } from "../helpers/chat-server.js";

let server: ChatServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const refusal = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as TrainMcpError);

describe("checkJudge", () => {
  it("passes a listed model, and stops at a model the endpoint does not list", async () => {
    server = await startChatServer(() => ({ content: "OK" }), { models: ["judge-a", "judge-b"] });
    expect(await checkJudge({ baseURL: server.url, model: "judge-b" })).toBeUndefined();
    const e = await refusal(checkJudge({ baseURL: server.url, model: "judge-c" }));
    expect(e).toBeInstanceOf(TrainMcpError);
    expect(e!.usage).toBe(true);
    expect(e!.message).toBe(`--judge-model judge-c: ${server.url} does not serve it (did you mean judge-a?) (it serves judge-a, judge-b)`);
    expect(server.requests).toHaveLength(0); // the list decided: no completion asked
  });

  it("takes Ollama's name:latest for name; an Azure endpoint (deployment names, unlisted) is asked one completion instead", async () => {
    server = await startChatServer(() => ({ content: "OK" }), { models: ["llama3:latest", "qwen3:8b"] });
    expect(await checkJudge({ baseURL: server.url, model: "llama3" })).toBeUndefined();
    expect(server.requests).toHaveLength(0);
    // the listing names no deployment: the completion with the deployment's name decides
    const azure = `${server.url}?api-version=2024-10-21`;
    expect(await checkJudge({ baseURL: azure, model: "my-gpt4o-deployment" })).toBeUndefined();
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ model: "my-gpt4o-deployment", max_tokens: 1 });
    expect(server.queries.filter((q) => q !== "")).toEqual(["api-version=2024-10-21"]);
  });

  it("without GET /models, one one-token completion with the judge model decides: it answers, so the run goes on", async () => {
    server = await startChatServer(() => ({ content: "OK" }), { models: null });
    expect(await checkJudge({ baseURL: server.url, model: "judge-a" })).toBeUndefined();
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ model: "judge-a", max_tokens: 1 });
  });

  it("without GET /models, a completion that fails too stops the run with both reasons", async () => {
    server = await startChatServer((req) => ({ status: 404, error: `The model '${req.model}' does not exist` }), { models: null });
    const e = await refusal(checkJudge({ baseURL: server.url, model: "no-such-judge", apiKey: "sk-judge-0123456789abcdef" }, "OPENAI_API_KEY"));
    expect(e).toBeInstanceOf(TrainMcpError);
    expect(e!.code).toBe("ConfigInvalid");
    expect(e!.usage).toBe(true);
    expect(e!.message).toMatch(/^--judge-model no-such-judge at --judge-base-url http:\/\/127\.0\.0\.1:\d+\/v1: GET \/models failed \(404 .*\), and a one-token chat completion with it failed too \(404 .*The model 'no-such-judge' does not exist.*\), so every judgement would fail/);
    expect(e!.message).not.toContain("sk-judge");
  });

  it("without GET /models, a refused key or a rate limit on the completion: the key is named, the rate limit only warned of", async () => {
    server = await startChatServer(() => ({ status: 401, error: "bad key" }), { models: null });
    const e = await refusal(checkJudge({ baseURL: server.url, model: "judge-a" }, "JUDGE_KEY"));
    expect(e!.message).toBe(`--judge-base-url ${server.url} refused the key (HTTP 401): set $JUDGE_KEY to the judge's key`);
    await server.close();
    server = await startChatServer(() => ({ status: 429, error: "slow down" }), { models: null });
    expect(await checkJudge({ baseURL: server.url, model: "judge-a" })).toMatch(/^warning: --judge-base-url .*: GET \/models failed .*, and a test completion with judge-a was rate-limited \(429 .*\); using it unchecked$/);
  });
});
