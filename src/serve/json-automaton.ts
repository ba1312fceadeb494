/**
 * A character-level automaton for "JSON text that matches this schema" (schema-node.ts): it
 * answers, for the text generated so far plus one candidate token's text, whether the result is
 * still a prefix of some valid document, and it can name the shortest text that completes the
 * document. Constrained decoding (json-constraint.ts) masks every token it rejects.
 *
 * The state is a set of threads (alternatives of anyOf are explored side by side, as in an NFA);
 * a thread is an immutable stack of frames (root, value-expected, object, array, string, number,
 * literal), so trying a token never disturbs the current state: feeding returns new threads that
 * share the untouched frames. A number or literal ends only when a character that cannot extend it
 * arrives, which is then fed to the enclosing frame (the one-character lookahead of any JSON
 * parser). Whitespace between tokens is allowed, at most MAX_WS in a row (per gap), so a model cannot
 * spend its budget on blank space. Closing off the gaps alone only moves a model that loves blank
 * space into the nearest free string (`{"` then spaces up to max_tokens), so free text is bounded
 * too: a property name holds at most MAX_WS whitespace characters in a row (no name is made of
 * blank space), a string value at most MAX_STRING_WS (generous: indented code in an argument is
 * content). Escapes count as what they decode to (`\n` is a newline); enum members and names from
 * `properties` are exempt: the schema spells them. In the spirit of Outlines' whitespace_pattern,
 * llguidance / XGrammar, without their precompiled token tries: the vocabularies here are small
 * enough to test token by token.
 */
import { numberComplete, numberCompletion, numberPrefixOk, type NumberNode } from "./number-prefix.js";
import { ANY_OBJECT, asciiJson, type SchemaNode } from "./schema-node.js";

type ObjectNode = Extract<SchemaNode, { kind: "object" }>;
type ArrayNode = Extract<SchemaNode, { kind: "array" }>;
type StringNode = Extract<SchemaNode, { kind: "string" }>;

const MAX_WS = 8;
const MAX_STRING_WS = 64;
const MAX_THREADS = 64;
const ANY: SchemaNode = { kind: "any" };
const ANY_STRING: StringNode = { kind: "string", enum: null, minLength: 0, maxLength: Infinity };
const ANY_NUMBER: NumberNode = { kind: "number", integer: false, min: null, max: null };
const ANY_ARRAY: ArrayNode = { kind: "array", items: ANY, minItems: 0, maxItems: Infinity };

type Frame =
  | { t: "root"; done: boolean }
  | { t: "value"; node: SchemaNode; ws: number }
  | { t: "object"; node: ObjectNode; phase: "start" | "key" | "colon" | "after" | "value"; used: readonly string[]; key: string; ws: number }
  | { t: "array"; node: ArrayNode; phase: "start" | "item" | "after" | "value"; count: number; ws: number }
  // key: the names a key string may take (null: any name); buf is tracked when it matters;
  // blank: whitespace characters at the end of the content so far
  | { t: "string"; node: StringNode; isKey: boolean; options: readonly string[] | null; used: readonly string[]; buf: string; len: number; blank: number; esc: string | null }
  | { t: "number"; node: NumberNode; text: string }
  | { t: "literal"; texts: readonly string[]; buf: string };

type Thread = readonly Frame[];

const hex4 = (code: number) => code.toString(16).padStart(4, "0");
const isWs = (c: string) => c === " " || c === "\n" || c === "\t" || c === "\r";
const HEX = /^[0-9a-fA-F]$/;
const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

function top(th: Thread): Frame {
  return th[th.length - 1];
}

function push(th: Thread, f: Frame): Thread {
  return [...th, f];
}

function replaceTop(th: Thread, f: Frame): Thread {
  return [...th.slice(0, -1), f];
}

function missingRequired(f: Extract<Frame, { t: "object" }>): string[] {
  return f.node.required.filter((r) => !f.used.includes(r));
}

function keyOptions(f: Extract<Frame, { t: "object" }>): string[] | null {
  if (f.node.additional !== null) return null;
  return [...f.node.props.keys()].filter((k) => !f.used.includes(k));
}

/** The parent of a finished value moves on; `key` is the text of a finished key string. */
function afterChild(rest: Thread, key?: string): Thread | null {
  const p = top(rest);
  if (!p) return null;
  switch (p.t) {
    case "root":
      return replaceTop(rest, { t: "root", done: true });
    case "object":
      if (key !== undefined) return replaceTop(rest, { ...p, phase: "colon", key, used: [...p.used, key], ws: 0 });
      return replaceTop(rest, { ...p, phase: "after", ws: 0 });
    case "array":
      return replaceTop(rest, { ...p, phase: "after", count: p.count + 1, ws: 0 });
    default:
      return null;
  }
}

