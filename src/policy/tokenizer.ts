/**
 * The policy's tokenizer: a Hugging Face `tokenizer.json` run by @huggingface/tokenizers (a
 * pure-JS port of the Rust crate: BPE/WordPiece/Unigram models, ByteLevel/Split/Digits
 * pre-tokenizers, added tokens), plus what `tokenizer_config.json` adds: the special-token
 * strings, whether a BOS is prepended, and the chat template (see chat-template.ts).
 *
 * Conventions follow transformers: `encode` never adds special tokens from the post-processor
 * (apply_chat_template tokenizes rendered text with add_special_tokens=False; a template that
 * wants a BOS writes it), except a BOS when the config sets `add_bos_token`. The EOS ids are the
 * config's eos_token plus any `eos_token_id` in generation_config.json / config.json (Qwen3 stops
 * on both <|im_end|> and <|endoftext|>).
 */
import { Tokenizer } from "@huggingface/tokenizers";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { OpenAiTool } from "../mcp/types.js";
import type { ChatMessage } from "../rollout/trajectory.js";
import { ChatTemplate, type ChatTemplateSource, type RenderOptions } from "./chat-template.js";

/** A special token as configs write it: the string, or an AddedToken object with `content`. */
const TokenStringSchema = z
  .union([z.string(), z.object({ content: z.string() }).passthrough()])
  .nullable()
  .optional()
  .transform((v) => (v == null ? null : typeof v === "string" ? v : v.content));

export const TokenizerConfigSchema = z
  .object({
    chat_template: z
      .union([z.string(), z.array(z.object({ name: z.string(), template: z.string() }))])
      .optional()
      .describe("Jinja chat template, or a list of named ones"),
    bos_token: TokenStringSchema,
    eos_token: TokenStringSchema,
    pad_token: TokenStringSchema,
    unk_token: TokenStringSchema,
    add_bos_token: z.boolean().optional().describe("prepend bos_token to every encode (default false)"),
    clean_up_tokenization_spaces: z.boolean().optional(),
  })
  .passthrough();
export type TokenizerConfig = z.infer<typeof TokenizerConfigSchema>;

const TokenizerJsonSchema = z
  .object({
    model: z.object({ type: z.string().optional(), vocab: z.unknown() }).passthrough(),
    added_tokens: z
      .array(z.object({ id: z.number().int(), content: z.string(), special: z.boolean().default(false) }).passthrough())
      .default([]),
  })
  .passthrough();

export interface DecodeOptions {
  /** drop special tokens (<|im_end|>, <|endoftext|>...) from the text (default false) */
  skipSpecial?: boolean;
}

export interface ChatRenderOptions extends Omit<RenderOptions, "tools" | "addGenerationPrompt"> {
  tools?: OpenAiTool[];
  addGenerationPrompt: boolean;
}

export interface FromObjectsOptions {
  /** extra EOS ids (from generation_config.json / config.json) */
  eosTokenIds?: number[];
  /** overrides the config's chat_template (a chat_template.jinja file) */
  chatTemplate?: ChatTemplateSource;
  /** where the objects came from, for error messages */
  where?: string;
}

function zodWhere(where: string, e: z.ZodError): Error {
  const i = e.issues[0];
  return new Error(`${where}: field "${i.path.join(".")}": ${i.message}`);
}

function readJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new Error(`${path}: cannot read: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${path}: invalid JSON: ${(e as Error).message}`);
  }
}

/** `eos_token_id` from a config.json or generation_config.json, when the file has one. */
function eosIdsIn(path: string): number[] {
  if (!existsSync(path)) return [];
  const v = (readJson(path) as { eos_token_id?: unknown }).eos_token_id;
  const ids = Array.isArray(v) ? v : v == null ? [] : [v];
  return ids.filter((x): x is number => Number.isInteger(x));
}

export class ChatTokenizer {
  readonly config: TokenizerConfig;
  /** ids that end a generation: eos_token and any configured eos_token_id, ascending */
  readonly eosTokenIds: number[];
  readonly padTokenId: number | null;
  readonly bosTokenId: number | null;
  /** largest token id + 1 (may be below a model's vocab_size, which pads its embedding) */
  readonly vocabSize: number;
  readonly eosToken: string | null;
  readonly padToken: string | null;
  readonly bosToken: string | null;
  /** null when the config has no chat template */
  readonly template: ChatTemplate | null;
  /** tokenizer.json's added tokens (chat markers, tool tags...), in id order */
  readonly addedTokens: ReadonlyArray<{ id: number; content: string; special: boolean }>;
  private readonly tok: Tokenizer;
  private readonly specialIds: Set<number>;
  private readonly addBos: boolean;

