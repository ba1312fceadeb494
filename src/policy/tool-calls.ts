/**
 * Tool calls in model output, in the Hermes format the Qwen chat templates use:
 *
 *   <tool_call>
 *   {"name": "add", "arguments": {"a": 1, "b": 2}}
 *   </tool_call>
 *
 * possibly several, possibly malformed. `parseToolCalls` returns the calls it could read, the
 * free text outside them, the reasoning inside <think> blocks, and one precise error per problem
 * ("tool_call 2: invalid JSON at position 17: expected ',' or '}' after a property value, got
 * 'x'") — it never throws. Recovery is lenient where intent is plain (a missing </tool_call> at
 * the end, arguments given as JSON text, a "parameters" key, a ```json fence, an array of calls
 * in one tag) and each leniency that departs from the format is still reported as an error with
 * its own kind, so a format reward can count them. `formatToolCall` writes the exact text the
 * Qwen template renders for a call, for supervised targets.
 */
import { pythonJson, scanJson } from "./json-scan.js";

export const TOOL_CALL_OPEN = "<tool_call>";
export const TOOL_CALL_CLOSE = "</tool_call>";
export const THINK_OPEN = "<think>";
export const THINK_CLOSE = "</think>";

export interface ParsedToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

export type ToolCallErrorKind =
  | "unclosed" // <tool_call> without </tool_call>; the call was still read when its JSON was whole
  | "stray_close" // </tool_call> without an opening tag (removed from the content)
  | "empty" // nothing inside the tags
  | "invalid_json"
  | "trailing_text" // text after the JSON inside the tags (the call was still read)
  | "not_object" // the JSON is not an object (or an array of objects)
  | "missing_name"
  | "bad_arguments"; // arguments neither an object nor JSON text of an object

export interface ToolCallError {
  /** 1-based number of the <tool_call> tag in the text (0 for problems outside any tag) */
  index: number;
  kind: ToolCallErrorKind;
  /** "tool_call 2: invalid JSON at position 17: ..." (position within the tag's body) */
  message: string;
  /** character offset of the problem in the whole text */
  offset: number;
}

export interface ParsedOutput {
  /** the text outside tool calls and <think> blocks, trimmed */
  content: string;
  /** the text inside <think> blocks, trimmed and joined by blank lines ("" when none) */
  reasoning: string;
  calls: ParsedToolCall[];
  errors: ToolCallError[];
}

/** Splits off <think>…</think> blocks. A lone </think> closes a block the prompt opened (unless
 *  `loneClose` is false: a caller that knows whether the prompt opened one says so in the text). */
function splitThinking(text: string, loneClose = true): { visible: Array<{ text: string; offset: number }>; reasoning: string[] } {
  const visible: Array<{ text: string; offset: number }> = [];
  const reasoning: string[] = [];
  let pos = 0;
  const firstOpen = text.indexOf(THINK_OPEN);
  const firstClose = text.indexOf(THINK_CLOSE);
  if (loneClose && firstClose >= 0 && (firstOpen < 0 || firstClose < firstOpen)) {
    // Qwen3's generation prompt may end inside a think block: all before </think> is thought
    reasoning.push(text.slice(0, firstClose));
    pos = firstClose + THINK_CLOSE.length;
  }
  while (pos <= text.length) {
    const open = text.indexOf(THINK_OPEN, pos);
    if (open < 0) {
      visible.push({ text: text.slice(pos), offset: pos });
      break;
    }
    visible.push({ text: text.slice(pos, open), offset: pos });
    const close = text.indexOf(THINK_CLOSE, open + THINK_OPEN.length);
    if (close < 0) {
      // unclosed (truncated) thought: the rest is reasoning, calls in it are not acted upon
      reasoning.push(text.slice(open + THINK_OPEN.length));
      break;
    }
    reasoning.push(text.slice(open + THINK_OPEN.length, close));
    pos = close + THINK_CLOSE.length;
  }
  return { visible, reasoning };
}

/**
 * The text inside <think> blocks and the text outside them, each concatenated untrimmed: as a
 * reply grows token by token both only grow (once a tag is complete), so they can be streamed.
 */
