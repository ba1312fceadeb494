/**
 * RULER against a real OpenAI-compatible HTTP server (test/helpers/chat-server.ts) through the
 * real `openai` client: the request's shape (shared prefix once, ids, json_schema), identical
 * trajectories judged once, retries on 5xx / 429 / timeouts / malformed replies, the fallback
 * to the other rewards when the judge stays down (counted), and the API key never showing up in
 * anything the module returns or logs.
 */
import { afterEach, describe, expect, it } from "vitest";
import { scoreGroup } from "../../src/rewards/combine.js";
import { verifierReward } from "../../src/rewards/verifier.js";
import { DEFAULT_RUBRIC, rulerReward, rulerScore } from "../../src/rewards/ruler.js";
import type { RewardLogEvent } from "../../src/rewards/types.js";
import { startChatServer, type ChatHandler, type ChatRequest, type ChatServer } from "../helpers/chat-server.js";
import { group, scenario, trajectory, type Step } from "./build.js";

const KEY = "sk-test-9f8e7d6c5b4a39281706";

let server: ChatServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function userText(req: ChatRequest): string {
  return String(req.messages.find((m) => m.role === "user")?.content ?? "");
}

/** The ids and bodies of the <trajectory> blocks of a request. */
function blocks(req: ChatRequest): Array<{ id: string; body: string }> {
  return [...userText(req).matchAll(/<trajectory id="([^"]+)">\n([\s\S]*?)\n<\/trajectory>/g)].map((m) => ({ id: m[1], body: m[2] }));
}

/** A judge that gives 0.9 to trajectories that cancelled the order, 0.2 to the others. */
const fairJudge: ChatHandler = (req) => ({
  content: JSON.stringify({
    scores: blocks(req).map((b) => ({
      trajectory_id: b.id,
      explanation: b.body.includes("cancel_order") ? "cancelled the order" : "did not act",
      score: b.body.includes("cancel_order") ? 0.9 : 0.2,
    })),
  }),
});

function judgeCfg(url: string, extra: Record<string, unknown> = {}) {
  return { baseURL: url, model: "judge-model", apiKey: KEY, baseDelayMs: 5, maxDelayMs: 20, maxAttempts: 3, timeoutMs: 5_000, ...extra };
}

const get: Step = { name: "get_order", args: { order_id: 5003 }, result: '{"status":"placed"}' };
const cancel: Step = { name: "cancel_order", args: { order_id: 5003 }, result: '{"status":"cancelled"}' };