  private constructor(tok: Tokenizer, json: z.infer<typeof TokenizerJsonSchema>, config: TokenizerConfig, opts: FromObjectsOptions) {
    const where = opts.where ?? "tokenizer";
    this.tok = tok;
    this.config = config;
    const vocab = tok.get_vocab(true);
    let maxId = -1;
    for (const id of vocab.values()) if (id > maxId) maxId = id;
    this.vocabSize = maxId + 1;
    this.addedTokens = json.added_tokens.map((t) => ({ id: t.id, content: t.content, special: t.special })).sort((a, b) => a.id - b.id);
    this.specialIds = new Set(this.addedTokens.filter((t) => t.special).map((t) => t.id));
    const idOf = (field: string, token: string | null): number | null => {
      if (token === null) return null;
      const id = tok.token_to_id(token);
      if (id === undefined) throw new Error(`${where}: ${field} "${token}" is not in the vocabulary`);
      return id;
    };
    this.eosToken = config.eos_token ?? null;
    this.padToken = config.pad_token ?? null;
    this.bosToken = config.bos_token ?? null;
    this.bosTokenId = idOf("bos_token", this.bosToken);
    this.padTokenId = idOf("pad_token", this.padToken);
    const eos = new Set<number>(opts.eosTokenIds ?? []);
    const eosId = idOf("eos_token", this.eosToken);
    if (eosId !== null) eos.add(eosId);
    this.eosTokenIds = [...eos].sort((a, b) => a - b);
    this.addBos = config.add_bos_token === true && this.bosTokenId !== null;
    const source = opts.chatTemplate ?? config.chat_template;
    this.template = source === undefined ? null : new ChatTemplate(source, {
      bos_token: this.bosToken,
      eos_token: this.eosToken,
      pad_token: this.padToken,
      unk_token: config.unk_token ?? null,
    }, `${where}: chat_template`);
  }

  /** From parsed `tokenizer.json` and `tokenizer_config.json` objects. */
  static fromObjects(tokenizerJson: unknown, tokenizerConfig: unknown, opts: FromObjectsOptions = {}): ChatTokenizer {
    const where = opts.where ?? "tokenizer";
    const json = TokenizerJsonSchema.safeParse(tokenizerJson);
    if (!json.success) throw zodWhere(`${where}: tokenizer.json`, json.error);
    const config = TokenizerConfigSchema.safeParse(tokenizerConfig ?? {});
    if (!config.success) throw zodWhere(`${where}: tokenizer_config.json`, config.error);
    let tok: Tokenizer;
    try {
      tok = new Tokenizer(tokenizerJson as object, (tokenizerConfig ?? {}) as object);
    } catch (e) {
      throw new Error(`${where}: tokenizer.json is not supported by @huggingface/tokenizers: ${(e as Error).message}`);
    }
    return new ChatTokenizer(tok, json.data, config.data, opts);
  }

  /**
   * From a Hugging Face model folder: tokenizer.json (required), tokenizer_config.json,
   * chat_template.jinja (overrides the config's template, as newer transformers save it),
   * generation_config.json and config.json (extra EOS ids).
   */
  static async fromDir(dir: string): Promise<ChatTokenizer> {
    const tjPath = join(dir, "tokenizer.json");
    if (!existsSync(tjPath)) throw new Error(`${dir}: no tokenizer.json (a Hugging Face tokenizer folder needs one)`);
    const cfgPath = join(dir, "tokenizer_config.json");
    const config = existsSync(cfgPath) ? readJson(cfgPath) : {};
    const jinjaPath = join(dir, "chat_template.jinja");
    const chatTemplate = existsSync(jinjaPath) ? readFileSync(jinjaPath, "utf8") : undefined;
    const eosTokenIds = [...eosIdsIn(join(dir, "generation_config.json")), ...eosIdsIn(join(dir, "config.json"))];
    return ChatTokenizer.fromObjects(readJson(tjPath), config, { eosTokenIds, chatTemplate, where: dir });
  }

