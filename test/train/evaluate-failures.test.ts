/**
 * An evaluation in which every rollout fails (an endpoint that refuses the model, a server that
 * is down) is an error naming the first failure, not a 0% model; one that fails only some
 * rollouts still scores (a failed rollout is data), also when they were batched with the others.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TrainMcpError } from "../../src/errors.js";
import { defaultRewards } from "../../src/rewards/defaults.js";
import { RemotePolicy } from "../../src/rollout/remote-policy.js";
import { readScenarioFile } from "../../src/scenarios/io.js";
import { EvaluationFailed, evaluate } from "../../src/train/evaluate.js";
import { ServerSet } from "../../src/train/servers.js";
import { startChatServer, type ChatServer } from "../helpers/chat-server.js";
import { stdioTarget } from "../servers/launch.js";

describe("evaluate with failing rollouts", () => {
  let servers: ServerSet;
  let endpoint: ChatServer;
  const scenarios = readScenarioFile("scenarios/calculator.jsonl").filter((s) => s.split === "test").slice(0, 3);
  beforeAll(async () => {
    servers = await ServerSet.connect(["fixture:calculator"], "auto");
    // refuses the first scenario's requests only; answers the rest with a plain (wrong) answer
    endpoint = await startChatServer((req) =>
      req.model === "gone" || JSON.stringify(req.messages).includes(JSON.stringify(scenarios[0].task))
        ? { status: 404, error: `The model \`${req.model}\` does not exist.` }
        : { content: "42" },
    );
  });
  afterAll(async () => {
    await servers?.close();
    await endpoint?.close();
  });
  const run = (model: string) =>
    evaluate(scenarios, new RemotePolicy({ baseURL: endpoint.url, model, maxRetries: 0 }), servers, {
      k: 1,
      temperature: 0,
      seed: 1,
      maxTurns: 2,
      maxTokensPerTurn: 16,
      // all three in one batch: a refused request fails its own rollout only
      maxConcurrentRollouts: 4,
      toolTimeoutMs: 5000,
      components: defaultRewards({ hasExpectations: true }),
    });

  it("throws, naming the first failure, when every rollout fails", async () => {
    const e = await run("gone").then(() => undefined, (x: unknown) => x);
    expect(e).toBeInstanceOf(TrainMcpError);
    // a usage error (exit 2): the run cannot go on; the rollouts travel with it, for the run to keep
    expect((e as TrainMcpError).usage).toBe(true);
    expect((e as Error).message).toBe("evaluation: every rollout failed (3 of 3), the first with: policy: 404 The model `gone` does not exist.");
    expect((e as EvaluationFailed).trajectories).toHaveLength(3);
  });

  it("throws when every tool call fails on the server's side, and the model never reads a log path", async () => {
    const crashing = await ServerSet.connect([stdioTarget("everything", "--crash-on-call")], "off");
    const caller = await startChatServer(() => ({ content: '<tool_call>\n{"name": "echo", "arguments": {"text": "hi"}}\n</tool_call>' }));
    try {
      const tasks = [1, 2].map((i) => ({ id: `t${i}`, task: `say hi ${i}`, difficulty: 1, split: "test" as const, tags: [], expected: [{ kind: "contains" as const, value: "hi", caseSensitive: false }] }));
      const e = await evaluate(tasks, new RemotePolicy({ baseURL: caller.url, model: "m", maxRetries: 0 }), crashing, {
        k: 1, temperature: 0, seed: 1, maxTurns: 2, maxTokensPerTurn: 16, maxConcurrentRollouts: 4, toolTimeoutMs: 5000,
        components: defaultRewards({ hasExpectations: true }),
      }).then(() => undefined, (x: unknown) => x as Error);
      expect(e?.message).toMatch(/^evaluation: every tool call failed on the server's side \(4 of 4\), the first with: connection to the server lost during echo: .*stderr: .*crashing on purpose\)$/);
      expect(e?.message).not.toContain("log:");
    } finally {
      await crashing.close();
      await caller.close();
    }
  });

  it("refuses a server that lists no tools", async () => {
    await expect(ServerSet.connect([stdioTarget("everything", "--no-tools")], "off")).rejects.toThrow(/the server lists no tools, so there is nothing to play with$/);
  });

  it("scores an evaluation in which only some rollouts fail", async () => {
    const r = await run("test-model");
    expect(r.trajectories.map((t) => t.finish)).toEqual(["error", "answer", "answer"]);
    expect(r.n).toBe(3);
  });
});
