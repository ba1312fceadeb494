/**
 * promptRoomProblem: the first prompt of a rollout (system prompt, tools, task) against the
 * model's context, measured with a stand-in codec that counts characters as tokens.
 */
import { describe, expect, it } from "vitest";
import type { OpenAiTool } from "../../src/mcp/types.js";
import type { Scenario } from "../../src/scenarios/schema.js";
import type { ServerSet } from "../../src/train/servers.js";
import { MIN_ROOM, promptRoomProblem } from "../../src/train/prompt-room.js";

const codec = {
  renderChat: (messages: ReadonlyArray<{ content?: unknown }>, o: { tools?: OpenAiTool[] }) => messages.map((m) => String(m.content ?? "")).join("") + JSON.stringify(o.tools ?? []),
  encode: (text: string) => [...text].map((c) => c.charCodeAt(0)),
  decode: () => "",
};
const tool = (name: string, description: string): OpenAiTool => ({ type: "function", function: { name, description, parameters: { type: "object", properties: {} } } }) as OpenAiTool;
const scenario = (id: string, task: string, server?: string): Scenario => ({ id, task, difficulty: 1, split: "train", tags: [], ...(server ? { server } : {}) }) as Scenario;

function serverSet(tools: OpenAiTool[], known: string, instructions?: string): ServerSet {
  const entry = { target: known, toolbox: { openAiTools: () => tools, instructions, serverName: "srv" } };
  return {
    entries: [entry],
    entryFor: (s: Scenario) => {
      if (s.server && s.server !== known) throw new Error(`scenario ${s.id}: server "${s.server}" is not among the run's servers`);
      return entry;
    },
  } as unknown as ServerSet;
}

describe("prompt room", () => {
  it("names the server, its tools and the figures when the first prompt leaves fewer than MIN_ROOM tokens, and passes one that fits", () => {
    const many = serverSet(Array.from({ length: 28 }, (_, i) => tool(`git_tool_${i}`, "x".repeat(60))), "node git-mcp-server.js");
    const tasks = [scenario("a", "What is the current branch of the repository?"), scenario("b", "Count the commits.")];
    const problem = promptRoomProblem(codec, 2048, many, tasks, "sys");
    expect(problem).toMatch(/^the model's context holds 2048 tokens, and a rollout's first prompt on node git-mcp-server\.js already takes \d+ \(the system prompt with the server's 28 tools, their descriptions and schemas: \d+; the shortest task: the rest\)/);
    // the way out names the tools that take the most room, largest first, and how much must go
    const sized = serverSet([tool("small", "x"), tool("big", "x".repeat(900)), tool("mid", "x".repeat(400)), ...Array.from({ length: 10 }, (_, i) => tool(`t${i}`, "x".repeat(100)))], "node srv.js");
    const over = promptRoomProblem(codec, 1500, sized, tasks, "sys")!;
    const [, total] = /already takes (\d+) /.exec(over)!;
    expect(over).toMatch(/; offer fewer tools \(--tools NAMES, or --exclude-tools NAMES; the largest: big ~(\d+), mid ~(\d+), t0 ~(\d+) tokens; (\d+) tokens must go\), or train a model with a longer context \(--model\)$/);
    expect(Number(/; (\d+) tokens must go/.exec(over)![1])).toBe(Number(total) + MIN_ROOM - 1500);
    // each tool's own share: its JSON (the stand-in codec counts characters) and the list's comma
    const [big, mid, t0] = /the largest: big ~(\d+), mid ~(\d+), t0 ~(\d+)/.exec(over)!.slice(1).map(Number);
    expect([big - mid, mid - t0]).toEqual([500, 301]); // ("t0" is a character shorter than "mid")
    // the server's instructions take room too, and leaving them out is the first way named
    const said = "y".repeat(300);
    const withInstructions = promptRoomProblem(codec, 1500, serverSet(sized.entries[0].toolbox.openAiTools(), "node srv.js", said), tasks, "sys")!;
    expect(withInstructions).toMatch(/\(the system prompt with the server's instructions and 13 tools, their descriptions and schemas: \d+; the shortest task: the rest\)/);
    const [, dropped] = /leave out the server's instructions \(no --server-instructions: ~(\d+) tokens\), offer fewer tools/.exec(withInstructions)!;
    expect(Number(dropped)).toBe(said.length + '\n\nInstructions from the "srv" server:\n'.length);
    // one tool alone: nothing to leave out
    expect(promptRoomProblem(codec, 200, serverSet([tool("big", "x".repeat(900))], "node srv.js"), tasks, "sys")).toMatch(/leaving no room to write \(32 tokens at least\): every rollout would end with nothing written; train a model with a longer context \(--model\)$/);
    const fits = serverSet([tool("add", "Adds two numbers.")], "fixture:calculator");
    expect(promptRoomProblem(codec, 2048, fits, tasks, "sys")).toBeUndefined();
    // exactly MIN_ROOM tokens to spare is enough; one fewer is not
    const used = codec.encode(codec.renderChat([{ content: "sys" }, { content: "Count the commits." }], { tools: [tool("add", "Adds two numbers.")] })).length;
    expect(promptRoomProblem(codec, used + MIN_ROOM, fits, tasks, "sys")).toBeUndefined();
    expect(promptRoomProblem(codec, used + MIN_ROOM - 1, fits, tasks, "sys")).toMatch(/leaving no room to write/);
  });
  it("a scenario of a server the run does not have is left to the scenario checks, not thrown from here", () => {
    const set = serverSet([tool("add", "Adds two numbers.")], "fixture:calculator");
    expect(() => promptRoomProblem(codec, 2048, set, [scenario("a", "Add 2 and 3.", "fixture:shop"), scenario("b", "Add 4 and 5.")], "sys")).not.toThrow();
  });
});