export function splitReasoning(text: string, loneClose = true): { reasoning: string; content: string } {
  const { visible, reasoning } = splitThinking(text, loneClose);
  return { reasoning: reasoning.join(""), content: visible.map((v) => v.text).join("") };
}

type ToolCallPiece = { text: string; at: number } | { bodyStart: number; bodyEnd: number; closed: boolean };

/** The first `tag` at or after `from` that is not inside a JSON string of a call body: a string
 *  argument may hold "</tool_call>" (a constrained decoder allows any string). Where the quotes
 *  never balance (broken JSON), the first occurrence at all. */
function tagOutsideStrings(t: string, tag: string, from: number): number {
  let inString = false;
  for (let i = from; i < t.length; i++) {
    const c = t[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === tag[0] && t.startsWith(tag, i)) return i;
  }
  return inString ? t.indexOf(tag, from) : -1;
}

/** The pieces of one visible part, in order: the text between <tool_call> blocks (stray closing
 *  tags still in it) and each block's body. A block ends at its </tool_call>, or unclosed at the
 *  next <tool_call> or the end of the part. */
function* toolCallPieces(t: string): Generator<ToolCallPiece> {
  let pos = 0;
  for (;;) {
    const open = t.indexOf(TOOL_CALL_OPEN, pos);
    yield { text: t.slice(pos, open < 0 ? t.length : open), at: pos };
    if (open < 0) return;
    const bodyStart = open + TOOL_CALL_OPEN.length;
    const close = tagOutsideStrings(t, TOOL_CALL_CLOSE, bodyStart);
    const nextOpen = tagOutsideStrings(t, TOOL_CALL_OPEN, bodyStart);
    const closed = close >= 0 && (nextOpen < 0 || close < nextOpen);
    const bodyEnd = closed ? close : nextOpen >= 0 ? nextOpen : t.length;
    yield { bodyStart, bodyEnd, closed };
    pos = closed ? close + TOOL_CALL_CLOSE.length : bodyEnd;
  }
}

/** The text with its <tool_call> blocks (and stray closing tags) taken out, <think> blocks kept
 *  as written; trimmed. What an OpenAI-style message holds as content beside its tool calls. */
export function withoutToolCalls(text: string): string {
  const { visible } = splitThinking(text);
  let out = "";
  let cursor = 0;
  for (const part of visible) {
    out += text.slice(cursor, part.offset); // a think block, verbatim
    for (const piece of toolCallPieces(part.text)) if ("text" in piece) out += piece.text.split(TOOL_CALL_CLOSE).join("");
    cursor = part.offset + part.text.length;
  }
  return (out + text.slice(cursor)).trim();
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}

/** Reads the call objects in one tag body; pushes calls and errors. */
function readBody(body: string, bodyOffset: number, index: number, calls: ParsedToolCall[], errors: ToolCallError[]): void {
  const err = (kind: ToolCallErrorKind, message: string, at: number) =>
    errors.push({ index, kind, message: `tool_call ${index}: ${message}`, offset: bodyOffset + at });
  // a markdown fence around the JSON is a common slip: look inside it
  let start = 0;
  let end = body.length;
  const fence = /^\s*```[a-zA-Z]*\s*\n?/.exec(body);
  if (fence) {
    start = fence[0].length;
    const close = body.lastIndexOf("```");
    if (close >= start) end = close;
  }
  let i = start;
  const skipWs = () => {
    while (i < end && /\s/.test(body[i])) i++;
  };
  skipWs();
  if (i >= end) return void err("empty", "empty tool call", i);
  while (i < end) {
    const scan = scanJson(body.slice(0, end), i);
    if (!scan.ok) return void err("invalid_json", `invalid JSON at position ${scan.pos}: ${scan.message}`, scan.pos);
    const items = Array.isArray(scan.value) ? scan.value : [scan.value];
    for (const item of items) readCall(item, i, err, calls);
    i = scan.end;
    skipWs();
    if (i < end && body[i] !== "{" && body[i] !== "[") {
      return void err("trailing_text", `unexpected text after the JSON at position ${i}: ${JSON.stringify(body.slice(i, i + 20))}`, i);
    }
  }
}