describe("rulerScore: the request", () => {
  it("sends the shared prefix once, one tagged block per trajectory, the rubric and a json_schema", async () => {
    server = await startChatServer(fairJudge);
    const ts = [
      trajectory({ steps: [get, cancel], answer: "Cancelled." }),
      trajectory({ steps: [get], answer: "It is placed." }),
      trajectory({ steps: [cancel], answer: "Done." }),
    ];
    const r = await rulerScore(
      ts.map((t) => t.messages),
      { judge: judgeCfg(server.url) },
    );
    expect(r.scores.map((s) => s.score)).toEqual([0.9, 0.2, 0.9]);
    expect(r.scores[1].explanation).toBe("did not act");
    expect(r).toMatchObject({ judged: 3, attempts: 1 });

    expect(server.requests).toHaveLength(1);
    const req = server.requests[0];
    expect(req.model).toBe("judge-model");
    // a reply cap, so a judge that rambles cannot take the endpoint's whole context
    expect(req.max_tokens).toBe(2048);
    expect(req.response_format?.type).toBe("json_schema");
    expect(req.response_format?.json_schema?.name).toBe("ruler_scores");
    expect(req.response_format?.json_schema?.strict).toBe(true);
    // the reply schema has one required key per trajectory id sent: a server enforcing it cannot
    // leave a trajectory out or score one twice
    const schema = req.response_format?.json_schema?.schema as { properties: { scores: { required: string[]; additionalProperties: boolean; properties: Record<string, { required: string[] }> } } };
    expect(schema.properties.scores.required).toEqual(["1", "2", "3"]);
    expect(schema.properties.scores.additionalProperties).toBe(false);
    expect(schema.properties.scores.properties["2"].required).toEqual(["explanation", "score"]);
    const system = String(req.messages[0].content);
    expect(req.messages[0].role).toBe("system");
    expect(system).toContain(DEFAULT_RUBRIC);

    const text = userText(req);
    // The system prompt and task of the agent appear exactly once, inside <context>.
    expect(text.split("You are a shop assistant").length - 1).toBe(1);
    expect(text.split("Cancel order 5003.").length - 1).toBe(1);
    expect(text.indexOf("<context>")).toBeLessThan(text.indexOf("You are a shop assistant"));
    expect(blocks(req).map((b) => b.id)).toEqual(["1", "2", "3"]);
    const first = JSON.parse(blocks(req)[0].body) as Array<{ role: string; tool_calls?: unknown[] }>;
    expect(first[0].role).toBe("assistant"); // the block starts after the shared prefix
    expect(first.filter((m) => m.tool_calls).length).toBe(2);
    expect(server.headers[0].authorization).toBe(`Bearer ${KEY}`);
  });

  it("shows the judge a turn whose tool-call markup did not parse as the model wrote it", async () => {
    server = await startChatServer(fairJudge);
    const raw = 'Cancelling. <tool_call>{"name": "cancel_order", "arguments": {"order_id": }</tool_call>';
    const broken = trajectory({ answer: "Sorry." });
    // as the tool environment records it: content without the markup, the text kept beside it
    broken.messages.splice(2, 0, { role: "assistant", content: "Cancelling.", raw_content: raw }, { role: "tool", content: "Error: tool_call 1: invalid JSON at position 40" });
    await rulerScore([broken.messages, trajectory({ steps: [cancel], answer: "Done." }).messages], { judge: judgeCfg(server.url) });
    const first = JSON.parse(blocks(server.requests[0])[0].body) as Array<{ role: string; content: string }>;
    expect(first[0]).toEqual({ role: "assistant", content: raw });
  });

  it("uses a user-supplied rubric instead of the default", async () => {
    server = await startChatServer(fairJudge);
    await rulerScore([trajectory({ answer: "a" }).messages, trajectory({ answer: "b" }).messages], {
      judge: judgeCfg(server.url),
      rubric: "- Prefer answers that mention the order number.",
    });
    const system = String(server.requests[0].messages[0].content);
    expect(system).toContain("Prefer answers that mention the order number.");
    expect(system).not.toContain(DEFAULT_RUBRIC);
  });

  it("judges identical trajectories once (tool-call ids ignored) and fans the score out", async () => {
    server = await startChatServer(fairJudge);
    const ts = [
      trajectory({ steps: [cancel], answer: "Done.", callIdPrefix: "a" }),
      trajectory({ steps: [get], answer: "Placed.", callIdPrefix: "b" }),
      trajectory({ steps: [cancel], answer: "Done.", callIdPrefix: "c" }),
      trajectory({ steps: [get], answer: "Placed.", callIdPrefix: "d" }),
    ];
    const r = await rulerScore(
      ts.map((t) => t.messages),
      { judge: judgeCfg(server.url) },
    );
    expect(blocks(server.requests[0]).map((b) => b.id)).toEqual(["1", "2"]);
    expect(r.scores.map((s) => [s.trajectoryId, s.score])).toEqual([
      ["1", 0.9],
      ["2", 0.2],
      ["1", 0.9],
      ["2", 0.2],
    ]);
    expect(r.judged).toBe(2);

    // All identical: one full trajectory, no <context>.
    const same = [ts[0], ts[2]].map((t) => t.messages);
    const r2 = await rulerScore(same, { judge: judgeCfg(server.url) });
    const req = server.requests[1];
    expect(blocks(req)).toHaveLength(1);
    expect(userText(req)).not.toContain("<context>");
    expect(userText(req)).toContain("You are a shop assistant");
    expect(r2.scores.map((s) => s.score)).toEqual([0.9, 0.9]);
  });

  it("clips long tool outputs for the judge but still tells the trajectories apart", async () => {
    server = await startChatServer(fairJudge);
    const big = (c: string) => trajectory({ steps: [{ ...get, result: c.repeat(20_000) + "END" }], answer: "ok" });
    const r = await rulerScore([big("a").messages, big("b").messages], { judge: judgeCfg(server.url), maxMessageChars: 500 });
    expect(r.judged).toBe(2);
    const text = userText(server.requests[0]);
    expect(text.length).toBeLessThan(3_000);
    expect(text).toMatch(/characters cut\]… .*END/);
  });

  it("makes no call for an empty input", async () => {
    server = await startChatServer(fairJudge);
    expect(await rulerScore([], { judge: judgeCfg(server.url) })).toEqual({ scores: [], judged: 0, attempts: 0 });
    expect(server.requests).toHaveLength(0);
  });
});

