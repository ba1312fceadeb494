import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "../../src/mcp/connect.js";
import { startFixtureHttp, type FixtureHttp } from "../../src/mcp/fixtures.js";
import type { Toolbox } from "../../src/mcp/types.js";
import { playGroups } from "../../src/rollout/group.js";
import type { Scenario } from "../../src/scenarios/schema.js";
import { startChatServer } from "../helpers/chat-server.js";
import { stdioTarget } from "../servers/launch.js";
import { call, lastToolResult, ScriptedPolicy } from "./scripted-policy.js";

const scenario = (id: string, task: string): Scenario => ({ id, task, difficulty: 1, split: "train", tags: [] });

/** calls calculate once, then answers with what the tool returned */
const calculatorScript = new ScriptedPolicy((c, turn) =>
  turn === 0 ? `Let me compute.\n${call("calculate", { expression: "17*23" })}` : `The answer is ${lastToolResult(c)}.`,
);

describe("rollouts on the calculator fixture", () => {
  let stdio: Toolbox;
  let http: FixtureHttp;
  let overHttp: Toolbox;
  beforeAll(async () => {
    stdio = await connect("fixture:calculator");
    http = await startFixtureHttp("calculator");
    overHttp = await connect(http.url);
  });
  afterAll(async () => {
    await stdio?.close();
    await overHttp?.close();
    await http?.close();
  });

  for (const transport of ["stdio", "http"] as const) {
    it(`plays a group over ${transport}: tool call, result, final answer`, async () => {
      const toolbox = transport === "stdio" ? stdio : overHttp;
      const { groups, release } = await playGroups([scenario("mul", "What is 17*23?")], calculatorScript, toolbox, {
        groupSize: 3,
        seed: 1,
      });
      await release();
      expect(groups).toHaveLength(1);
      expect(groups[0].trajectories).toHaveLength(3);
      for (const t of groups[0].trajectories) {
        expect(t.finish).toBe("answer");
        expect(t.turns).toBe(2);
        expect(t.toolCalls).toHaveLength(1);
        expect(t.toolCalls[0]).toMatchObject({ name: "calculate", isError: false, result: expect.stringContaining("391") });
        expect(t.finalAnswer).toContain("391");
        expect(t.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant"]);
        expect(t.messages[2].tool_calls?.[0].function.name).toBe("calculate");
        expect(JSON.parse(t.messages[2].tool_calls![0].function.arguments)).toEqual({ expression: "17*23" });
      }
    });
  }

  it("moves the progress count as rollouts end, not only when their batch ends", async () => {
    // "easy" answers at once; "hard" calls the tool twice first: the batch ends after round 3
    const policy = new ScriptedPolicy((c, turn) => (c.messages[1].content === "easy" || turn === 2 ? "done" : call("calculate", { expression: "1+1" })));
    const seen: Array<[number, number]> = [];
    const { release } = await playGroups([scenario("e", "easy"), scenario("h", "hard")], policy, stdio, { groupSize: 2, seed: 1, onProgress: (d, t) => seen.push([d, t]) });
    await release();
    expect(policy.batches).toEqual([4, 2, 2]);
    expect(seen[0]).toEqual([2, 4]); // the two easy rollouts, after the first round
    expect(seen.at(-1)).toEqual([4, 4]);
  });

  it("turns malformed calls and invalid arguments into observations, and counts them", async () => {
    const policy = new ScriptedPolicy((c, turn) => {
      if (turn === 0) return '<tool_call>\n{"name": "calculate", "arguments": {"expression": }\n</tool_call>';
      if (turn === 1) return call("calculate", { expr: "1+1" }); // wrong argument name
      if (turn === 2) return call("no_such_tool", {});
      return `Giving up: ${lastToolResult(c).slice(0, 20)}`;
    });
    const { groups } = await playGroups([scenario("bad", "What is 1+1?")], policy, stdio, { groupSize: 1, seed: 2 });
    const t = groups[0].trajectories[0];
    expect(t.finish).toBe("answer");
    expect(t.turns).toBe(4);
    expect(t.toolCalls.map((r) => r.error)).toEqual(["parse:invalid_json", "invalid_arguments", "unknown_tool"]);
    expect(t.toolCalls.every((r) => r.isError)).toBe(true);
    const toolMessages = t.messages.filter((m) => m.role === "tool").map((m) => m.content);
    expect(toolMessages).toHaveLength(3);
    expect(toolMessages.every((m) => m.startsWith("Error: "))).toBe(true);
    expect(toolMessages[1]).toMatch(/expression/);
    // what the model wrote stays in the trajectory (the template renders content and tool_calls)
    const malformed = t.messages.filter((m) => m.role === "assistant")[0];
    expect(malformed.raw_content).toBe('<tool_call>\n{"name": "calculate", "arguments": {"expression": }\n</tool_call>');
    expect(malformed.content).toBe("");
    // a turn that parsed keeps no second copy
    expect(t.messages.filter((m) => m.role === "assistant").slice(1).map((m) => m.raw_content)).toEqual([undefined, undefined, undefined]);
  });

  it("keeps a turn's text beside the calls that parsed when another call in it did not", async () => {
    const text = `First ${call("calculate", { expression: "1+1" })} then <tool_call>{"name": "calculate", "arguments": {"expression": "2*"</tool_call>`;
    const policy = new ScriptedPolicy((_c, turn) => (turn === 0 ? text : "done"));
    const { groups } = await playGroups([scenario("mixed", "What is 1+1?")], policy, stdio, { groupSize: 1, seed: 2 });
    const assistant = groups[0].trajectories[0].messages.find((m) => m.role === "assistant")!;
    expect(assistant.raw_content).toBe(text);
    expect(assistant.tool_calls?.map((c) => c.function.name)).toEqual(["calculate"]);
    expect(groups[0].trajectories[0].toolCalls.map((r) => r.error)).toEqual(["parse:invalid_json", undefined]);
  });

  it("stops at max turns, and batches every live rollout into one policy call per turn", async () => {
    const policy = new ScriptedPolicy(() => call("calculate", { expression: "2+2" }));
    const { groups } = await playGroups([scenario("a", "loop"), scenario("b", "loop")], policy, stdio, {
      groupSize: 4,
      seed: 3,
      maxTurns: 3,
    });
    const all = groups.flatMap((g) => g.trajectories);
    expect(all).toHaveLength(8);
    expect(all.every((t) => t.finish === "max_turns" && t.turns === 3 && t.toolCalls.length === 3)).toBe(true);
    expect(policy.batches).toEqual([8, 8, 8]);
  });
});

describe("rollouts facing faults (test server)", () => {
  let toolbox: Toolbox;
  beforeAll(async () => {
    toolbox = await connect(stdioTarget("everything"));
  });
  afterAll(async () => {
    await toolbox?.close();
  });

  it("records a tool that hangs as a timeout and goes on", async () => {
    const policy = new ScriptedPolicy((c, turn) => (turn === 0 ? call("sleep", { ms: 10_000 }) : `after: ${lastToolResult(c)}`));
    const t0 = Date.now();
    const { groups } = await playGroups([scenario("hang", "wait")], policy, toolbox, { groupSize: 1, seed: 4, toolTimeoutMs: 300 });
    expect(Date.now() - t0).toBeLessThan(5_000);
    const t = groups[0].trajectories[0];
    expect(t.toolCalls[0]).toMatchObject({ name: "sleep", isError: true, error: "timeout" });
    expect(t.finish).toBe("answer");
  });

  it("survives the server being killed mid-rollout: the call fails or reconnects, the rollout finishes", async () => {
    const policy = new ScriptedPolicy((c, turn) => {
      if (turn === 0) return call("pid", {});
      if (turn === 1) {
        process.kill(Number(lastToolResult(c).match(/\d+/)![0]), "SIGKILL");
        return call("echo", { text: "still here" });
      }
      if (turn === 2) return call("echo", { text: "again" });
      return "done";
    });
    const { groups } = await playGroups([scenario("kill", "survive")], policy, toolbox, { groupSize: 1, seed: 5 });
    const t = groups[0].trajectories[0];
    expect(t.finish).toBe("answer");
    expect(t.toolCalls).toHaveLength(3);
    // the call right after the kill may fail with a connection fault; the next one reconnects
    expect(t.toolCalls[2]).toMatchObject({ name: "echo", isError: false, result: expect.stringContaining("again") });
    expect(toolbox.stats().reconnects).toBeGreaterThanOrEqual(1);
  });

  it("gives each rollout its own server instance when isolated", async () => {
    const policy = new ScriptedPolicy((c, turn) => {
      if (turn === 0) return call("counter_inc", {});
      if (turn === 1) return call("counter_get", {});
      return `count ${lastToolResult(c)}`;
    });
    const { groups, release } = await playGroups([scenario("iso", "count")], policy, toolbox, { groupSize: 3, seed: 6, isolate: true });
    const g = groups[0];
    expect(new Set(g.toolboxes).size).toBe(3);
    for (const t of g.trajectories) expect(t.toolCalls[1].result.trim()).toMatch(/\b1\b/);
    // the instances stay open for state checks until released
    const after = await g.toolboxes[0].call("counter_get", {});
    expect(after.text).toMatch(/\b1\b/);
    await release();
  });

  it("runs a scenario's setup calls on each rollout's own instance before the model's first turn, and only there", async () => {
    const policy = new ScriptedPolicy((c, turn) => (turn === 0 ? call("counter_get", {}) : `count ${lastToolResult(c)}`));
    const seeded: Scenario = { ...scenario("setup", "count"), setup: [{ name: "counter_inc", arguments: {} }, { name: "counter_inc", arguments: {} }] };
    const { groups, release } = await playGroups([seeded], policy, toolbox, { groupSize: 2, seed: 7, isolate: true });
    // each instance saw its own two setup calls, none of the other rollout's; the model saw none
    for (const t of groups[0].trajectories) {
      expect(t.toolCalls.map((c) => c.name)).toEqual(["counter_get"]);
      expect(t.toolCalls[0].result.trim()).toMatch(/^2$/);
      expect(t.messages.filter((m) => m.role === "tool")).toHaveLength(1);
    }
    await release();
    // on the one shared instance the setups would pile up: refused, with what to do
    const shared = await playGroups([seeded], policy, toolbox, { groupSize: 1, seed: 8 });
    expect(shared.groups[0].trajectories[0]).toMatchObject({ finish: "error", error: expect.stringContaining("--isolate on") });
    // a setup call that fails is the rollout's error, not the model's
    const broken: Scenario = { ...seeded, setup: [{ name: "no_such_tool", arguments: {} }] };
    const failed = await playGroups([broken], policy, toolbox, { groupSize: 1, seed: 9, isolate: true });
    expect(failed.groups[0].trajectories[0]).toMatchObject({ finish: "error", turns: 0, error: expect.stringMatching(/^setup call 1 no_such_tool failed/) });
    await failed.release();
  });
});

describe("rollouts on a server that asks the user mid-call (elicitation, `model` mode)", () => {
  it("the simulated user fills the form in knowing the rollout's task", async () => {
    // the stand-in user takes the name and party size from the task it is shown, if it is shown one
    const user = await startChatServer((req) => {
      const m = /for (\w+ \w+), party of (\d+)/.exec(String(req.messages[1].content));
      return { content: JSON.stringify(m ? { name: m[1], guests: Number(m[2]) } : { name: "Someone", guests: 2 }) };
    });
    const toolbox = await connect(stdioTarget("everything", "--elicitation"), { timeoutMs: 10_000, elicitation: "model", sampling: { baseUrl: user.url, model: "user-sim" } });
    try {
      const policy = new ScriptedPolicy((c, turn) => (turn === 0 ? call("book_table", { restaurant: "Luigi's" }) : `Done: ${lastToolResult(c)}`));
      const { groups, release } = await playGroups([scenario("book", "Book a table at Luigi's for Grace Hopper, party of 3.")], policy, toolbox, { groupSize: 2, seed: 1 });
      await release();
      for (const t of groups[0].trajectories) expect(t.toolCalls[0]).toMatchObject({ name: "book_table", isError: false, result: "booked Luigi's for Grace Hopper, 3 guests, inside" });
      expect(String(user.requests[0].messages[1].content)).toContain("Book a table at Luigi's for Grace Hopper, party of 3.");
    } finally {
      await toolbox.close();
      await user.close();
    }
  }, 60_000);
});
