/**
 * Turns a CallToolResult (MCP spec 2025-06-18, "Tool Result") into the one string a policy
 * sees. Text parts are joined with newlines; structuredContent is appended as compact JSON
 * unless the text already says the same (the spec asks servers to duplicate it as text);
 * images and audio become a short placeholder (the policy is text-only); resource links are
 * listed; embedded text resources are shown (base64 ones of a text type decoded), binary ones
 * summarized. Past `maxChars` the text is cut with a visible marker, so the model knows output
 * is missing.
 */
import type { ToolResult } from "./types.js";

/** default output limit, in characters */
export const DEFAULT_MAX_OUTPUT_CHARS = 20_000;

/** The loose shape of a tools/call result (unknown content types are tolerated). */
export interface RawToolResult {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
  [key: string]: unknown;
}

type Block = Record<string, unknown>;

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** bytes a base64 string decodes to, without decoding it */
export function base64Bytes(data: string): number {
  const clean = data.replace(/\s/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

/** What a text-only model sees of an image or audio clip: `[image: image/png, 68 bytes]`. */
export function mediaPlaceholder(type: string, mimeType: string | undefined, data: string | undefined): string {
  return `[${type}: ${mimeType ?? "unknown type"}, ${base64Bytes(data ?? "")} bytes]`;
}

const TEXT_TYPE = /^(text\/|application\/(json|xml|javascript|x-yaml|yaml|toml|csv|sql|x-sh)\b|[^;]*\+(json|xml)\b)/i;

/** A base64 blob of a text type (text/plain, application/json…) that is valid UTF-8, as text. */
function textBlob(blob: string | undefined, mimeType: string | undefined): string | undefined {
  if (blob === undefined || !mimeType || !TEXT_TYPE.test(mimeType)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(blob, "base64"));
  } catch {
    return undefined;
  }
}

function renderBlock(block: Block): string {
  const type = str(block.type) ?? "unknown";
  switch (type) {
    case "text":
      return str(block.text) ?? "";
    case "image":
    case "audio":
      return mediaPlaceholder(type, str(block.mimeType), str(block.data));
    case "resource_link": {
      const name = str(block.name) ?? str(block.title);
      return `[resource: ${str(block.uri) ?? "?"}${name ? ` (${name})` : ""}]`;
    }
    case "resource": {
      const r = (block.resource ?? {}) as Block;
      const uri = str(r.uri) ?? "?";
      const text = str(r.text) ?? textBlob(str(r.blob), str(r.mimeType));
      if (text !== undefined) return `[resource: ${uri}]\n${text}`;
      const blob = str(r.blob) ?? "";
      return `[resource: ${uri}, ${str(r.mimeType) ?? "binary"}, ${base64Bytes(blob)} bytes]`;
    }
    default:
      return `[${type} content]`;
  }
}

/** JSON with sorted keys, to compare two values regardless of key order */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, val: unknown) =>
    val && typeof val === "object" && !Array.isArray(val)
      ? Object.fromEntries(Object.entries(val as Block).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : val,
  );
}

/** scalar leaves of a JSON value (strings, numbers, booleans), up to `max` of them */
function leaves(v: unknown, out: string[], max: number): boolean {
  if (out.length > max) return false;
  if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") out.push(String(v));
  else if (Array.isArray(v)) return v.every((x) => leaves(x, out, max));
  else if (v && typeof v === "object") return Object.values(v).every((x) => leaves(x, out, max));
  return out.length <= max;
}

/**
 * True when the text parts already say what structuredContent says: the same JSON, or (for
 * small values) every scalar leaf appears verbatim in the text, as with `"4"` for
 * `{"result": 4}`. Then appending the JSON would only repeat it to the model.
 */
function textCovers(texts: string[], value: unknown): boolean {
  if (texts.some((t) => sameJson(t, value))) return true;
  const found: string[] = [];
  if (!leaves(value, found, 20) || found.length === 0) return false;
  const all = texts.join("\n");
  return found.every((leaf) => leaf !== "" && all.includes(leaf));
}

function sameJson(text: string, value: unknown): boolean {
  try {
    return canonical(JSON.parse(text)) === canonical(value);
  } catch {
    return false;
  }
}

export function truncate(text: string, maxChars: number): { text: string; truncated: boolean } {
  if (text.length <= maxChars) return { text, truncated: false };
  const cut = text.length - maxChars;
  return { text: `${text.slice(0, maxChars)}\n…[truncated ${cut} chars]`, truncated: true };
}

export function normalizeResult(raw: RawToolResult, maxChars = DEFAULT_MAX_OUTPUT_CHARS): ToolResult {
  const blocks = (Array.isArray(raw.content) ? raw.content : []).filter(
    (b): b is Block => typeof b === "object" && b !== null,
  );
  const parts = blocks.map(renderBlock);
  const structured = raw.structuredContent;
  if (structured !== undefined && structured !== null) {
    const texts = blocks.filter((b) => b.type === "text").map((b) => str(b.text) ?? "");
    if (!textCovers(texts, structured)) parts.push(JSON.stringify(structured));
  }
  const joined = parts.join("\n");
  const isError = raw.isError === true;
  const { text, truncated } = truncate(joined !== "" ? joined : isError ? "(the tool reported an error without a message)" : "(no output)", maxChars);
  const result: ToolResult = { isError, text, truncated };
  if (structured !== undefined && structured !== null) result.structuredContent = structured;
  return result;
}
