/**
 * From model text to OpenAI response pieces: Hermes <tool_call> blocks become tool_calls with
 * JSON-text arguments and finish_reason "tool_calls"; the text outside stays the content;
 * streaming holds back what could still become a stop string or a tool-call tag; byte-level
 * tokens map back to their bytes.
 */
import { describe, expect, it } from "vitest";
import { releasable } from "../../src/serve/chat-completions.js";
import { buildMessage, byteLevelBytes } from "../../src/serve/response-builder.js";
import { reasoningOf } from "../../src/rollout/remote-policy.js";

describe("response builder", () => {
  it("with a reasoning parser, splits the thought off, also one the prompt opened", () => {
    const parse = { parse: true, opensThink: false };
    const a = buildMessage("<think>\nplan\n</think>\n\nHi.", "stop", false, Infinity, parse);
    expect(a.message).toEqual({ role: "assistant", content: "Hi.", reasoning: "plan" });
    // DeepSeek-R1's template opens <think> in the prompt: the reply is thought until </think>
    const b = buildMessage('plan\n</think>\n\n<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>', "stop", true, Infinity, { parse: true, opensThink: true });
    expect(b.message).toMatchObject({ content: null, reasoning: "plan" });
    expect(b.message.tool_calls?.map((c) => c.function.name)).toEqual(["f"]);
    expect(b.finishReason).toBe("tool_calls");
    // without the parser the same text is all content
    expect(buildMessage("<think>\nplan\n</think>\n\nHi.", "stop", false).message).toEqual({ role: "assistant", content: "<think>\nplan\n</think>\n\nHi." });
    // streaming holds back a tag still being written
    expect(releasable("<think>\nplan\n</thi", [], false, ["<think>", "</think>"])).toBe("<think>\nplan\n");
    // the thought as vLLM names it now (reasoning) and before 0.11 (reasoning_content)
    expect(reasoningOf({ reasoning: " plan " })).toBe("plan");
    expect(reasoningOf({ reasoning_content: "old" })).toBe("old");
    expect(reasoningOf({ content: "x" })).toBeUndefined();
  });

  it("turns Hermes tool calls into OpenAI tool_calls", () => {
    const text = 'Let me add.\n<tool_call>\n{"name": "add", "arguments": {"a": 2, "b": 3}}\n</tool_call>\n<tool_call>\n{"name": "echo", "arguments": {"s": "x"}}\n</tool_call>';
    const { message, finishReason } = buildMessage(text, "stop", true);
    expect(finishReason).toBe("tool_calls");
    expect(message.content).toBe("Let me add.");
    expect(message.tool_calls).toHaveLength(2);
    expect(message.tool_calls![0]).toMatchObject({ type: "function", function: { name: "add", arguments: '{"a":2,"b":3}' } });
    expect(JSON.parse(message.tool_calls![1].function.arguments)).toEqual({ s: "x" });
    expect(message.tool_calls![0].id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(message.tool_calls![0].id).not.toBe(message.tool_calls![1].id);
  });

  it("keeps plain text, and does not parse calls when tools are off", () => {
    expect(buildMessage("just words", "length", true)).toEqual({ message: { role: "assistant", content: "just words" }, finishReason: "length" });
    const call = '<tool_call>\n{"name": "add", "arguments": {}}\n</tool_call>';
    expect(buildMessage(call, "stop", false).message.tool_calls).toBeUndefined();
    const only = buildMessage(call, "stop", true);
    expect(only.message.content).toBeNull();
    expect(only.message.tool_calls![0].function.arguments).toBe("{}");
  });

  it("keeps only the first call when parallel tool calls are off", () => {
    const two = '<tool_call>\n{"name": "add", "arguments": {"a": 1}}\n</tool_call>\n<tool_call>\n{"name": "mul", "arguments": {"a": 2}}\n</tool_call>';
    expect(buildMessage(two, "stop", true).message.tool_calls!.map((c) => c.function.name)).toEqual(["add", "mul"]);
    const one = buildMessage(two, "stop", true, 1);
    expect(one.message.tool_calls!.map((c) => c.function.name)).toEqual(["add"]);
    expect(one.finishReason).toBe("tool_calls");
  });

  it("reports a call cut off by max_tokens as length", () => {
    const cut = buildMessage('<tool_call>\n{"name": "add", "arguments": {"a": 1}}', "length", true);
    expect(cut.finishReason).toBe("length");
  });

  it("returns a call cut off after its name as a partial tool call, and one cut inside its name as the text before it", () => {
    // as OpenAI does: the name, the arguments as far as they were written, finish_reason length
    const half = 'Let me add.\n<tool_call>\n{"name": "add", "arguments": {"a": 1';
    const partial = buildMessage(half, "length", true);
    expect(partial.finishReason).toBe("length");
    expect(partial.message.content).toBe("Let me add.");
    expect(partial.message.tool_calls!.map((c) => c.function)).toEqual([{ name: "add", arguments: '{"a": 1' }]);
    // the name whole, the arguments not begun: an empty arguments string
    expect(buildMessage('<tool_call>\n{"name": "add", "argu', "length", true).message.tool_calls!.map((c) => c.function)).toEqual([{ name: "add", arguments: "" }]);
    // cut inside the name: no content at all, no call
    expect(buildMessage('<tool_call>\n{"name": "ad', "length", true)).toEqual({ message: { role: "assistant", content: null }, finishReason: "length" });
    // a tag written inside the cut call's JSON string is part of that call
    const inner = buildMessage('Hi.\n<tool_call>\n{"name": "echo", "arguments": {"s": "<tool_call>', "length", true);
    expect(inner.message.content).toBe("Hi.");
    expect(inner.message.tool_calls!.map((c) => c.function)).toEqual([{ name: "echo", arguments: '{"s": "<tool_call>' }]);
    // a whole call before the cut one is kept; the cut one follows it when its name is whole
    const two = buildMessage('A.\n<tool_call>\n{"name": "add", "arguments": {}}\n</tool_call>\n<tool_call>\n{"name": "mu', "length", true);
    expect(two.message.content).toBe("A.");
    expect(two.message.tool_calls!.map((c) => c.function.name)).toEqual(["add"]);
    expect(two.finishReason).toBe("length");
    const both = buildMessage('<tool_call>\n{"name": "add", "arguments": {}}\n</tool_call>\n<tool_call>\n{"name": "mul", "arguments": {"a"', "length", true);
    expect(both.message.tool_calls!.map((c) => c.function)).toEqual([{ name: "add", arguments: "{}" }, { name: "mul", arguments: '{"a"' }]);
    // with the reasoning parser the thought still goes to `reasoning`
    const thought = buildMessage('<think>\nadd\n</think>\n\nOK.\n<tool_call>\n{"na', "length", true, Infinity, { parse: true, opensThink: false });
    expect(thought).toEqual({ message: { role: "assistant", content: "OK.", reasoning: "add" }, finishReason: "length" });
    // a broken call the model ended itself is what it wrote, as vLLM returns it; tools off: all text
    expect(buildMessage('<tool_call>\n{"name": "ad', "stop", true).message.content).toBe('<tool_call>\n{"name": "ad');
    expect(buildMessage(half, "length", false).message.content).toBe(half);
  });

  it("never returns a call to a tool that was not offered as a tool call", () => {
    const offered = new Set(["add"]);
    const stray = 'Hm.\n<tool_call>\n{"name": "percentage", "arguments": {"x": 1}}\n</tool_call>';
    const r = buildMessage(stray, "stop", true, Infinity, undefined, offered);
    expect(r.message.tool_calls).toBeUndefined();
    expect(r.message.content).toBe(stray);
    expect(r.finishReason).toBe("stop");
    // nor beside an offered one, nor cut off by max_tokens
    const mixed = '<tool_call>\n{"name": "add", "arguments": {}}\n</tool_call>\n' + stray;
    expect(buildMessage(mixed, "stop", true, Infinity, undefined, offered).message.tool_calls).toBeUndefined();
    expect(buildMessage('A.\n<tool_call>\n{"name": "percentage", "arguments": {"x', "length", true, Infinity, undefined, offered)).toEqual({ message: { role: "assistant", content: "A." }, finishReason: "length" });
    // the offered one is still a call
    expect(buildMessage(stray.replace("percentage", "add"), "stop", true, Infinity, undefined, offered).message.tool_calls!.map((c) => c.function.name)).toEqual(["add"]);
  });

  it("streams only text that cannot turn into a stop string or a tool call", () => {
    expect(releasable("hello wor", ["world"], false)).toBe("hello ");
    expect(releasable("hello", [], false)).toBe("hello");
    expect(releasable("say <tool_", [], true)).toBe("say ");
    expect(releasable('say <tool_call>{"name"', [], true)).toBe("say ");
    expect(releasable("caf\uFFFD", [], false)).toBe("caf");
    // a complete stop string is never sent, nor anything after it
    expect(releasable("hello world and more", ["world"], false)).toBe("hello ");
  });

  it("maps byte-level token strings to bytes", () => {
    expect(byteLevelBytes("Ġworld")).toEqual([32, 119, 111, 114, 108, 100]);
    expect(byteLevelBytes("Ċ")).toEqual([10]);
    expect(byteLevelBytes("Ã©")).toEqual([0xc3, 0xa9]);
  });
});