describe("rulerScore: retries", () => {
  const two = () => [trajectory({ steps: [cancel], answer: "Done." }).messages, trajectory({ answer: "No." }).messages];

  it("retries a 5xx and a 429, then succeeds", async () => {
    server = await startChatServer((req, i) => (i === 0 ? { status: 503, error: "overloaded" } : i === 1 ? { status: 429, error: "slow down" } : fairJudge(req, i)));
    const lines: string[] = [];
    const r = await rulerScore(two(), { judge: judgeCfg(server.url), log: (l) => lines.push(l) });
    expect(r.attempts).toBe(3);
    expect(r.scores.map((s) => s.score)).toEqual([0.9, 0.2]);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/HTTP 503/);
    expect(lines[1]).toMatch(/HTTP 429/);
    // no seed configured: none sent, the endpoint's own sampling applies
    expect(server.requests.map((q) => q.seed)).toEqual([undefined, undefined, undefined]);
  });

  it("sends the configured seed, a fresh one per attempt, so a retry is not the same draw", async () => {
    server = await startChatServer((req, i) => (i < 2 ? { status: 503, error: "overloaded" } : fairJudge(req, i)));
    const r = await rulerScore(two(), { judge: judgeCfg(server.url, { seed: 40 }) });
    expect(r.attempts).toBe(3);
    expect(server.requests.map((q) => q.seed)).toEqual([40, 41, 42]);
  });

  it("retries after a timeout", async () => {
    // 600 ms leaves the second (prompt) reply room on a loaded machine.
    server = await startChatServer((req, i) => (i === 0 ? { hangMs: 4_000 } : fairJudge(req, i)));
    const t0 = Date.now();
    const r = await rulerScore(two(), { judge: judgeCfg(server.url, { timeoutMs: 600 }) });
    expect(r.attempts).toBe(2);
    expect(Date.now() - t0).toBeLessThan(3_500); // did not wait for the hung reply
  });

  for (const [what, content, why] of [
    ["bad JSON", "{scores: oops", /not JSON/],
    ["a missing id", JSON.stringify({ scores: [{ trajectory_id: "1", explanation: "", score: 0.5 }] }), /lacks trajectory id\(s\) 2/],
    ["a score out of range", JSON.stringify({ scores: [{ trajectory_id: "1", explanation: "", score: 1.5 }, { trajectory_id: "2", explanation: "", score: 0 }] }), /score above 1/],
    ["an unknown id", JSON.stringify({ scores: [{ trajectory_id: "1", explanation: "", score: 1 }, { trajectory_id: "7", explanation: "", score: 0 }] }), /unknown trajectory id "7"/],
  ] as const) {
    it(`retries ${what} up to maxAttempts, then throws JudgeFailed`, async () => {
      server = await startChatServer(() => ({ content }));
      await expect(rulerScore(two(), { judge: judgeCfg(server!.url) })).rejects.toMatchObject({ code: "JudgeFailed", message: expect.stringMatching(why) });
      expect(server.requests).toHaveLength(3);
    });
  }

  it("accepts a fenced reply and numeric ids, and recovers from one malformed reply", async () => {
    server = await startChatServer((_req, i) =>
      i === 0
        ? { content: "I think trajectory 1 is best." }
        : { content: '```json\n{"scores":[{"trajectory_id":2,"explanation":"b","score":0},{"trajectory_id":1,"explanation":"a","score":1}]}\n```' },
    );
    const r = await rulerScore(two(), { judge: judgeCfg(server.url) });
    expect(r.scores.map((s) => s.score)).toEqual([1, 0]);
    expect(r.attempts).toBe(2);
  });

  it("reads the keyed form the schema asks for, and retries one that names an id it was not sent", async () => {
    let n = 0;
    server = await startChatServer(() => {
      n++;
      if (n === 1) return { content: JSON.stringify({ scores: { "1": { explanation: "a", score: 0.5 }, "7": { explanation: "b", score: 1 } } }) };
      return { content: JSON.stringify({ scores: { "2": { explanation: "did not act", score: 0.1 }, "1": { explanation: "done", score: 0.8 } } }) };
    });
    const ts = [trajectory({ steps: [cancel], answer: "Done." }), trajectory({ answer: "No." })];
    const r = await rulerScore(ts.map((t) => t.messages), { judge: judgeCfg(server.url) });
    expect(r.attempts).toBe(2);
    expect(r.scores.map((s) => [s.trajectoryId, s.score, s.explanation])).toEqual([
      ["1", 0.8, "done"],
      ["2", 0.1, "did not act"],
    ]);
  });

  it("does not retry a 400", async () => {
    server = await startChatServer(() => ({ status: 400, error: "unknown model judge-model" }));
    await expect(rulerScore(two(), { judge: judgeCfg(server!.url) })).rejects.toThrow(/not retryable.*HTTP 400/);
    expect(server.requests).toHaveLength(1);
  });
});

