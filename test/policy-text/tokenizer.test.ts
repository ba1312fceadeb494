/**
 * ChatTokenizer behaviour that does not need the big Qwen3 files: folder loading and its
 * errors, extra EOS ids, add_bos_token, list-form chat templates. Uses the small default
 * tokenizer.json as the vocabulary.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../src/rollout/trajectory.js";
import { defaultModelDir } from "../../src/policy/default-model/index.js";
import { ChatTokenizer } from "../../src/policy/tokenizer.js";

const json: unknown = JSON.parse(readFileSync(join(defaultModelDir(), "tokenizer.json"), "utf8"));
const msgs: ChatMessage[] = [{ role: "user", content: "hi" }];
const addTool = { type: "function" as const, function: { name: "add", description: "", parameters: {} } };

describe("ChatTokenizer", () => {
  it("picks a named template from a list-form chat_template, as transformers does", () => {
    const t = ChatTokenizer.fromObjects(json, {
      eos_token: "<|im_end|>",
      chat_template: [{ name: "default", template: "D{{ messages|length }}" }, { name: "tool_use", template: "T{{ tools|length }}" }],
    });
    expect(t.template?.names).toEqual(["default", "tool_use"]);
    expect(t.renderChat(msgs, { addGenerationPrompt: false })).toBe("D1");
    expect(t.renderChat(msgs, { tools: [addTool], addGenerationPrompt: false })).toBe("T1");
    expect(t.renderChat(msgs, { tools: [addTool], addGenerationPrompt: false, templateName: "default" })).toBe("D1");
    expect(() => t.renderChat(msgs, { addGenerationPrompt: false, templateName: "nope" })).toThrow(/no template named "nope"/);
  });

  it("passes the special-token strings and extra variables to the template", () => {
    const t = ChatTokenizer.fromObjects(json, {
      bos_token: "<|endoftext|>",
      eos_token: { content: "<|im_end|>" },
      chat_template: "{{ bos_token }}|{{ eos_token }}|{{ add_generation_prompt }}|{{ flavour }}|{{ enable_thinking }}",
    });
    expect(t.renderChat(msgs, { addGenerationPrompt: true, extra: { flavour: "x" }, enableThinking: false })).toBe("<|endoftext|>|<|im_end|>|true|x|false");
  });

  it("prepends BOS only when add_bos_token says so, and never twice", () => {
    const plain = ChatTokenizer.fromObjects(json, { bos_token: "<|endoftext|>" });
    expect(plain.encode("hi")[0]).not.toBe(0);
    const bos = ChatTokenizer.fromObjects(json, { bos_token: "<|endoftext|>", add_bos_token: true });
    expect(bos.encode("hi")[0]).toBe(0);
    expect(bos.encode("<|endoftext|>hi").filter((id) => id === 0)).toHaveLength(1);
    expect(bos.bosTokenId).toBe(0);
  });

  it("loads a folder: extra EOS ids from generation_config.json, chat_template.jinja overrides", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tok-"));
    writeFileSync(join(dir, "tokenizer.json"), JSON.stringify(json));
    writeFileSync(join(dir, "tokenizer_config.json"), JSON.stringify({ eos_token: "<|im_end|>", chat_template: "config" }));
    writeFileSync(join(dir, "generation_config.json"), JSON.stringify({ eos_token_id: [2, 0] }));
    writeFileSync(join(dir, "chat_template.jinja"), "jinja file");
    const t = await ChatTokenizer.fromDir(dir);
    expect(t.eosTokenIds).toEqual([0, 2]);
    expect(t.renderChat(msgs, { addGenerationPrompt: false })).toBe("jinja file");
  });

  it("says what is wrong, and where", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tok-"));
    await expect(ChatTokenizer.fromDir(dir)).rejects.toThrow(`${dir}: no tokenizer.json`);
    writeFileSync(join(dir, "tokenizer.json"), "{ nope");
    await expect(ChatTokenizer.fromDir(dir)).rejects.toThrow(`${join(dir, "tokenizer.json")}: invalid JSON`);
    expect(() => ChatTokenizer.fromObjects(json, { eos_token: "<|nope|>" })).toThrow(/eos_token "<\|nope\|>" is not in the vocabulary/);
    expect(() => ChatTokenizer.fromObjects({ model: {} }, {})).toThrow(/tokenizer.json/);
    expect(() => ChatTokenizer.fromObjects(json, { chat_template: 3 })).toThrow(/tokenizer_config.json: field "chat_template"/);
    const noTemplate = ChatTokenizer.fromObjects(json, {});
    expect(() => noTemplate.renderChat(msgs, { addGenerationPrompt: true })).toThrow(/no chat_template/);
    const broken = ChatTokenizer.fromObjects(json, { chat_template: "{% for %}" });
    expect(() => broken.renderChat(msgs, { addGenerationPrompt: true })).toThrow(/cannot parse the Jinja template/);
  });
});
