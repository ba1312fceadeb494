/**
 * Chat templates: renders a conversation to the exact text the model was trained on, with the
 * Jinja template from `tokenizer_config.json` (or `chat_template.jinja`), through
 * @huggingface/jinja. It passes the variables Hugging Face transformers' `apply_chat_template`
 * passes (messages, tools, add_generation_prompt, the special-token strings, plus extra
 * keyword arguments such as Qwen3's `enable_thinking`), and picks a named template the way
 * transformers does (`tool_use` when tools are given and the config has one, else `default`).
 *
 * Our messages carry tool-call arguments as JSON text (the OpenAI wire shape); HF templates
 * expect an object or a string (the Qwen ones `tojson` an object and print a string as is), so
 * arguments that parse to a JSON object are handed over as objects, anything else as the text.
 */
import { Template } from "@huggingface/jinja";
import type { OpenAiTool } from "../mcp/types.js";
import type { ChatMessage } from "../rollout/trajectory.js";

/** `chat_template` as configs carry it: one string, or a list of named templates. */
export type ChatTemplateSource = string | Array<{ name: string; template: string }>;

export interface RenderOptions {
  /** tools offered to the model, in the OpenAI function shape; none or [] renders no tools block */
  tools?: OpenAiTool[];
  /** append the header that opens the assistant's turn (default false) */
  addGenerationPrompt?: boolean;
  /** Qwen3: false renders an empty think block after the generation prompt; unset leaves the
   *  template's default (thinking allowed) */
  enableThinking?: boolean;
  /** pick a named template from a list-form chat_template (default: transformers' rule) */
  templateName?: string;
  /** more template variables, as extra keyword arguments to apply_chat_template */
  extra?: Record<string, unknown>;
}

/** The special-token strings templates refer to (`bos_token`, `eos_token`, ...). */
export interface TemplateTokens {
  bos_token?: string | null;
  eos_token?: string | null;
  pad_token?: string | null;
  unk_token?: string | null;
}

/** The message shape templates read: tool-call arguments as objects where they parse. */
export type TemplateMessage = Omit<ChatMessage, "tool_calls"> & {
  tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: Record<string, unknown> | string } }>;
};

/** JSON text → object when it is a JSON object; otherwise the text unchanged. */
export function argumentsForTemplate(text: string): Record<string, unknown> | string {
  try {
    const v: unknown = JSON.parse(text);
    if (v !== null && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // not JSON: the template prints the text as the model wrote it
  }
  return text;
}

export function toTemplateMessages(messages: readonly ChatMessage[]): TemplateMessage[] {
  return messages.map((m) => {
    const { tool_calls, ...rest } = m;
    if (!tool_calls) return { ...rest };
    return {
      ...rest,
      tool_calls: tool_calls.map((c) => ({
        id: c.id,
        type: "function" as const,
        function: { name: c.function.name, arguments: argumentsForTemplate(c.function.arguments) },
      })),
    };
  });
}

/** A compiled chat template; compile once, render many times. */
export class ChatTemplate {
  private readonly compiled = new Map<string, Template>();
  private readonly named: Map<string, string>;

  constructor(source: ChatTemplateSource, private readonly tokens: TemplateTokens = {}, private readonly where = "chat_template") {
    if (typeof source === "string") {
      this.named = new Map([["default", source]]);
    } else {
      if (!Array.isArray(source) || source.length === 0) throw new Error(`${where}: expected a template string or a non-empty list of {name, template}`);
      this.named = new Map();
      source.forEach((t, i) => {
        if (typeof t?.name !== "string" || typeof t?.template !== "string") throw new Error(`${where}[${i}]: expected {name: string, template: string}`);
        this.named.set(t.name, t.template);
      });
    }
  }

  /** names of the templates this config carries ("default" for a single string) */
  get names(): string[] {
    return [...this.named.keys()];
  }

  /** The template text that a render with these options would use. */
  source(opts: Pick<RenderOptions, "tools" | "templateName"> = {}): { name: string; text: string } {
    let name = opts.templateName;
    if (name === undefined) {
      // transformers: "tool_use" when tools are passed and present, else "default"
      if (opts.tools && opts.tools.length > 0 && this.named.has("tool_use")) name = "tool_use";
      else if (this.named.has("default")) name = "default";
      else if (this.named.size === 1) name = [...this.named.keys()][0];
      else throw new Error(`${this.where}: no "default" template among ${JSON.stringify(this.names)}; pass templateName`);
    }
    const text = this.named.get(name);
    if (text === undefined) throw new Error(`${this.where}: no template named "${name}" (have ${JSON.stringify(this.names)})`);
    return { name, text };
  }

  render(messages: readonly ChatMessage[], opts: RenderOptions = {}): string {
    const { name, text } = this.source(opts);
    let tpl = this.compiled.get(name);
    if (!tpl) {
      try {
        tpl = new Template(text);
      } catch (e) {
        throw new Error(`${this.where} ("${name}"): cannot parse the Jinja template: ${(e as Error).message}`);
      }
      this.compiled.set(name, tpl);
    }
    const vars: Record<string, unknown> = {
      ...this.tokens,
      ...opts.extra,
      messages: toTemplateMessages(messages),
      add_generation_prompt: opts.addGenerationPrompt ?? false,
    };
    // an empty list must read as "no tools" (Python's [] is falsy; be explicit)
    if (opts.tools && opts.tools.length > 0) vars.tools = opts.tools;
    if (opts.enableThinking !== undefined) vars.enable_thinking = opts.enableThinking;
    try {
      return tpl.render(vars);
    } catch (e) {
      throw new Error(`${this.where} ("${name}"): rendering failed: ${(e as Error).message}`);
    }
  }
}