  /**
   * The end-of-generation id the chat template closes an assistant message with: Qwen's folders
   * list both <|endoftext|> (151643) and <|im_end|> (151645) as eos ids, and only the second is
   * what the template writes after a turn. Found by rendering a short exchange; the lowest eos id
   * when the template shows none (or there is no template).
   */
  turnEndId(): number | undefined {
    const marker = "§turn-end-probe§";
    let rendered: string;
    try {
      rendered = this.renderChat([{ role: "user", content: "hi" }, { role: "assistant", content: marker }], { addGenerationPrompt: false });
    } catch {
      return this.eosTokenIds[0];
    }
    const at = rendered.indexOf(marker);
    if (at < 0) return this.eosTokenIds[0];
    let best: { id: number; at: number } | undefined;
    for (const id of this.eosTokenIds) {
      const found = rendered.indexOf(this.decode([id]), at + marker.length);
      if (found >= 0 && (!best || found < best.at)) best = { id, at: found };
    }
    return best?.id ?? this.eosTokenIds[0];
  }

  /**
   * Why a model folder has no chat template to render conversations with (none in
   * tokenizer_config.json, no chat_template.jinja), or undefined when it has one; read without
   * loading tokenizer.json, so a start can refuse the folder at once.
   */
  static missingChatTemplate(dir: string): string | undefined {
    if (existsSync(join(dir, "chat_template.jinja"))) return undefined;
    const cfgPath = join(dir, "tokenizer_config.json");
    if (!existsSync(cfgPath)) return `${dir} has no chat template (no tokenizer_config.json, no chat_template.jinja); a chat model's folder has one of them`;
    let template: unknown;
    try {
      template = (readJson(cfgPath) as { chat_template?: unknown }).chat_template;
    } catch {
      return undefined; // an unreadable file is named when the tokenizer loads
    }
    if (template === undefined || template === null || template === "" || (Array.isArray(template) && template.length === 0))
      return `${cfgPath} has no chat_template, and there is no chat_template.jinja: a base model without one cannot play chat rollouts (add the template of its instruct sibling)`;
    return undefined;
  }

  /** Text → ids. Special-token strings in the text become their ids; no BOS unless add_bos_token
   *  (and never for a `continuation`: text that follows other ids, such as a turn of a conversation). */
  encode(text: string, opts: { continuation?: boolean } = {}): number[] {
    const ids = this.tok.encode(text, { add_special_tokens: false }).ids;
    if (this.addBos && !opts.continuation && ids[0] !== this.bosTokenId) ids.unshift(this.bosTokenId as number);
    return ids;
  }

  /** Ids → text. Ids outside the vocabulary decode to nothing (a model's padded rows). */
  decode(ids: readonly number[], opts: DecodeOptions = {}): string {
    // the library rejects an empty list; an empty completion is ordinary here
    if (ids.length === 0) return "";
    return this.tok.decode(ids as number[], { skip_special_tokens: opts.skipSpecial ?? false });
  }

  /** The token strings of the ids (byte-level symbols, e.g. "Ġworld"). */
  tokens(ids: readonly number[]): string[] {
    return ids.map((id) => this.tok.id_to_token(id) ?? `<unk:${id}>`);
  }

  tokenToId(token: string): number | undefined {
    return this.tok.token_to_id(token);
  }

  idToToken(id: number): string | undefined {
    return this.tok.id_to_token(id);
  }

  /** True for tokens marked special in tokenizer.json's added_tokens. */
  isSpecial(id: number): boolean {
    return this.specialIds.has(id);
  }

  /** The id of a token that must encode to exactly one id (e.g. "<tool_call>"), or an error. */
  singleTokenId(token: string): number {
    const id = this.tok.token_to_id(token);
    if (id === undefined) throw new Error(`tokenizer: "${token}" is not a single token in this vocabulary`);
    return id;
  }

  /** The conversation as text, through the chat template. */
  renderChat(messages: readonly ChatMessage[], opts: ChatRenderOptions): string {
    if (!this.template) throw new Error("tokenizer: tokenizer_config.json has no chat_template");
    return this.template.render(messages, opts);
  }

  /** renderChat then encode. */
  encodeChat(messages: readonly ChatMessage[], opts: ChatRenderOptions): number[] {
    return this.encode(this.renderChat(messages, opts));
  }
}