function startValue(rest: Thread, node: SchemaNode, c: string): Thread[] {
  switch (node.kind) {
    case "anyOf":
      return node.options.flatMap((o) => startValue(rest, o, c));
    case "any": {
      if (c === "{") return startValue(rest, ANY_OBJECT, c);
      if (c === "[") return startValue(rest, ANY_ARRAY, c);
      if (c === '"') return startValue(rest, ANY_STRING, c);
      if (c === "-" || (c >= "0" && c <= "9")) return startValue(rest, ANY_NUMBER, c);
      return startValue(rest, { kind: "literal", texts: ["true", "false", "null"] }, c);
    }
    case "object":
      return c === "{" ? [push(rest, { t: "object", node, phase: "start", used: [], key: "", ws: 0 })] : [];
    case "array":
      return c === "[" ? [push(rest, { t: "array", node, phase: "start", count: 0, ws: 0 })] : [];
    case "string":
      return c === '"' ? [push(rest, { t: "string", node, isKey: false, options: node.enum, used: [], buf: "", len: 0, blank: 0, esc: null })] : [];
    case "number":
      return numberPrefixOk(c, node) ? [push(rest, { t: "number", node, text: c })] : [];
    case "literal":
      return node.texts.some((t) => t.startsWith(c)) ? [push(rest, { t: "literal", texts: node.texts, buf: c })] : [];
  }
}

/** The longest run of whitespace free text in this string may hold (options: the schema's spelling). */
function blankLimit(f: Extract<Frame, { t: "string" }>): number {
  return f.options !== null ? Infinity : f.isKey ? MAX_WS : MAX_STRING_WS;
}

/** Appends one decoded character to a string's content, or null when the schema forbids it. */
function addChar(f: Extract<Frame, { t: "string" }>, ch: string): Frame | null {
  const len = f.len + 1;
  if (len > f.node.maxLength) return null;
  const blank = isWs(ch) ? f.blank + 1 : 0;
  if (blank > blankLimit(f)) return null;
  const tracked = f.options !== null || f.isKey;
  const buf = tracked ? f.buf + ch : "";
  if (f.options && !f.options.some((o) => o.startsWith(buf))) return null;
  return { ...f, buf, len, blank, esc: null };
}

