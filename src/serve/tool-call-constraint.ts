/**
 * Tool calls under `tool_choice: "auto"`: the model writes freely (it may answer in text,
 * or call a tool, or both) until it opens a Hermes call with `<tool_call>`; from there the call's
 * JSON is decoded under the JSON constraint — the name one of the offered tools, the arguments
 * per the tool's parameters where the tool is `strict` (any object otherwise) — and closed with
 * `</tool_call>`; then the model writes freely again. A forced call (`tool_choice` required or
 * named) is the plain JsonConstraint with a frame instead.
 *
 * A tag inside a <think> block is part of the thought (the response builder reads no calls there),
 * so it opens nothing.
 *
 * Fails open: an opening tag followed by text the JSON grammar refuses (no object at all) leaves
 * that call unconstrained rather than rewriting what the model already wrote (the response builder
 * then returns a call to a tool that was not offered as text, never as a tool call).
 */
import { pickToken, type PickOptions, type Rng } from "../policy/sampling.js";
import { THINK_CLOSE, THINK_OPEN, TOOL_CALL_CLOSE, TOOL_CALL_OPEN } from "../policy/tool-calls.js";
import { JsonConstraint, type TokenTexts } from "./json-constraint.js";
import type { DecodeConstraint } from "./generate.js";
import type { SchemaNode } from "./schema-node.js";

export class ToolCallConstraint implements DecodeConstraint {
  /** free text since the last call, enough of it to spot an opening tag split across tokens */
  private tail = "";
  private call: JsonConstraint | null = null;

  constructor(
    /** one call object `{"name": ..., "arguments": ...}` */
    private readonly callNode: SchemaNode,
    private readonly tokens: TokenTexts,
    private readonly eosIds: readonly number[],
    /** inside a <think> block: from the start when the prompt opened one */
    private thinking = false,
  ) {}

  /** Never complete by itself: after a call the model may write more, or stop. */
  get done(): boolean {
    return false;
  }

  pick(logits: Float32Array, opts: PickOptions, rng: Rng, _remaining: number): number {
    // no budget inside a call: one cut off by max_tokens stays cut off ("length"), as the model
    // wrote it, rather than closed with made-up arguments
    return this.call ? this.call.pick(logits, opts, rng, Number.POSITIVE_INFINITY) : pickToken(logits, opts, rng).token;
  }

  advance(id: number): void {
    if (this.eosIds.includes(id)) return;
    const text = this.tokens.texts[id] ?? "";
    if (this.call) {
      this.call.advance(id);
      if (this.call.done) this.call = null;
      return;
    }
    this.tail += text;
    for (;;) {
      if (this.thinking) {
        const close = this.tail.indexOf(THINK_CLOSE);
        if (close < 0) return void (this.tail = this.tail.slice(-(THINK_CLOSE.length - 1)));
        this.thinking = false;
        this.tail = this.tail.slice(close + THINK_CLOSE.length);
        continue;
      }
      const at = this.tail.indexOf(TOOL_CALL_OPEN);
      const think = this.tail.indexOf(THINK_OPEN);
      if (think >= 0 && (at < 0 || think < at)) {
        this.thinking = true;
        this.tail = this.tail.slice(think + THINK_OPEN.length);
        continue;
      }
      if (at < 0) return void (this.tail = this.tail.slice(-(TOOL_CALL_OPEN.length - 1)));
      // the call starts: what this token wrote past the tag is the call's first text
      const call = new JsonConstraint(this.callNode, this.tokens, this.eosIds, { prefix: "", suffix: `\n${TOOL_CALL_CLOSE}` });
      const rest = this.tail.slice(at + TOOL_CALL_OPEN.length);
      this.tail = "";
      this.call = call.feedText(rest) ? call : null;
      return;
    }
  }
}