describe("rulerReward in scoreGroup", () => {
  const s = scenario({ expected: [{ kind: "contains", value: "cancelled" }] });
  const g = () =>
    group([
      trajectory({ steps: [get, cancel], answer: "Order cancelled." }),
      trajectory({ steps: [get], answer: "It is placed." }),
      trajectory({ steps: [get, cancel], answer: "Order cancelled.", callIdPrefix: "z" }),
    ]);

  it("scores the group, keeps explanations and counts calls", async () => {
    server = await startChatServer(fairJudge);
    const r = await scoreGroup(g(), s, [verifierReward(), rulerReward({ judge: judgeCfg(server.url) })]);
    expect(r.group.trajectories.map((t) => t.rewards.ruler)).toEqual([0.9, 0.2, 0.9]);
    expect(r.group.trajectories.map((t) => t.judgeExplanation)).toEqual(["cancelled the order", "did not act", "cancelled the order"]);
    expect(r.group.trajectories.map((t) => t.reward)).toEqual([(4 + 4 * 0.9) / 8, (4 * 0.2) / 8, (4 + 4 * 0.9) / 8]);
    expect(r.stats.counters).toEqual({ "ruler/judge_calls": 1, "ruler/attempts": 1, "ruler/retries": 0, "ruler/deduped": 1 });
    expect(r.stats.judgeFallbacks).toBe(0);
  });

  it("sends the judge the conversations without the credentials the servers were given", async () => {
    server = await startChatServer(fairJudge);
    const leaky = () =>
      group([trajectory({ steps: [get, cancel], answer: "Order cancelled. (the server said srv-plain-7731)" }), trajectory({ steps: [get], answer: "It is placed." })]);
    await scoreGroup(leaky(), s, [verifierReward(), rulerReward({ judge: judgeCfg(server.url) })], { secrets: ["srv-plain-7731"] });
    const sent = JSON.stringify(server.requests[0].messages);
    expect(sent).toContain("Order cancelled. (the server said [redacted])");
    expect(sent).not.toContain("srv-plain-7731");
  });

  it("falls back to the other rewards when the judge stays down, counts it, and never leaks the key", async () => {
    // A hostile server that echoes the key back in every error, as some gateways do.
    server = await startChatServer(() => ({ status: 500, error: `internal error for key ${KEY} (${KEY.slice(0, 10)}…)` }));
    const events: RewardLogEvent[] = [];
    const r = await scoreGroup(g(), s, [verifierReward(), rulerReward({ judge: judgeCfg(server.url) })], { log: (e) => events.push(e) });
    expect(server.requests).toHaveLength(3);
    expect(r.group.trajectories.map((t) => "ruler" in t.rewards)).toEqual([false, false, false]);
    expect(r.group.trajectories.map((t) => t.reward)).toEqual([1, 0, 1]); // verifier alone
    expect(r.stats.judgeFallbacks).toBe(1);
    expect(r.stats.missing).toEqual({ ruler: 3 });
    expect(r.stats.counters).toMatchObject({ "ruler/judge_calls": 1, "ruler/attempts": 3, "ruler/retries": 2 });
    expect(r.breakdown[0].missing.ruler).toMatch(/gave up after 3 attempt\(s\).*HTTP 500/);
    expect(events.filter((e) => e.level === "warn")).toHaveLength(3); // two retries, one fallback
    const everything = JSON.stringify({ r, events });
    expect(everything).toContain("internal error for key");
    expect(everything).not.toContain(KEY);
    expect(everything).not.toContain(KEY.slice(0, 10));
    expect(server.headers.every((h) => h.authorization === `Bearer ${KEY}`)).toBe(true);
  });

  it("falls back on replies that stay malformed, and counts it", async () => {
    server = await startChatServer(() => ({ content: JSON.stringify({ scores: [{ trajectory_id: "1", explanation: "only one", score: 0.5 }] }) }));
    const r = await scoreGroup(g(), s, [verifierReward(), rulerReward({ judge: judgeCfg(server.url) })]);
    expect(server.requests).toHaveLength(3);
    expect(r.stats.judgeFallbacks).toBe(1);
    expect(r.breakdown[1].missing.ruler).toMatch(/malformed reply: reply lacks trajectory id\(s\) 2/);
    expect(r.group.trajectories.map((t) => t.reward)).toEqual([1, 0, 1]);
    expect(r.group.trajectories.every((t) => t.judgeExplanation === undefined)).toBe(true);
  });

  it("stops at once, without retrying, when the caller aborts", async () => {
    server = await startChatServer(() => ({ hangMs: 2_000 }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const t0 = Date.now();
    const r = await scoreGroup(g(), s, [rulerReward({ judge: judgeCfg(server.url) })], { signal: controller.signal });
    expect(Date.now() - t0).toBeLessThan(1_500);
    expect(server.requests).toHaveLength(1);
    expect(r.breakdown[0].missing.ruler).toMatch(/aborted/);
  });

  it("falls back on a timeout that persists", async () => {
    server = await startChatServer(() => ({ hangMs: 1_000 }));
    const r = await scoreGroup(g(), s, [verifierReward(), rulerReward({ judge: judgeCfg(server.url, { timeoutMs: 150, maxAttempts: 2 }) })]);
    expect(r.stats.judgeFallbacks).toBe(1);
    expect(r.breakdown[0].missing.ruler).toMatch(/timed out after 150 ms/);
    expect(r.group.trajectories.map((t) => t.success)).toEqual([true, false, true]);
  });
});
