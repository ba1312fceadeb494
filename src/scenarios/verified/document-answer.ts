/**
 * What to ask about a document a tool returned whole (a resource, a file): one field a reader
 * finds by reading it, short enough for a contains check that does not span lines.
 */
import type { ToolResult } from "../../mcp/types.js";
import { mentionsWorkCopy } from "../../mcp/toolbox.js";
import { clockLike, pickAnswerField } from "./generic.js";
import { resultData } from "./recipe.js";

export interface DocumentAnswer {
  label: string;
  value: string | number;
}

/**
 * In order: a field of a JSON document; the whole text of a one-line one; its title (first
 * Markdown heading); a "Key: value" line whose key no other line repeats; the first line.
 * `given` holds what the task names (a URI, a file name), which is never the answer.
 */
export function documentAnswer(result: ToolResult, given: Record<string, string>, pickLine: (n: number) => number = () => 0): DocumentAnswer | undefined {
  const content = documentOf(result);
  const lines = content.text.split("\n").map((l) => l.trim()).filter((l) => l.length > 0);
  const names = new Set(Object.values(given));
  // a JSON document's field; a one-line text whole (a contains check spanning lines fails
  // answers that reflow it); prose is asked about by its lines below, never "the number in it"
  // (not a one-line program: the number in `return 1;` is no field of it)
  if (resultData(content) !== undefined || (lines.length === 1 && !isSourceCode(given))) {
    const field = pickAnswerField(content, given);
    if (field && (typeof field.value === "number" || (quotable(field.value) && !field.value.includes("\n")))) return field;
  }
  const heading = lines.find((l) => /^#{1,6}\s+\S/.test(l));
  const title = heading?.replace(/^#+\s+/, "").replace(/\s+#+$/, "");
  if (title && title.length <= 80 && !names.has(title) && quotable(title)) return { label: "title", value: title };
  // in source code `let value: number;` is a declaration, not a "Key: value" fact
  const keyed = isSourceCode(given) ? [] : keyedLines(lines).filter((k) => typeof k.value === "number" || quotable(k.value));
  if (keyed.length > 0) return keyed[pickLine(keyed.length)];
  const first = lines[0];
  if (!heading && first && first.length <= 80 && lines.length > 1 && quotable(first)) return { label: "first line", value: first };
  return undefined;
}

/** An answer a contains check can tell apart: it has a word or number of two characters or more,
 *  or is a dotted number such as a section or version, "1.1.1" ("{", "/**" or "z" would pass any
 *  reply that happens to hold them). */
export function quotable(value: string): boolean {
  return /[\p{L}\p{N}]{2,}/u.test(value) || /^\d+(?:\.\d+){2,}$/.test(value.trim());
}

const SOURCE_CODE = /\.(?:[cm]?[jt]sx?|py|rb|go|rs|java|kt|swift|c|h|cc|cpp|hpp|cs|php|sh|bash|lua|scala|sql)$/i;

/** whether the document named in `given` (its path or name) is source code */
function isSourceCode(given: Record<string, string>): boolean {
  return Object.values(given).some((v) => SOURCE_CODE.test(v));
}

/**
 * Everything a reader finds in a text document without a rule of thumb on which: its titles (its
 * Markdown headings' text, one per document read) and its "Key: value" lines whose key no other
 * line repeats. For a question drawn among several (mcp-obsidian's notes: "title", "owner",
 * "budget").
 */
export function documentFacts(text: string): { titles: string[]; keyed: DocumentAnswer[] } {
  const lines = text.split("\n").map((l) => l.trim()).filter((l) => l.length > 0);
  const titles = lines.filter((l) => /^#{1,6}\s+\S/.test(l)).map((l) => l.replace(/^#+\s+/, "").replace(/\s+#+$/, ""));
  return { titles, keyed: keyedLines(lines).filter((k) => typeof k.value === "number" || quotable(k.value)) };
}

/** "Owner: Dana Reyes" → {label: "owner", value: "Dana Reyes"}; keys of one to three words, each once in the text. */
function keyedLines(lines: readonly string[]): DocumentAnswer[] {
  const found = lines.flatMap((l) => {
    const m = /^([A-Za-z][A-Za-z ]{0,30}):\s+(\S.{0,59})$/.exec(l);
    if (!m || m[1].trim().split(/\s+/).length > 3 || /https?$/i.test(m[1]) || /^(true|false|null|none|yes|no)$/i.test(m[2].trim())) return [];
    const raw = m[2].trim();
    const value = /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
    if (clockLike(value) || mentionsWorkCopy(raw)) return [];
    // "ACT rules", "WCAG": an acronym keeps its capitals
    return [{ label: m[1].trim().split(/\s+/).map((w) => (/^[A-Z0-9]{2,}$/.test(w) ? w : w.toLowerCase())).join(" "), value }];
  });
  return found.filter((f) => found.filter((g) => g.label === f.label).length === 1);
}

/** The document itself: a result whose structured content only wraps its text ({content: "…"},
 *  as server-filesystem's read_text_file gives) is read as that text. */
function documentOf(result: ToolResult): ToolResult {
  const s = result.structuredContent;
  const values = s && typeof s === "object" && !Array.isArray(s) ? Object.values(s) : [];
  if (values.length !== 1 || typeof values[0] !== "string") return { ...result, text: withoutReadBanner(result.text) };
  return { isError: false, text: withoutReadBanner(values[0]), truncated: result.truncated };
}

/**
 * A file's text without the status line some readers put first: desktop-commander's
 * "[Reading 3 lines from start (total: 3 lines, 0 remaining)]" is not the file's first line,
 * nor a JSON document's start.
 */
export function withoutReadBanner(text: string): string {
  return text.replace(/^\s*\[Reading (?:last )?\d+ (?:new )?lines?\b[^\]\n]*\][ \t]*(\r?\n|$)/, "");
}
