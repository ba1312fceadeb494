/**
 * Remote-policy rollouts against train-mcp's own `serve` (the built-in model, random weights):
 * the same rollout loop drives an OpenAI-compatible server over real HTTP, sending the tools
 * and tool messages in the OpenAI shape.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "../../src/mcp/connect.js";
import type { Toolbox } from "../../src/mcp/types.js";
import { playGroups } from "../../src/rollout/group.js";
import { RemotePolicy } from "../../src/rollout/remote-policy.js";
import { startServer } from "../../src/serve/server.js";
import { untrainedDefaultModelDir } from "../train/helpers.js";

describe("RemotePolicy against train-mcp serve", () => {
  let toolbox: Toolbox;
  let server: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    toolbox = await connect("fixture:calculator");
    server = await startServer({ model: untrainedDefaultModelDir(3), servedModelName: "default", port: 0, engine: "tfjs" });
  });
  afterAll(async () => {
    await toolbox?.close();
    await server?.close();
  });

  it("plays rollouts over HTTP: every turn answered, finish reasons recorded", async () => {
    const policy = new RemotePolicy({ baseURL: server.url, model: "default" });
    const { groups } = await playGroups(
      [{ id: "r1", task: "What is 2+3?", difficulty: 1, split: "test", tags: [] }],
      policy,
      toolbox,
      { groupSize: 2, seed: 1, maxTurns: 2, maxTokensPerTurn: 12, temperature: 1 },
    );
    const ts = groups[0].trajectories;
    expect(ts).toHaveLength(2);
    for (const t of ts) {
      expect(t.error).toBeUndefined();
      expect(["answer", "max_tokens", "max_turns"]).toContain(t.finish);
      expect(t.messages[0].role).toBe("system");
      expect(t.messages.filter((m) => m.role === "assistant").length).toBe(t.turns);
      // serve reports the sampler's log-probs: one array per turn, every value a log-probability
      expect(t.turnLogprobs).toHaveLength(t.turns);
      for (const lp of t.turnLogprobs!.flat()) expect(lp).toBeLessThanOrEqual(0);
    }
  });
  it("asks the server for no more than what is left of a rollout's completion budget", async () => {
    const policy = new RemotePolicy({ baseURL: server.url, model: "default" });
    const { groups } = await playGroups(
      [{ id: "r2", task: "What is 2+3?", difficulty: 1, split: "test", tags: [] }],
      policy,
      toolbox,
      { groupSize: 2, seed: 1, maxTurns: 3, maxTokensPerTurn: 12, maxCompletionTokens: 5, temperature: 1 },
    );
    for (const t of groups[0].trajectories) {
      expect(t.error).toBeUndefined();
      const generated = t.turnLogprobs!.flat().length;
      expect(generated).toBeLessThanOrEqual(5);
      // random weights rarely end a turn within 5 tokens: the budget is what stopped them
      if (t.finish === "max_tokens") expect(generated).toBe(5);
    }
    expect(groups[0].trajectories.some((t) => t.finish === "max_tokens")).toBe(true);
  });
});