function readCall(
  item: unknown,
  at: number,
  err: (kind: ToolCallErrorKind, message: string, at: number) => void,
  calls: ParsedToolCall[],
): void {
  if (item === null || typeof item !== "object" || Array.isArray(item)) {
    return err("not_object", `expected a JSON object {"name": ..., "arguments": {...}}, got ${describe(item)}`, at);
  }
  const o = item as Record<string, unknown>;
  // some models nest the OpenAI shape: {"function": {"name", "arguments"}}
  const f = o.function !== null && typeof o.function === "object" && !Array.isArray(o.function) && !("name" in o) ? (o.function as Record<string, unknown>) : o;
  if (typeof f.name !== "string" || f.name.trim() === "") {
    return err("missing_name", f.name === undefined ? 'missing "name"' : `"name" must be a non-empty string, got ${describe(f.name)}`, at);
  }
  const raw = "arguments" in f ? f.arguments : "parameters" in f ? f.parameters : {};
  let args: unknown = raw;
  if (typeof raw === "string") {
    // arguments as JSON text (the OpenAI wire shape): accept it when it holds an object
    const inner = raw.trim() === "" ? { ok: true as const, value: {}, end: 0 } : scanJson(raw);
    if (!inner.ok) return err("bad_arguments", `"arguments" is a string but not JSON: position ${inner.pos}: ${inner.message}`, at);
    if (raw.slice(inner.end).trim() !== "") return err("bad_arguments", `"arguments" string has text after its JSON at position ${inner.end}`, at);
    args = inner.value;
  }
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    return err("bad_arguments", `"arguments" must be an object, got ${describe(args)}`, at);
  }
  calls.push({ name: f.name, arguments: args as Record<string, unknown> });
}

/** Parses model output; never throws. */
export function parseToolCalls(text: string, { loneClose = true }: { loneClose?: boolean } = {}): ParsedOutput {
  const calls: ParsedToolCall[] = [];
  const errors: ToolCallError[] = [];
  const content: string[] = [];
  let index = 0;
  try {
    const { visible, reasoning } = splitThinking(text, loneClose);
    for (const part of visible) {
      const t = part.text;
      for (const piece of toolCallPieces(t)) {
        if ("text" in piece) {
          // closing tags with no opening tag: reported and dropped from the content
          const seg = piece.text;
          for (let at = seg.indexOf(TOOL_CALL_CLOSE); at >= 0; at = seg.indexOf(TOOL_CALL_CLOSE, at + 1)) {
            errors.push({ index: 0, kind: "stray_close", message: `${TOOL_CALL_CLOSE} without ${TOOL_CALL_OPEN}`, offset: part.offset + piece.at + at });
          }
          content.push(seg.split(TOOL_CALL_CLOSE).join(""));
          continue;
        }
        index++;
        if (!piece.closed) {
          errors.push({ index, kind: "unclosed", message: `tool_call ${index}: missing ${TOOL_CALL_CLOSE}`, offset: part.offset + piece.bodyEnd });
        }
        readBody(t.slice(piece.bodyStart, piece.bodyEnd), part.offset + piece.bodyStart, index, calls, errors);
      }
    }
    const thoughts = reasoning.map((r) => r.trim()).filter((r) => r.length > 0);
    return { content: content.join("").trim(), reasoning: thoughts.join("\n\n"), calls, errors };
  } catch (e) {
    // a bug here must not kill a rollout: report it as data
    errors.push({ index: 0, kind: "invalid_json", message: `tool-call parser failed: ${(e as Error).message}`, offset: 0 });
    return { content: text.trim(), reasoning: "", calls, errors };
  }
}

/**
 * The exact text the Qwen templates render for one call (the name printed as is, the arguments
 * through `tojson`): `<tool_call>\n{"name": "add", "arguments": {"a": 1}}\n</tool_call>`.
 */
export function formatToolCall(name: string, args: Record<string, unknown>): string {
  return `${TOOL_CALL_OPEN}\n{"name": "${name}", "arguments": ${pythonJson(args)}}\n${TOOL_CALL_CLOSE}`;
}
