/**
 * The embedded default: the committed tokenizer files load through the ordinary path, any text
 * round-trips, digits split one by one, the chat/tool tags are single tokens, the compact chat
 * template renders a tools conversation the tool-call parser reads back, and the BPE trainer is
 * deterministic.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { OpenAiTool } from "../../src/mcp/types.js";
import type { ChatMessage } from "../../src/rollout/trajectory.js";
import { resolveConfig } from "../../src/policy/config.js";
import { trainByteLevelBpe } from "../../src/policy/default-model/bpe-trainer.js";
import { DEFAULT_SPECIAL_TOKENS } from "../../src/policy/default-model/build-tokenizer.js";
import { stringLiterals } from "../../src/policy/default-model/corpus.js";
import { defaultModelDir, loadDefaultTokenizer } from "../../src/policy/default-model/index.js";
import { Rng } from "../../src/policy/sampling.js";
import { ChatTokenizer } from "../../src/policy/tokenizer.js";
import { formatToolCall, parseToolCalls } from "../../src/policy/tool-calls.js";

let tok: ChatTokenizer;
beforeAll(async () => {
  tok = await loadDefaultTokenizer();
});

const tools: OpenAiTool[] = [
  {
    type: "function",
    function: {
      name: "add",
      description: "Add two integers. Returns their sum as text.",
      parameters: { type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } }, required: ["a", "b"] },
    },
  },
  {
    type: "function",
    function: {
      name: "search",
      description: "Search the catalog by keyword.\nLonger details here.",
      parameters: {
        type: "object",
        properties: { query: { type: "string" }, sort: { enum: ["price", "name"] }, tags: { type: "array", items: { type: "string" } }, limit: { type: ["integer", "null"] } },
        required: ["query"],
      },
    },
  },
];

const conversation: ChatMessage[] = [
  { role: "system", content: "You are a helpful assistant." },
  { role: "user", content: "What is 12 + 30?" },
  { role: "assistant", content: "", tool_calls: [{ id: "call_1", type: "function", function: { name: "add", arguments: '{"a":12,"b":30}' } }] },
  { role: "tool", content: "42", tool_call_id: "call_1" },
  { role: "assistant", content: "12 + 30 = 42." },
];

describe("default tokenizer", () => {
  it("has the special tokens as single ids, eos = <|im_end|>, 2048 tokens", () => {
    DEFAULT_SPECIAL_TOKENS.forEach((t, id) => {
      expect(tok.encode(t.content)).toEqual([id]);
      expect(tok.encode(`x${t.content}y`)).toContain(id);
    });
    expect(tok.eosTokenIds).toEqual([tok.singleTokenId("<|im_end|>")]);
    expect(tok.padTokenId).toBe(tok.singleTokenId("<|endoftext|>"));
    expect(tok.vocabSize).toBe(2048);
    expect(tok.addedTokens.map((t) => t.content)).toEqual(DEFAULT_SPECIAL_TOKENS.map((t) => t.content));
    // the build copies chat_template.jinja into tokenizer_config.json: they must agree
    const config = JSON.parse(readFileSync(join(defaultModelDir(), "tokenizer_config.json"), "utf8")) as { chat_template: string };
    expect(config.chat_template).toBe(readFileSync(join(defaultModelDir(), "chat_template.jinja"), "utf8"));
    expect(tok.decode(tok.encode("<|im_start|>user\nhi<|im_end|>"), { skipSpecial: true })).toBe("user\nhi");
    expect(tok.decode(tok.encode("<tool_call>x</tool_call>"), { skipSpecial: true })).toBe("<tool_call>x</tool_call>");
  });

  it("round-trips arbitrary unicode text", () => {
    const rng = new Rng(99);
    const ranges: Array<[number, number]> = [[0x00, 0x7f], [0x80, 0x7ff], [0x800, 0xd7ff], [0xe000, 0xfffd], [0x10000, 0x10ffff], [0x300, 0x36f]];
    for (let i = 0; i < 300; i++) {
      const len = Math.floor(rng.next() * 60);
      let s = "";
      for (let j = 0; j < len; j++) {
        const [lo, hi] = ranges[Math.floor(rng.next() * ranges.length)];
        s += String.fromCodePoint(lo + Math.floor(rng.next() * (hi - lo + 1)));
      }
      expect(tok.decode(tok.encode(s))).toBe(s);
    }
    for (const s of ["", " ", "\n\n\n", "  leading", "trailing  ", "\r\n\t\u0000", "naïve café — “quotes” 😀👍🏽 中文 العربية"]) {
      expect(tok.decode(tok.encode(s))).toBe(s);
    }
  });

  it("splits digits one by one", () => {
    for (const s of ["1234567890", "x=2024;", " 3.14159", "id 1001"]) {
      const digits = tok.tokens(tok.encode(s)).map((t) => t.replace(/^Ġ/, "")).filter((t) => /\d/.test(t));
      expect(digits.every((t) => /^\d$/.test(t)), `${s}: ${JSON.stringify(digits)}`).toBe(true);
    }
    expect(tok.encode("9876543210").length).toBe(10);
  });

  it("renders a tools conversation compactly, and the assistant's call parses back", () => {
    const text = tok.renderChat(conversation, { tools, addGenerationPrompt: false });
    expect(text).toBe(
      "<|im_start|>system\nYou are a helpful assistant.\n\n# Tools\n" +
        'Call a tool with <tool_call>\n{"name": <tool>, "arguments": <object>}\n</tool_call>\n' +
        "- add(a: integer, b: integer): Add two integers\n" +
        '- search(query: string, sort?: "price"|"name", tags?: string[], limit?: integer|null): Search the catalog by keyword.<|im_end|>\n' +
        "<|im_start|>user\nWhat is 12 + 30?<|im_end|>\n" +
        `<|im_start|>assistant\n${formatToolCall("add", { a: 12, b: 30 })}<|im_end|>\n` +
        "<|im_start|>user\n<tool_response>\n42\n</tool_response><|im_end|>\n" +
        "<|im_start|>assistant\n12 + 30 = 42.<|im_end|>\n",
    );
    // what the model would sample for its first turn: from the generation prompt to <|im_end|>
    const prompt = tok.renderChat(conversation.slice(0, 2), { tools, addGenerationPrompt: true });
    expect(text.startsWith(prompt)).toBe(true);
    const ids = tok.encode(text);
    const promptIds = tok.encode(prompt);
    expect(ids.slice(0, promptIds.length)).toEqual(promptIds);
    const imEnd = tok.singleTokenId("<|im_end|>");
    const turn = ids.slice(promptIds.length, ids.indexOf(imEnd, promptIds.length));
    const parsed = parseToolCalls(tok.decode(turn));
    expect(parsed).toEqual({ content: "", reasoning: "", calls: [{ name: "add", arguments: { a: 12, b: 30 } }], errors: [] });
    console.log(`[default] 1-tool-call conversation (2 tools): ${ids.length} tokens; prompt ${promptIds.length}; tool-call turn ${turn.length}`);
    expect(ids.length).toBeLessThan(200);
    const oneTool = tok.encodeChat(conversation, { tools: tools.slice(0, 1), addGenerationPrompt: false });
    console.log(`[default] same conversation with only the add tool: ${oneTool.length} tokens`);
    expect(oneTool.length).toBeLessThan(150);
  });

  it("ships a config.json that resolves to a tiny model of the same architecture", () => {
    const cfg = resolveConfig(JSON.parse(readFileSync(join(defaultModelDir(), "config.json"), "utf8")));
    expect(cfg.vocabSize).toBeGreaterThanOrEqual(tok.vocabSize);
    expect(cfg.eosTokenIds).toEqual(tok.eosTokenIds);
    expect([cfg.hiddenSize, cfg.numLayers, cfg.numHeads, cfg.numKvHeads, cfg.headDim, cfg.intermediateSize]).toEqual([256, 4, 4, 2, 64, 768]);
    expect(cfg.tieWordEmbeddings).toBe(true);
    expect(cfg.qkvBias || cfg.qkNorm).toBe(false);
    const perLayer = 2 * cfg.hiddenSize * cfg.numHeads * cfg.headDim + 2 * cfg.hiddenSize * cfg.numKvHeads * cfg.headDim + 3 * cfg.hiddenSize * cfg.intermediateSize + 2 * cfg.hiddenSize;
    const params = cfg.vocabSize * cfg.hiddenSize + cfg.numLayers * perLayer + cfg.hiddenSize;
    expect(params).toBeGreaterThan(2e6);
    expect(params).toBeLessThan(6e6);
  });
});

describe("BPE trainer", () => {
  const corpus = ["the cat sat on the mat. the cat ate 123 rats.", "<|im_start|>the hat<|im_end|>", "the the the cat cat"];

  it("is deterministic and learns frequent words", () => {
    const a = trainByteLevelBpe(corpus, { vocabSize: 300, specialTokens: DEFAULT_SPECIAL_TOKENS });
    const b = trainByteLevelBpe(corpus, { vocabSize: 300, specialTokens: DEFAULT_SPECIAL_TOKENS });
    expect(JSON.stringify(a.tokenizerJson)).toBe(JSON.stringify(b.tokenizerJson));
    const t = ChatTokenizer.fromObjects(a.tokenizerJson, {});
    expect(t.tokens(t.encode("the cat"))).toEqual(["the", "Ġcat"]);
    expect(t.encode("<|im_start|>")).toEqual([1]);
    // special tokens never leak into merges
    const merges = (a.tokenizerJson.model as { merges: string[] }).merges;
    expect(merges.some((m) => m.includes("im_start"))).toBe(false);
    expect(a.vocabSize).toBe(t.vocabSize);
  });

  it("extracts string literals from source text", () => {
    expect(stringLiterals(`import x from "./a.js"; const s = "Add two \\"numbers\\"."; f('it\\'s', \`tpl\`);`)).toEqual(['Add two "numbers".', "it's", "tpl"]);
  });
});
