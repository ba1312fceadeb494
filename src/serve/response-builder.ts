/**
 * From generated text to OpenAI's response objects: the assistant message (Hermes `<tool_call>`
 * blocks become `tool_calls` with JSON-text arguments, the text outside them the content, as
 * vLLM's hermes tool parser does), the finish reason ("tool_calls" when calls were read), and the
 * per-token logprobs entries {token, logprob, bytes, top_logprobs}. With a reasoning parser (vLLM's
 * `--reasoning-parser qwen3`), the text inside <think> blocks goes to the message's `reasoning`
 * field (vLLM's name since 0.11; it was `reasoning_content`) and only the rest is content;
 * without one, think blocks stay in the content as written, as vLLM leaves them.
 */
import { randomBytes } from "node:crypto";
import { parseToolCalls, splitReasoning, THINK_OPEN, TOOL_CALL_OPEN, withoutToolCalls } from "../policy/tool-calls.js";
import type { GenerateResult, TokenLogprob } from "./generate.js";

export interface ResponseToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface ResponseMessage {
  role: "assistant";
  content: string | null;
  /** the <think> text, with a reasoning parser only */
  reasoning?: string;
  tool_calls?: ResponseToolCall[];
}

export interface ReasoningOptions {
  /** split <think> blocks off into `reasoning` */
  parse: boolean;
  /** the prompt ends inside a think block (its template opened one): the reply starts as thought */
  opensThink: boolean;
}

/** The reply as the reasoning parser reads it: with the prompt's open <think> put back. A lone
 *  </think> is then only text, in the whole reply and in the stream alike. */
function reasoningView(text: string, r: ReasoningOptions): string {
  return r.parse && r.opensThink ? THINK_OPEN + text : text;
}

/** The thought and the rest of a reply, as the reasoning parser splits it (untrimmed). */
export function splitForParser(text: string, r: ReasoningOptions): { reasoning: string; content: string } {
  return splitReasoning(reasoningView(text, r), false);
}

export type FinishReason = "stop" | "length" | "tool_calls";

export function newId(prefix: string): string {
  return `${prefix}${randomBytes(12).toString("hex")}`;
}

/** The assistant message for one choice; tool calls are parsed only when tools are enabled, and
 *  only calls to `offered` tools (when given) are returned as tool calls. */
export function buildMessage(
  text: string,
  finish: GenerateResult["finish"],
  parseTools: boolean,
  maxToolCalls = Number.POSITIVE_INFINITY,
  reasoning: ReasoningOptions = { parse: false, opensThink: false },
  offered: ReadonlySet<string> | null = null,
): { message: ResponseMessage; finishReason: FinishReason } {
  const parts = reasoning.parse ? splitForParser(text, reasoning) : undefined;
  // the blocks' text joined as the stream sends it
  const thought = parts && parts.reasoning.trim() ? { reasoning: parts.reasoning.trim() } : {};
  const plain = parts ? parts.content.trim() : text;
  const asText = { message: { role: "assistant" as const, content: plain, ...thought }, finishReason: finish };
  if (!parseTools) return asText;
  // a call cut off by max_tokens is read apart from the whole calls before it
  const head = finish === "length" ? beforeCutCall(text, reasoning) : null;
  const before = head ?? text;
  const parsed = parseToolCalls(reasoningView(before, reasoning), { loneClose: !reasoning.parse });
  let cut = head === null ? [] : readCutCall(text.slice(head.length));
  const known = (name: string) => offered === null || offered.has(name);
  // a call to a tool that was not offered is no tool call (a constrained decoder never writes one;
  // an unconstrained one may): the reply is the model's text, as it wrote it
  cut = cut.every((c) => known(c.name)) ? cut : [];
  const headOnly = () => {
    const content = (reasoning.parse ? splitForParser(head!, reasoning).content : head!).trim();
    return { message: { role: "assistant" as const, content: content === "" ? null : content, ...thought }, finishReason: "length" as const };
  };
  if (!parsed.calls.every((c) => known(c.name))) return head === null ? asText : headOnly();
  const calls = [...parsed.calls.map((c) => ({ name: c.name, arguments: JSON.stringify(c.arguments) })), ...cut];
  if (calls.length === 0) return head === null ? asText : headOnly();
  const tool_calls = calls.slice(0, maxToolCalls).map((c) => ({ id: newId("call_"), type: "function" as const, function: c }));
  // beside calls: the text outside them (and, without a reasoning parser, the think blocks as written)
  const content = reasoning.parse ? parsed.content : withoutToolCalls(before);
  return {
    message: { role: "assistant", content: content === "" ? null : content, ...thought, tool_calls },
    // a call cut off by max_tokens is not a complete call: "length" wins
    finishReason: finish === "length" && (head !== null || parsed.errors.some((e) => e.kind === "unclosed")) ? "length" : "tool_calls",
  };
}

