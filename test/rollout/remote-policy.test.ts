import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "../../src/mcp/connect.js";
import type { Toolbox } from "../../src/mcp/types.js";
import { formatToolCall } from "../../src/policy/tool-calls.js";
import { playGroups } from "../../src/rollout/group.js";
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
});