function feedChar(th: Thread, c: string): Thread[] {
  const f = top(th);
  const rest = th.slice(0, -1);
  switch (f.t) {
    case "root":
      return [];
    case "value":
      if (isWs(c)) return f.ws < MAX_WS ? [replaceTop(th, { ...f, ws: f.ws + 1 })] : [];
      return startValue(rest, f.node, c);
    case "string": {
      if (f.esc === null) {
        if (c === '"') {
          if (f.len < f.node.minLength) return [];
          if (f.options && !f.options.includes(f.buf)) return [];
          if (f.isKey && f.used.includes(f.buf)) return []; // no duplicate keys
          const next = afterChild(rest, f.isKey ? f.buf : undefined);
          return next ? [next] : [];
        }
        if (c === "\\") {
          if (f.len >= f.node.maxLength) return []; // the escaped character would not fit
          return !f.options || f.options.some((o) => o.length > f.buf.length && o.startsWith(f.buf)) ? [replaceTop(th, { ...f, esc: "" })] : [];
        }
        if (c < " ") return []; // raw control characters are not allowed in JSON strings
        const g = addChar(f, c);
        return g ? [replaceTop(th, g)] : [];
      }
      if (f.esc === "") {
        if (c === "u") return !f.options || f.options.some((o) => o.length > f.buf.length && o.startsWith(f.buf)) ? [replaceTop(th, { ...f, esc: "u" })] : [];
        const ch = ESCAPES[c];
        if (ch === undefined) return [];
        const g = addChar(f, ch);
        return g ? [replaceTop(th, g)] : [];
      }
      if (!HEX.test(c)) return [];
      const esc = f.esc + c;
      if (esc.length < 5) {
        // with enum / key options the escaped character must continue one of them
        if (f.options && !f.options.some((o) => o.length > f.buf.length && o.startsWith(f.buf) && hex4(o.charCodeAt(f.buf.length)).startsWith(esc.slice(1).toLowerCase()))) return [];
        return [replaceTop(th, { ...f, esc })];
      }
      const g = addChar(f, String.fromCharCode(parseInt(esc.slice(1), 16)));
      return g ? [replaceTop(th, g)] : [];
    }
    case "number": {
      const text = f.text + c;
      if (numberPrefixOk(text, f.node)) return [replaceTop(th, { ...f, text })];
      if (!numberComplete(f.text, f.node)) return [];
      const next = afterChild(rest);
      return next ? feedChar(next, c) : [];
    }
    case "literal": {
      const buf = f.buf + c;
      if (f.texts.some((t) => t.startsWith(buf))) return [replaceTop(th, { ...f, buf })];
      if (!f.texts.includes(f.buf)) return [];
      const next = afterChild(rest);
      return next ? feedChar(next, c) : [];
    }
    case "object": {
      if (isWs(c)) return f.phase !== "value" && f.ws < MAX_WS ? [replaceTop(th, { ...f, ws: f.ws + 1 })] : [];
      switch (f.phase) {
        case "start":
        case "key":
          if (c === '"') {
            const options = keyOptions(f);
            if (options !== null && options.length === 0) return [];
            const key: Frame = { t: "string", node: ANY_STRING, isKey: true, options, used: f.used, buf: "", len: 0, blank: 0, esc: null };
            return [push(replaceTop(th, { ...f, phase: "value", ws: 0 }), key)];
          }
          if (c === "}" && f.phase === "start" && missingRequired(f).length === 0) {
            const next = afterChild(rest);
            return next ? [next] : [];
          }
          return [];
        case "colon": {
          if (c !== ":") return [];
          const node = f.node.props.get(f.key) ?? f.node.additional ?? ANY;
          return [push(replaceTop(th, { ...f, phase: "value", ws: 0 }), { t: "value", node, ws: 0 })];
        }
        case "after":
          if (c === ",") {
            const options = keyOptions(f);
            return options !== null && options.length === 0 ? [] : [replaceTop(th, { ...f, phase: "key", ws: 0 })];
          }
          if (c === "}" && missingRequired(f).length === 0) {
            const next = afterChild(rest);
            return next ? [next] : [];
          }
          return [];
        default:
          return [];
      }
    }
    case "array": {
      if (isWs(c)) return f.phase !== "value" && f.ws < MAX_WS ? [replaceTop(th, { ...f, ws: f.ws + 1 })] : [];
      switch (f.phase) {
        case "start":
        case "item":
          if (c === "]" && f.phase === "start") {
            if (f.count < f.node.minItems) return [];
            const next = afterChild(rest);
            return next ? [next] : [];
          }
          if (f.count >= f.node.maxItems) return [];
          return feedChar(push(replaceTop(th, { ...f, phase: "value", ws: 0 }), { t: "value", node: f.node.items, ws: 0 }), c);
        case "after":
          if (c === "," && f.count < f.node.maxItems) return [replaceTop(th, { ...f, phase: "item", ws: 0 })];
          if (c === "]" && f.count >= f.node.minItems) {
            const next = afterChild(rest);
            return next ? [next] : [];
          }
          return [];
        default:
          return [];
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Shortest completions, for closing a document when the token budget runs out

const minCache = new WeakMap<SchemaNode, string>();

/** The shortest JSON text the node accepts. */
export function minValueText(node: SchemaNode): string {
  const hit = minCache.get(node);
  if (hit !== undefined) return hit;
  let out: string;
  switch (node.kind) {
    case "any":
      out = "0";
      break;
    case "object":
      out = `{${node.required.map((k) => `${JSON.stringify(k)}:${minValueText(node.props.get(k) ?? ANY)}`).join(",")}}`;
      break;
    case "array":
      out = `[${Array.from({ length: node.minItems }, () => minValueText(node.items)).join(",")}]`;
      break;
    case "string":
      out = node.enum ? shortest(node.enum.map((e) => asciiJson(e))) : `"${"a".repeat(node.minLength)}"`;
      break;
    case "number":
      out = numberCompletion("", node) ?? "0";
      break;
    case "literal":
      out = writable([...node.texts]);
      break;
    case "anyOf":
      out = shortest(node.options.map(minValueText));
      break;
  }
  minCache.set(node, out);
  return out;
}

/** The shortest of the ASCII texts when there are any (a literal's \u-escaped variant: every
 *  vocabulary can write it), else the shortest. */
function writable(xs: string[]): string {
  const ascii = xs.filter((x) => /^[\x00-\x7f]*$/.test(x));
  return shortest(ascii.length ? ascii : xs);
}

function shortest(xs: string[]): string {
  return xs.reduce((a, b) => (b.length < a.length ? b : a));
}

function objectTail(f: Extract<Frame, { t: "object" }>, lead: boolean): string {
  const parts = missingRequired(f).map((k) => `${JSON.stringify(k)}:${minValueText(f.node.props.get(k) ?? ANY)}`);
  return (lead && parts.length ? "," : "") + parts.join(",") + "}";
}

/** The shortest text that completes this thread's document, or null when none is known. */
function completion(th: Thread): string | null {
  const f = top(th);
  const rest = th.slice(0, -1);
  const then = (own: string, next: Thread | null): string | null => {
    if (!next) return null;
    const more = completion(next);
    return more === null ? null : own + more;
  };
  switch (f.t) {
    case "root":
      return f.done ? "" : null;
    case "value":
      return then(minValueText(f.node), afterChild(rest));
    case "string": {
      let esc = "";
      let buf = f.buf;
      // finish a pending escape (its character joins a tracked key's text), with a character
      // that is no whitespace when the run of it is already as long as the string allows
      const full = f.blank + 1 > blankLimit(f);
      if (f.esc === "") [esc, buf] = full ? ["/", buf + "/"] : ["n", buf + "\n"];
      else if (f.esc !== null) {
        esc = "0".repeat(5 - f.esc.length);
        if (full && isWs(String.fromCharCode(parseInt((f.esc + esc).slice(1), 16)))) esc = esc.slice(0, -1) + "1"; // \u0020 → \u0021
        buf += String.fromCharCode(parseInt((f.esc + esc).slice(1), 16));
      }
      if (!f.isKey && !f.options) buf = ""; // untracked
      if (esc && f.options) {
        // finish the escape with the next character of an option it can still reach
        buf = f.buf;
        const o = f.options.find((x) => x.length > buf.length && x.startsWith(buf) && (f.esc === "" || hex4(x.charCodeAt(buf.length)).startsWith((f.esc as string).slice(1).toLowerCase())));
        if (!o) return null;
        esc = f.esc === "" ? "u" + hex4(o.charCodeAt(buf.length)) : hex4(o.charCodeAt(buf.length)).slice((f.esc as string).length - 1);
        buf += o[buf.length];
      }
      let add = "";
      if (f.options) {
        const opts = f.options.filter((o) => o.startsWith(buf));
        if (opts.length === 0) return null;
        const pick = shortest(opts);
        add = asciiJson(pick.slice(buf.length)).slice(1, -1);
        buf = pick;
      } else {
        const parent = f.isKey ? top(rest) : undefined;
        // a free key: finish it as a still-missing required name when one fits, else uniquely
        const owed = parent?.t === "object" ? missingRequired(parent).filter((k) => k.startsWith(buf)) : [];
        if (owed.length) {
          const pick = shortest(owed);
          add = asciiJson(pick.slice(buf.length)).slice(1, -1);
          buf = pick;
        } else {
          add = "a".repeat(Math.max(0, f.node.minLength - f.len - (esc ? 1 : 0)));
          buf += add;
          while (f.isKey && f.used.includes(buf)) [add, buf] = [add + "_", buf + "_"];
        }
      }
      return then(esc + add + '"', afterChild(rest, f.isKey ? buf : undefined));
    }
    case "number": {
      const s = numberCompletion(f.text, f.node);
      return s === null ? null : then(s, afterChild(rest));
    }
    case "literal": {
      const opts = f.texts.filter((t) => t.startsWith(f.buf));
      return opts.length ? then(writable(opts).slice(f.buf.length), afterChild(rest)) : null;
    }
    case "object": {
      switch (f.phase) {
        case "start":
          return then(objectTail(f, false), afterChild(rest));
        case "after":
          return then(objectTail(f, true), afterChild(rest));
        case "colon": {
          const node = f.node.props.get(f.key) ?? f.node.additional ?? ANY;
          return then(":" + minValueText(node) + objectTail(f, true), afterChild(rest));
        }
        case "key": {
          // a comma was written: one more property is owed
          const missing = missingRequired(f);
          if (missing.length) return then(objectTail(f, false), afterChild(rest));
          const options = keyOptions(f);
          let key = options?.length ? shortest(options) : "k";
          while (f.used.includes(key)) key += "_";
          const node = f.node.props.get(key) ?? f.node.additional ?? ANY;
          return then(`${JSON.stringify(key)}:${minValueText(node)}}`, afterChild(rest));
        }
        default:
          return null;
      }
    }
    case "array": {
      const item = minValueText(f.node.items);
      const need = Math.max(0, f.node.minItems - f.count);
      switch (f.phase) {
        case "start":
          return then(need ? Array.from({ length: need }, () => item).join(",") + "]" : "]", afterChild(rest));
        case "item":
          return then(Array.from({ length: Math.max(1, need) }, () => item).join(",") + "]", afterChild(rest));
        case "after":
          return then(",".concat(item).repeat(need) + "]", afterChild(rest));
        default:
          return null;
      }
    }
  }
}

/** A number or literal at the top may end where it stands: pop such frames. */
function settle(th: Thread): Thread | null {
  let cur: Thread | null = th;
  for (;;) {
    const f: Frame | undefined = cur ? top(cur) : undefined;
    if (!cur || !f) return null;
    if (f.t === "root") return cur;
    if (f.t === "number" && numberComplete(f.text, f.node)) cur = afterChild(cur.slice(0, -1));
    else if (f.t === "literal" && f.texts.includes(f.buf)) cur = afterChild(cur.slice(0, -1));
    else return cur;
  }
}

/** The automaton's state: immutable, so candidates are tried without copying or undoing. */
export class JsonState {
  private constructor(private readonly threads: readonly Thread[]) {}

  static start(node: SchemaNode): JsonState {
    return new JsonState([[{ t: "root", done: false }, { t: "value", node, ws: 0 }]]);
  }

  /** The state after `text`, or null when no valid document starts with what we have + text. */
  feed(text: string): JsonState | null {
    let threads = this.threads;
    for (const c of text) {
      const next: Thread[] = [];
      for (const th of threads) {
        for (const n of feedChar(th, c)) if (next.length < MAX_THREADS) next.push(n);
      }
      if (next.length === 0) return null;
      threads = next;
    }
    return new JsonState(threads);
  }

  /**
   * A fast answer for the common case, inside a value string without enum options: text without
   * quotes, backslashes or control characters just extends it (within maxLength), and does not
   * lengthen the shortest completion. Returns null when the fast path does not apply.
   */
  freeStringAccepts(text: string): boolean | null {
    const threads = this.threads;
    if (threads.length === 0) return null;
    for (const th of threads) {
      const f = top(th);
      if (f.t !== "string" || f.esc !== null || f.options !== null) return null;
      if (!f.isKey) continue;
      // a key's completion depends on the names it could still become (owed or already used):
      // only once none of them starts with the key so far does more text leave it unchanged
      const parent = th[th.length - 2];
      if (parent?.t !== "object") return null;
      if (missingRequired(parent).some((k) => k.startsWith(f.buf)) || f.used.some((k) => k.startsWith(f.buf))) return null;
    }
    let n = 0;
    // the text's leading and longest runs of spaces (the only whitespace allowed raw in a string)
    let lead = -1;
    let run = 0;
    let longest = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 34 || c === 92) return null; // '"' or '\\': the slow path decides
      if (c < 32) return false;
      if (c < 0xdc00 || c > 0xdfff) n++; // count code points, as the automaton does
      run = c === 32 ? run + 1 : 0;
      if (c !== 32 && lead < 0) lead = i;
      longest = Math.max(longest, run);
    }
    if (lead < 0) lead = text.length;
    // several threads (anyOf alternatives all inside a string): the answer is sure, and the
    // shortest completion unchanged, only when the text fits all of them or none
    let fit = 0;
    for (const th of threads) {
      const f = top(th) as Extract<Frame, { t: "string" }>;
      const limit = blankLimit(f);
      if (f.len + n <= f.node.maxLength && f.blank + lead <= limit && longest <= limit) fit++;
    }
    return fit === threads.length ? true : fit === 0 ? false : null;
  }

  /** The document is whole and nothing more may follow (a closed object, array, string...). */
  get done(): boolean {
    return this.threads.some((th) => th.length === 1 && (th[0] as { done?: boolean }).done === true);
  }

  /** The text so far is a whole document (a top-level number may still grow, but may also end). */
  get canEnd(): boolean {
    return this.threads.some((th) => {
      const s = settle(th);
      return s !== null && s.length === 1;
    });
  }

  /** The shortest text that completes the document (null if no thread knows one). */
  completion(): string | null {
    let best: string | null = null;
    for (const th of this.threads) {
      const s = completion(th);
      if (s !== null && (best === null || s.length < best.length)) best = s;
    }
    return best;
  }
}