/**
 * The call in a `<tool_call>` block that max_tokens cut off (`block` starts at its tag): whole when
 * its JSON is (only the closing tag missing); else, as OpenAI returns a call cut off by the limit,
 * its name and the arguments as far as they were written (not JSON yet; "" when not begun); none
 * when even the name was cut.
 */
function readCutCall(block: string): Array<{ name: string; arguments: string }> {
  const whole = parseToolCalls(block, { loneClose: false }).calls;
  if (whole.length > 0) return whole.map((c) => ({ name: c.name, arguments: JSON.stringify(c.arguments) }));
  const m = /^\s*(?:```[a-zA-Z]*\s*)?\{\s*"name"\s*:\s*("(?:[^"\\]|\\.)*")\s*([\s\S]*)$/.exec(block.slice(TOOL_CALL_OPEN.length));
  if (!m) return [];
  let name: unknown;
  try {
    name = JSON.parse(m[1]);
  } catch {
    return [];
  }
  if (typeof name !== "string" || name.trim() === "") return [];
  const args = /^,\s*"(?:arguments|parameters)"\s*:\s*([\s\S]*)$/.exec(m[2]);
  return [{ name, arguments: args ? args[1] : "" }];
}

/**
 * The reply up to a `<tool_call>` that max_tokens cut off (the block runs to the end of the text,
 * unclosed), or null when there is none. Such a block is neither a whole call nor prose: the
 * message holds the text before it as content, and the call (readCutCall) as a tool_calls entry
 * when at least its name was written (finish_reason "length"). OpenAI never returns Hermes markup
 * as content; vLLM's hermes parser returns the raw text when the call's JSON does not parse, which
 * a client then shows or feeds back as if the model had said it. A call that ends without its
 * closing tag for another reason (EOS, a stop string) is what the model wrote, and stays as written.
 */
export function beforeCutCall(text: string, reasoning: ReasoningOptions = { parse: false, opensThink: false }): string | null {
  const view = reasoningView(text, reasoning);
  const loneClose = !reasoning.parse;
  const open = (t: string) => parseToolCalls(t, { loneClose }).errors.filter((e) => e.kind === "unclosed");
  if (!open(view).some((e) => e.offset === view.length)) return null;
  // the block's tag is the last one with no call open before it: a later tag is text inside its JSON
  for (let at = view.lastIndexOf(TOOL_CALL_OPEN); at >= 0; at = at > 0 ? view.lastIndexOf(TOOL_CALL_OPEN, at - 1) : -1) {
    if (open(view.slice(0, at)).length === 0) return text.slice(0, Math.max(0, at - (view.length - text.length)));
  }
  return null;
}

export interface LogprobEntry {
  token: string;
  logprob: number;
  bytes: number[];
  top_logprobs: Array<{ token: string; logprob: number; bytes: number[] }>;
}

/** Token text and its bytes; byte-level tokens map back to their raw bytes (a partial UTF-8
 *  character keeps its true bytes even though its text shows as U+FFFD). */
export type TokenPiece = (id: number) => { token: string; bytes: number[] };

export function logprobEntries(lp: readonly TokenLogprob[], piece: TokenPiece): LogprobEntry[] {
  return lp.map((t) => ({
    ...piece(t.id),
    logprob: t.logprob,
    top_logprobs: t.top.map((a) => ({ ...piece(a.id), logprob: Math.min(0, a.logprob) })),
  }));
}

// GPT-2's byte-level alphabet: printable bytes map to themselves, the rest to U+0100 onwards
const BYTE_OF = (() => {
  const m = new Map<string, number>();
  const keep: number[] = [];
  for (let b = 33; b <= 126; b++) keep.push(b);
  for (let b = 161; b <= 172; b++) keep.push(b);
  for (let b = 174; b <= 255; b++) keep.push(b);
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (keep.includes(b)) m.set(String.fromCharCode(b), b);
    else m.set(String.fromCharCode(256 + n++), b);
  }
  return m;
})();

/** Raw bytes of a byte-level BPE token string ("Ġworld" → " world"), or null if it is not one. */
export function byteLevelBytes(tokenString: string): number[] | null {
  const out: number[] = [];
  for (const ch of tokenString) {
    const b = BYTE_OF.get(ch);
    if (b === undefined) return null;
    out.push(b);
  }
  return out;
}
