/**
 * A strict JSON reader (RFC 8259) that reads ONE value starting at a position and says where it
 * ended, or exactly where and why it failed. JSON.parse cannot do either (it wants the whole
 * string, and its messages and positions vary across V8 versions), and the tool-call parser needs
 * both: "invalid JSON at position 17: expected ',' or '}' after a property value, got 'x'".
 * Also `pythonJson`, the serializer Hugging Face templates' `tojson` mirrors (Python json.dumps
 * with ensure_ascii=False: ", " and ": " separators, keys in insertion order).
 */

export type JsonScan = { ok: true; value: unknown; end: number } | { ok: false; pos: number; message: string };

class JsonError extends Error {
  constructor(readonly pos: number, message: string) {
    super(message);
  }
}

const MAX_DEPTH = 512;

function show(text: string, i: number): string {
  return i >= text.length ? "end of text" : JSON.stringify(text[i]);
}

/** Reads one JSON value at `start` (after optional whitespace); never throws. */
export function scanJson(text: string, start = 0): JsonScan {
  let i = start;
  const ws = () => {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
  };
  const fail = (message: string): never => {
    throw new JsonError(i, message);
  };
  const value = (depth: number): unknown => {
    if (depth > MAX_DEPTH) fail(`nesting deeper than ${MAX_DEPTH}`);
    ws();
    const c = text[i];
    if (c === "{") return object(depth);
    if (c === "[") return array(depth);
    if (c === '"') return string();
    if (c === "-" || (c >= "0" && c <= "9")) return number();
    for (const [word, v] of [["true", true], ["false", false], ["null", null]] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    return fail(`expected a JSON value, got ${show(text, i)}`);
  };
  const object = (depth: number): Record<string, unknown> => {
    i++; // {
    const out: Record<string, unknown> = {};
    ws();
    if (text[i] === "}") {
      i++;
      return out;
    }
    for (;;) {
      ws();
      if (text[i] !== '"') fail(`expected a property name in double quotes, got ${show(text, i)}`);
      const key = string();
      ws();
      if (text[i] !== ":") fail(`expected ':' after property name ${JSON.stringify(key)}, got ${show(text, i)}`);
      i++;
      const v = value(depth + 1);
      // defineProperty: a "__proto__" key is data, not a prototype change
      Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      ws();
      if (text[i] === ",") {
        i++;
        continue;
      }
      if (text[i] === "}") {
        i++;
        return out;
      }
      fail(`expected ',' or '}' after a property value, got ${show(text, i)}`);
    }
  };
  const array = (depth: number): unknown[] => {
    i++; // [
    const out: unknown[] = [];
    ws();
    if (text[i] === "]") {
      i++;
      return out;
    }
    for (;;) {
      out.push(value(depth + 1));
      ws();
      if (text[i] === ",") {
        i++;
        continue;
      }
      if (text[i] === "]") {
        i++;
        return out;
      }
      fail(`expected ',' or ']' after an array element, got ${show(text, i)}`);
    }
  };
  const string = (): string => {
    const open = i;
    i++; // "
    let out = "";
    let run = i;
    for (;;) {
      if (i >= text.length) {
        i = open;
        fail("unterminated string");
      }
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        out += text.slice(run, i);
        i++;
        return out;
      }
      if (c < 0x20) fail(`control character U+${c.toString(16).padStart(4, "0")} inside a string must be escaped`);
      if (c === 0x5c) {
        out += text.slice(run, i);
        const e = text[i + 1];
        const simple: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
        if (e !== undefined && e in simple) {
          out += simple[e];
          i += 2;
        } else if (e === "u") {
          const hex = text.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail(`invalid \\u escape ${JSON.stringify(text.slice(i, i + 6))}`);
          out += String.fromCharCode(parseInt(hex, 16));
          i += 6;
        } else {
          fail(`invalid escape ${JSON.stringify(text.slice(i, i + 2))}`);
        }
        run = i;
        continue;
      }
      i++;
    }
  };
  const number = (): number => {
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 400));
    if (!m || m[0] === "-") fail(`invalid number starting ${JSON.stringify(text.slice(i, i + 8))}`);
    const s = (m as RegExpExecArray)[0];
    // "01" or "1." are not JSON: the digit/dot after the match is the error
    const next = text[i + s.length];
    if (next !== undefined && /[0-9.eE]/.test(next)) {
      i += s.length;
      fail(`invalid number: unexpected ${JSON.stringify(next)}`);
    }
    i += s.length;
    return Number(s);
  };
  try {
    const v = value(0);
    return { ok: true, value: v, end: i };
  } catch (e) {
    if (e instanceof JsonError) return { ok: false, pos: e.pos, message: e.message };
    // a stack overflow is the only other failure; report it as data
    return { ok: false, pos: i, message: (e as Error).message };
  }
}

/** Python json.dumps(value, ensure_ascii=False) as HF templates' `tojson` prints it. */
export function pythonJson(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (Number.isNaN(value)) return "NaN";
    if (!Number.isFinite(value)) return value > 0 ? "Infinity" : "-Infinity";
    return JSON.stringify(value);
  }
  if (typeof value === "boolean") return value ? "true" : "false";
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(", ")}]`;
  if (typeof value === "object") {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v)}`)
      .join(", ")}}`;
  }
  return JSON.stringify(String(value));
}
