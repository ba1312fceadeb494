/**
 * Generic recipes: scenarios for ANY server, built only from its tool list.
 *
 * - single: one call with synthesized arguments; the task states the goal (the first sentence of
 *   the tool's description, never its name) and the given values, and asks for one field of the
 *   result (a scalar from structuredContent or JSON text, else the first number of the text).
 * - chain: tool A's result holds exactly one value for a required argument of tool B (an id);
 *   the task asks to do A, then B with what A found. Answer from B's result.
 * - mutation: a tool whose name says it changes state, followed by a state check: a read-only
 *   tool called with an id from the mutation's result must show the new record.
 * - deletion: a tool that takes things away, checked by a read that no longer shows a given
 *   value and still shows another one (deletions.ts).
 * Fixture recipes (./fixtures/) phrase the same kinds of task naturally for the bundled servers.
 */
import { describeArgs, human, singular, singularLabel } from "./argument-words.js";
import { hostname } from "node:os";
import { isResourceTool } from "../../mcp/resource-tools.js";
import { mentionsWorkCopy } from "../../mcp/toolbox.js";
import { htmlTableCells } from "./html-table.js";
import type { ToolResult, ToolSpec } from "../../mcp/types.js";
import type { AnswerCheck, Expected } from "../schema.js";
import { normKey, ValuePool } from "./harvest.js";
import { extractNumbers } from "../numbers.js";
import { checkAnswer } from "../check.js";
import { besideIdsGone, fileListings, goneAndKept, idValues, isDeletingTool, shownValues, valuesBesideIds } from "./deletions.js";
import { answerSentence, containsCheck, envelopeData, isUseful, itemFailed, lowerFirst, numericCheck, oneOfBatch, reportsFailure, resultData, verbFor, type Draft, type Recipe, type RecipeContext } from "./recipe.js";
import { synthesizeArgs } from "./schema-values.js";
import { documentFacts } from "./document-answer.js";
import { markdownTableCells } from "./markdown-table.js";
import { runsCode, runsCommands } from "./shell-tool.js";

const MUTATING =
  /(^|_|-|\b)(create|add|insert|update|upsert|edit|write|delete|remove|cancel|place|set|unset|put|post|patch|move|rename|upload|send|submit|apply|reset|clear|drop|book|buy|purchase|pay|transfer|modify|replace|append|save|commit|push|register|assign|archive|restore|enable|disable|start|stop|kill|purge|wipe|erase|destroy|truncate|mark|toggle|complete|approve|reject|grant|revoke|merge|import|publish|deploy|schedule|invite|ban|lock|unlock|revert|rollback|increment|decrement|subscribe|unsubscribe|close|clean|cleanup|prune|flush)(?=$|_|-|\b)/i;

// verbs that are nouns too ("get_block" of a blockchain reads a block): a change only where they lead the name
// (a session or a link made or ended is a change too: connect_session, logout, unmount)
const LEADING_MUTATING = /^(manage|advance|terminate|block|unblock|sync|connect|disconnect|log_?in|log_?out|sign_?in|sign_?out|attach|detach|mount|unmount|unlink|unbind)(?=$|_|-)/i;

// making another of a thing (excel_copy_sheet, clone_repo), and formatting what is kept (excel_format_range,
// format_document), not a value passed in (format_date answers with text)
const MAKES_OR_FORMATS = /(^|_|-|\b)(copy|duplicate|clone|format_?(range|cells?|sheets?|tables?|document|file|disk|drive|partition|volume)s?)(?=$|_|-|\b)/i;

// the argument that picks what a many-purpose tool does (`operation: "create" | "update" | "delete"`)
const OPERATION_ARG = /^(operation|action|op|command|cmd|method)$/i;

/**
 * Whether calling a tool leaves the server's state as it was. The server's own MCP annotations
 * decide when present (`readOnlyHint: true` reads; `readOnlyHint: false` or `destructiveHint:
 * true` changes state); otherwise a state-changing verb in the name does, or, for a tool that
 * does several things (`manage_container {operation: "create" | "update" | "delete"}`), in one
 * of the values its operation argument takes, or, where the name reads neither way, the verb its
 * description starts with ("Register a new request…"). A tool that runs the command lines it is given
 * (shell-tool.ts) changes state whatever it says: `rm` is a command too; one that runs source code
 * does unless its annotations say it only reads. A bare name (a
 * scenario's reference call) is judged by its name alone.
 */
export function isReadOnlyTool(tool: string | (Pick<ToolSpec, "name" | "annotations"> & { inputSchema?: ToolSpec["inputSchema"]; description?: string })): boolean {
  const name = typeof tool === "string" ? tool : tool.name;
  const hints = typeof tool === "string" ? undefined : tool.annotations;
  // before its annotations: a shell tool marked readOnlyHint runs `rm` all the same
  if (typeof tool !== "string" && runsCommands(tool)) return false;
  if (hints?.readOnlyHint === true) return true;
  if (hints?.readOnlyHint === false || hints?.destructiveHint === true) return false;
  // a code runner that does not say it only reads: code can do what `rm` does
  if (typeof tool !== "string" && runsCode(tool)) return false;
  // a reader that can also save what it read (export_project's save_to_file): a call may write,
  // and an instance it wrote on is no longer a fresh one
  if (typeof tool !== "string" && Object.keys((tool.inputSchema?.properties ?? {}) as object).some((k) => SAVES_OUTPUT.test(k))) return false;
  // `add` alone is arithmetic (the reference "everything" server's adds two numbers): adding a
  // thing names the thing (add_todo, addItem)
  if (/^add$/i.test(name) && (typeof tool === "string" || requiredNumbersOnly(tool))) return true;
  if (typeof tool !== "string" && operationValues(tool.inputSchema).some(namesChange)) return false;
  if (typeof tool !== "string" && !READING_NAME.test(camelWords(name)) && CHANGE_FIRST.test((tool.description ?? "").replace(PREAMBLE, ""))) return false;
  return !namesChange(name) && !LEADING_MUTATING.test(camelWords(name));
}

// an argument that writes a tool's output to a file
const SAVES_OUTPUT = /^(save|save_?to_?file|save_?as|save_?path|write_?to_?file|output_?(path|file|filename)|out_?file|to_?file)$/i;

// a name that says nothing either way ("request_planning") is read by what its description does
// first ("Register a new user request and plan its tasks."); a reading name keeps its word
const READING_NAME =
  /(^|_|-)(get|list|read|search|find|show|fetch|query|describe|view|open|count|check|lookup|browse|inspect|info|status|calculate|compute|convert|diff|compare|validate|parse|summari[sz]e|render|translate|retrieve|estimate|preview)(?=$|_|-)/i;
const CHANGE_FIRST = /^\s*(creates?|adds?|inserts?|registers?|saves?|stores?|submits?|sends?|repl(y|ies)|forks?|appends?|writes?|updates?|deletes?|removes?)\b/i;
// "Use this tool to register…", "This tool creates…", "Tool to create…", "Allows you to add…"
const PREAMBLE = /^\s*(?:(?:use )?this tool(?: (?:to|will))?|tool (?:to|that)|allows? you to|lets? you)\s+/i;

/** an `add` whose required arguments are all numbers (server-everything's a + b), not a thing's name */
function requiredNumbersOnly(tool: { inputSchema?: ToolSpec["inputSchema"] }): boolean {
  const props = (tool.inputSchema?.properties ?? {}) as Record<string, { type?: unknown }>;
  const required = (tool.inputSchema?.required as string[] | undefined) ?? [];
  return required.length > 0 && required.every((r) => props[r]?.type === "number" || props[r]?.type === "integer");
}

/** camelCase words split ("markDone" → "mark_Done"): the match is case-insensitive, so a verb
 *  must end at a separator, never inside a word ("settings", "bookmarks" read) */
function camelWords(name: string): string {
  return name.replace(/([a-z])([A-Z])/g, "$1_$2");
}

function namesChange(words: string): boolean {
  const split = camelWords(words);
  return MUTATING.test(split) || MAKES_OR_FORMATS.test(split);
}

/** The values of a top-level operation argument's enum (`operation`, `action`…), as text. */
function operationValues(schema: ToolSpec["inputSchema"] | undefined): string[] {
  const props = (schema?.properties ?? {}) as Record<string, { enum?: unknown; const?: unknown }>;
  return Object.entries(props)
    .filter(([k]) => OPERATION_ARG.test(k))
    .flatMap(([, p]) => [...(Array.isArray(p?.enum) ? p.enum : []), ...(p && "const" in p ? [p.const] : [])])
    .filter((v): v is string => typeof v === "string");
}

/** "Evaluate one expression and return the number. Supports…" → "evaluate one expression and return the number" */
export function goalOf(tool: ToolSpec): string {
  // Examples ("e.g. 'x'") are cut first, so their full stops do not end the sentence early.
  const text = (tool.description || tool.title || "")
    .replace(/\s*\((?:e\.g\.|i\.e\.|for example)[^)]*\)/gi, "")
    .replace(/,?\s*(?:e\.g\.|for example)(?:[^.]|\.(?!\s|$))*(?:\.(?=\s|$)|$)/gi, ".")
    .trim();
  // what the tool may also do is no part of the task: "view commit history with optional
  // filtering by author, date range, …" asks to view the commit history
  const first = text
    .split(/(?<=[.!?])\s+|\n/)[0]
    ?.replace(/[.!?:]+$/, "")
    .replace(/\s*\((?:optional|optionally)\b[^)]*\)/gi, "")
    .replace(/,?\s+(?:with optional|optionally)\b.*$/i, "")
    .trim();
  if (first) return lowerFirst(first);
  return tool.name.replace(/[_-]+/g, " ");
}

// a unit at the end of a key: "elevation_m" is "elevation (m)", not "elevation m"
const UNIT_SUFFIX = /[_-](m|km|cm|mm|kg|g|lb|s|ms|sec|min|h|kb|mb|gb|usd|eur|gbp|pct)$/i;

/** A result's key as a task names it: words, with a trailing unit in brackets. */
function fieldName(key: string): string {
  const unit = UNIT_SUFFIX.exec(key);
  return unit && unit.index > 0 ? `${human(key.slice(0, unit.index))} (${unit[1].toLowerCase()})` : human(key);
}

const PREFERRED = ["result", "answer", "value", "total", "amount", "count", "name", "title", "status", "id", "output", "stdout"];

export interface AnswerField {
  label: string;
  value: string | number;
  caseSensitive?: true;
}

/**
 * One scalar to ask about, from a result: {label, value}, or undefined. Values that merely echo
 * an argument ("the product id" of get_product(product_id 107)) are skipped; in a list, the
 * first item's fields are used ("first product name").
 */
export function pickAnswerField(result: ToolResult, args: Record<string, unknown> = {}): AnswerField | undefined {
  return answerFields(result, args)[0];
}

// the last word of a label that counts something
const COUNT_WORD = /^(?:total|count|counts|number|length|size|returned|found|matches|results)$/i;

/** The length of every list in a call's arguments, nested ones too */
function listLengths(v: unknown, depth = 0): number[] {
  if (depth > 6 || !v || typeof v !== "object") return [];
  const own = Array.isArray(v) ? [v.length] : [];
  return [...own, ...Object.values(v).flatMap((x) => listLengths(x, depth + 1))];
}

/**
 * Every scalar of a result worth asking about, the one pickAnswerField picks first (a PREFERRED
 * name, else the first useful one), then the others in the result's order: a page's station,
 * elevation and operator are three questions. A label two different values share (nested
 * objects whose keys read alike) would not say which one is meant, and is left out.
 */
export function answerFields(result: ToolResult, args: Record<string, unknown> = {}): AnswerField[] {
  if (reportsFailure(result)) return [];
  const data = oneOfBatch(envelopeData(resultData(result)));
  if (environmentDump(data, result.text)) return [];
  // every scalar given, nested ones too ({location: {city: "cairo"}} gives "cairo")
  const echoes = new Set<string>();
  const given = (v: unknown): void => {
    if (typeof v === "string" || typeof v === "number") echoes.add(String(v).trim());
    else if (Array.isArray(v)) v.forEach(given);
    else if (v && typeof v === "object") Object.values(v).forEach(given);
  };
  given(args);
  // lists asked for several things at once (open_nodes' names): their first items, and all
  const askedLists = Object.values(args).filter((v): v is unknown[] => Array.isArray(v) && v.length > 1);
  const askedFirst = new Set(askedLists.map((l) => String(l[0])));
  const asked = new Set(askedLists.flat().map(String));
  // a result listing them in the server's order (server-memory's, the graph's) has a "first" that
  // is not the first one asked for: a task asking for "the first entity type" would mislead
  const reordered = (item: unknown): boolean => {
    if (!item || typeof item !== "object") return false;
    const own = Object.values(item).map(String);
    return own.some((x) => asked.has(x)) && !own.some((x) => askedFirst.has(x));
  };
  const scalars: Array<{ label: string; value: string | number }> = [];
  const visit = (v: unknown, label: string, depth: number): void => {
    if (depth > 3) return;
    if (typeof v === "number" && Number.isFinite(v)) scalars.push({ label, value: v });
    else if (typeof v === "string" && v.trim().length > 0 && v.length <= 60) scalars.push({ label, value: v.trim() });
    // a bare list's items are entries: "first entry's name", not "first name" (a given name)
    else if (Array.isArray(v) && v.length > 0) {
      if (v.length > 1 && reordered(v[0])) return;
      // the first item of a batch failed ({"source": "unknown source", "success": false}): no "first result" to ask about
      if (itemFailed(v[0])) return;
      visit(v[0], v.length === 1 ? singularLabel(label) : `first ${singularLabel(label) || "entry's"}`, depth + 1);
    }
    else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) visit(x, fieldLabel(label, fieldName(k), k), depth + 1);
    }
  };
  visit(data, "", 0);
  // a count of what was asked for ("total" 3 after asking for three components) is in the task already
  const askedCounts = new Set(listLengths(args));
  const countOfAsked = (s: { label: string; value: string | number }) => typeof s.value === "number" && askedCounts.has(s.value) && COUNT_WORD.test(s.label.split(" ").pop() ?? "");
  const useful = scalars.filter((s) => s.label && !echoes.has(String(s.value)) && !countOfAsked(s) && askable(s.value));
  if (useful.length > 0) {
    const first = PREFERRED.map((p) => useful.find((s) => normKey(s.label.split(" ").pop() ?? "") === p)).find((s) => s !== undefined) ?? useful[0];
    const plain = useful.filter((s) => s !== first && !useful.some((o) => o.label === s.label && o.value !== s.value));
    return [first, ...plain].map((s) => withCase(s, echoes));
  }
  // a bare number as the whole result ("6"): that is the answer
  if (typeof data === "number" && Number.isFinite(data) && !echoes.has(String(data)) && askable(data)) return [{ label: "result", value: data }];
  if (data === undefined || typeof data === "string") {
    // a table written as HTML (a spreadsheet's sheet) or in Markdown (a listing's rows): each
    // cell of a named row, by its column; a label two tables give different values is no question
    const labelled = [...htmlTableCells(result.text), ...markdownTableCells(result.text)]
      .filter((c) => !echoes.has(c.value) && c.value.length <= 60)
      .map((c) => ({ label: `${c.column} for the ${c.rowsAre} "${c.row}"`, value: /^-?\d+(\.\d+)?$/.test(c.value) ? Number(c.value) : c.value }))
      .filter((f) => askable(f.value));
    const cells = labelled.filter((f) => !labelled.some((o) => o.label === f.label && o.value !== f.value));
    if (cells.length > 0) return cells;
    // a record printed a field a line ("Level: AA", "WCAG: 1.3.1"): each line whose key no other
    // line repeats, by its key
    if (result.text.trim().includes("\n")) {
      const keyed = documentFacts(result.text).keyed.filter((f) => !echoes.has(String(f.value)) && askable(f.value));
      if (keyed.length > 0) return keyed.map((f) => withCase(f, echoes));
    }
    // an image's byte count is no answer: only the text around it is
    const t = result.text.replace(/\[(?:image|audio)[^\]\n]*\]/g, "").trim();
    // the argument handed back ("#91ba0b" to hex): nothing to ask, not even the digits in it
    if (echoes.has(t)) return [];
    // "3 years ago" (time-mcp's relative_time): its 3 changes with the clock
    if (datedByNow(t)) return [];
    // one new number in a sentence ("The sum of 18.58 and 1.97 is 20.549999999999997."): that
    // number is the answer, not the sentence with its wording and float noise
    // (a number inside a given name is no answer either: the 1 of "Successfully set key: product:1";
    // nor is the one number of a note's lines, "Budget: 45000", "the result" of reading it)
    // (nor are the numbers of a date given: "The timestamp of 2024-03-23 12:30:00.000 is 1711197000000 ms")
    const unnamed = [...echoes]
      // (words and dates, not a bare number, nor punctuation such as the path "." in "20.5")
      .filter((e) => /[\p{L}\p{N}]/u.test(e) && !/^-?\d+(?:\.\d+)?$/.test(e))
      .sort((a, b) => b.length - a.length)
      .reduce((text, e) => text.split(e).join(" "), t);
    // one date and time the call did not give ("… and the time in Europe/London is 2024-03-23
    // 04:30:00"): that is the answer, not its digits one by one
    const stamps = unnamed.match(/\b\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2})?\b/g) ?? [];
    if (stamps.length === 1 && t.length <= 200 && !t.includes("\n") && askable(stamps[0])) return [{ label: "result", value: stamps[0] }];
    const fresh = extractNumbers(unnamed).filter((x) => !echoes.has(String(x)));
    // several numbers, each named in its clause ("The week of the year is 3, and the isoWeek of
    // the year is 2."): each is a question of its own, asked by its name
    const named = fresh.length > 1 && t.length <= 200 && !t.includes("\n") ? namedNumbers(unnamed) : [];
    if (named.length > 1 && named.length === fresh.length && named.every((f, i) => f.value === fresh[i] && askable(f.value)) && new Set(named.map((f) => f.label)).size === named.length) return named;
    if (fresh.length === 1 && t.length <= 200 && !t.includes("\n") && /[a-z]/i.test(t) && askable(fresh[0])) return [{ label: "result", value: fresh[0] }];
    // a short text is the answer when it is one line of words: not a page of headings and empty
    // blocks (@playwright/mcp's snapshot of about:blank, "### Page\n- Page URL: about:blank\n### Snapshot…",
    // or its "### Result" over an empty list), which no one would ask for and any blank page gives
    if (t.length > 0 && t.length <= 60 && !t.includes("\n") && !/^#{1,6}\s/.test(t) && !echoes.has(t) && askable(t)) return [withCase({ label: "result", value: t }, echoes)];
  }
  return [];
}

/**
 * The numbers a sentence names, clause by clause: "The week of the year is 3, and the isoWeek of
 * the year is 2." gives "week of the year" 3 and "isoWeek of the year" 2 ("the time difference is
 * -8 hours": "time difference" -8; "humidity: 40%": "humidity" 40). A clause without a name and
 * "is" (or ":", "=") before its number gives nothing.
 */
export function namedNumbers(text: string): AnswerField[] {
  const out: AnswerField[] = [];
  for (const clause of text.split(/[,;]\s*(?:and\s+)?|\.\s+|\s+and\s+/)) {
    const m = /^\s*(?:the\s+)?([A-Za-z][A-Za-z' ]{1,40}?)(?:\s+(?:is|are|was|were|equals)\s+|\s*[:=]\s*)(-?\d+(?:\.\d+)?)(?![\d.]*\d)/i.exec(clause);
    if (!m) continue;
    const value = Number(m[2]);
    // "Temperature" begins a sentence; "isoWeek" and "CPU" are spelt so
    const label = m[1].trim().replace(/^[A-Z][a-z]+\b/, (w) => w.toLowerCase());
    if (Number.isFinite(value)) out.push({ label, value });
  }
  return out;
}

const ENV_NAMES = new Set(["PATH", "HOME", "PWD", "SHELL", "USER", "LOGNAME", "LANG", "TERM", "TMPDIR", "HOSTNAME"]);

/**
 * A process's environment (server-everything's get-env, a printenv): the launch's, not the
 * server's data. npx sets `npm_package_name` from the folder it was run in and HOME is whoever
 * runs it, so an answer read there holds only where the tasks were made, and over HTTP only
 * for that server process.
 */
export function environmentDump(data: unknown, text: string): boolean {
  const names = data && typeof data === "object" && !Array.isArray(data) ? Object.keys(data) : [...text.matchAll(/^([A-Za-z_][A-Za-z0-9_]*)=/gm)].map((m) => m[1]);
  return names.filter((n) => ENV_NAMES.has(n)).length >= 2;
}

/**
 * Whether a value makes a fair question: not the server's clock, its working copy's path or the
 * machine's name (true of one replay only), not text that did not decode (U+FFFD), and, as
 * text, at least two characters (a contains check for "m" passes almost any sentence).
 */
function askable(value: string | number): boolean {
  if (clockLike(value)) return false;
  if (typeof value === "number") return true;
  return value.length >= 2 && !value.includes("\ufffd") && !mentionsWorkCopy(value) && value !== hostname();
}

/** "SUMMIT" from "summit": the change is the case, so the check must see case. */
function withCase(field: { label: string; value: string | number }, echoes: ReadonlySet<string>): AnswerField {
  const v = field.value;
  const caseOnly = typeof v === "string" && v.toLowerCase() !== v.toUpperCase() && [...echoes].some((e) => e !== v && e.toLowerCase() === v.toLowerCase());
  return caseOnly ? { ...field, caseSensitive: true } : field;
}

/** A time to the second ("9:15:31 AM", "2026-12-02T09:15:31Z"), a time to the minute that is
 *  the time now ("11:52", in UTC or local time, 12- or 24-hour), a Unix timestamp of today,
 *  today's date or this month ("2026-12-06", "12/06/2026", "2026-12"), or a time counted from now
 *  ("a month ago", "in 3 days"): the server's clock, almost always, so an answer holding one would
 *  be wrong on a later replay. ("Opens at 9:15" asked at another time of day is a fact, and stays.) */
export function clockLike(value: string | number, now: Date = new Date()): boolean {
  if (typeof value === "number") {
    // seconds or milliseconds since 1970, within a day of now
    return [value, value / 1000].some((s) => Math.abs(s - now.getTime() / 1000) < 86_400);
  }
  if (datedByNow(value, now)) return true;
  // a time of another day than today ("2024-03-23 04:30:00", a converted time) is a fact
  value = withoutOtherDays(value, now);
  if (/\b\d{1,2}:\d{2}:\d{2}\b/.test(value)) return true;
  const minutesNow: number[] = [];
  for (let d = -2; d <= 2; d++) {
    const t = new Date(now.getTime() + d * 60_000);
    for (const [h, m] of [[t.getUTCHours(), t.getUTCMinutes()], [t.getHours(), t.getMinutes()]]) minutesNow.push(h * 60 + m, (h % 12) * 60 + m);
  }
  for (const [, h, m] of value.matchAll(/\b(\d{1,2}):(\d{2})\b/g)) {
    const at = (Number(h) % 24) * 60 + Number(m);
    if (minutesNow.includes(at) || minutesNow.includes((Number(h) % 12) * 60 + Number(m))) return true;
  }
  return false;
}

/** The text with its date-times of a day more than two days from `now` taken out. */
function withoutOtherDays(value: string, now: Date): string {
  return value.replace(/\b(\d{4})-(\d{2})-(\d{2})[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g, (all, y: string, m: string, d: string) =>
    Math.abs(Date.UTC(Number(y), Number(m) - 1, Number(d)) - now.getTime()) > 2 * 86_400_000 ? " " : all,
  );
}

/**
 * A result's text with the times to the second taken out ("2026-12-06T13:02:45.463Z",
 * "13:02:45", a Unix timestamp of today): what is left of an answer once the moment it was given
 * is not. A reply stamped with the time it was made (task-orchestrator's `metadata.timestamp`
 * beside the data) says the same thing each time; no task asks for the stamp (askable).
 */
export function withoutClock(text: string, now: Date = new Date()): string {
  return text
    .replace(/\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?/g, "<time>")
    .replace(/\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b/g, "<time>")
    .replace(/\b\d{10}(?:\d{3})?\b/g, (n) => (clockLike(Number(n), now) ? "<time>" : n));
}

// "a month ago", "in 3 days", "2 years from now", "just now" (dayjs' and moment's fromNow, humanize)
const RELATIVE_TIME = /\b(?:(?:a|an|a few|\d+) (?:seconds?|minutes?|hours?|days?|weeks?|months?|years?) (?:ago|from now)|in (?:a|an|a few|\d+) (?:seconds?|minutes?|hours?|days?|weeks?|months?|years?)|just now)\b/i;

/** Whether a text holds a time counted from now ("3 years ago": its number is no fact either) or today's date. */
export function datedByNow(text: string, now: Date = new Date()): boolean {
  return RELATIVE_TIME.test(text) || datesNear(now).some((d) => new RegExp(`(?<![\\d./-])${d.replace(/[./]/g, "\\$&")}(?![\\d]|[./-]\\d)`).test(text));
}

/** Today's date (a day either side: UTC and local time differ) and this month, as dates are
 *  written: 2026-12-06, 2026/12/06, 12/06/2026, 12/06/26, 06.12.2026, 2026-12, 2026/12 (each
 *  whole: "2026-12" in "2026-12-25", another day, or in "INV-2026-1234" is no clock). */
function datesNear(now: Date): string[] {
  const out = new Set<string>();
  for (const d of [-1, 0, 1]) {
    const t = new Date(now.getTime() + d * 86_400_000);
    for (const [y, m, day] of [[t.getUTCFullYear(), t.getUTCMonth() + 1, t.getUTCDate()], [t.getFullYear(), t.getMonth() + 1, t.getDate()]]) {
      const [mm, dd, yy] = [String(m).padStart(2, "0"), String(day).padStart(2, "0"), String(y).slice(2)];
      for (const f of [`${y}-${mm}-${dd}`, `${y}/${mm}/${dd}`, `${mm}/${dd}/${y}`, `${mm}/${dd}/${yy}`, `${dd}.${mm}.${y}`, `${y}-${mm}`, `${y}/${mm}`]) out.add(f);
    }
  }
  return [...out];
}

/**
 * A count of 0 over an empty list (a search with a made-up tag) or beside an empty text (git_diff
 * of a clean tree: `diff: ""`, `filesChanged: 0`): a task set full of these teaches a model that
 * "0" is a good answer. Such tasks are not built.
 */
export function asksAboutNothing(result: ToolResult, value: string | number): boolean {
  if (value !== 0) return false;
  const empty = (v: unknown, depth: number): boolean =>
    Array.isArray(v) ? v.length === 0 : (depth > 0 && v === "") || (depth < 3 && !!v && typeof v === "object" && Object.values(v).some((x) => empty(x, depth + 1)));
  return empty(resultData(result), 0);
}

// words no question can name a thing by: a preposition ("to", "created at") or a participle
// ("joined", "last modified"), unlike the nouns that end in -ed
const NOT_A_NOUN = /(?:^|\s)(?:to|from|by|of|in|on|at|for|with|via|into|per|\w+ed)$/;
const NOUNS_IN_ED = new Set(["speed", "seed", "need", "feed", "bed", "red", "embed", "shed", "breed", "hundred", "reed", "weed", "deed", "sled", "med", "ted", "bred"]);

/**
 * "first entity" + "entity type" → "first entity type"; "entities" + "entity type" → "entity
 * type"; a key that is no noun is quoted as it is written, with its container: "first relation"
 * + to → `"to" field of the first relation` ("What is the first relation to?" asks nothing).
 */
function fieldLabel(container: string, key: string, written = key): string {
  const last = key.split(" ").pop() ?? "";
  if (NOT_A_NOUN.test(key) && !NOUNS_IN_ED.has(last)) return `"${written}" field${container ? ` of the ${container}` : ""}`;
  if (!container) return key;
  const noun = singular(container.split(" ").pop() ?? "");
  if (noun && key.startsWith(`${noun} `)) return `${singularLabel(container)} ${key.slice(noun.length + 1)}`;
  return `${container} ${key}`;
}

function expectFor(value: string | number, caseSensitive = false): AnswerCheck {
  return typeof value === "number" ? numericCheck(value) : { ...containsCheck(value), ...(caseSensitive ? { caseSensitive: true } : {}) };
}

// Descriptions start with a verb ("Evaluate…") or a noun ("Full details of…"); these frames read for both.
const SINGLE_TRAIN = ["Use the available tools for this: {goal} ({given}). What {is} the {field}?", "Task: {goal}. Inputs: {given}. Report the {field}."];
const SINGLE_TEST = ["With {given}: {goal}. Tell me the {field}."];
// a change with nothing to report: the state check is the task's whole outcome
const CHANGE_TRAIN = ["Use the available tools for this: {goal} ({given}).", "Task: {goal}. Inputs: {given}. Say when it is done."];
const CHANGE_TEST = ["With {given}: {goal}. Tell me once it is done."];

/** The scalar defaults an input schema declares for its top-level properties. */
function schemaDefaults(tool: Pick<ToolSpec, "inputSchema">): Record<string, string | number> {
  const props = (tool.inputSchema.properties as Record<string, { default?: unknown }> | undefined) ?? {};
  const out: Record<string, string | number> = {};
  for (const [k, p] of Object.entries(props)) if (typeof p?.default === "string" || typeof p?.default === "number") out[k] = p.default;
  return out;
}

function singleRecipe(tool: ToolSpec): Recipe {
  const mutates = !isReadOnlyTool(tool);
  const deletes = mutates && isDeletingTool(tool);
  return {
    id: `generic.single.${tool.name}`,
    tools: [tool.name],
    weight: 3,
    mutates,
    async build(ctx: RecipeContext): Promise<Draft | undefined> {
      // a deletion names things that are there: what the listings show now, observations too
      if (deletes) await fileListings(ctx, readersFor(ctx, tool));
      const args = synthesizeArgs(tool.inputSchema, ctx.rng, ctx.pool, { readsOnly: !mutates, newText: mutates && !deletes });
      if (!args) return undefined;
      // a change whose result may only repeat its arguments: the reads that could show it, as they are before
      const reads = mutates ? await readsOfGiven(ctx, tool, args) : [];
      const r = await ctx.call(tool.name, args);
      const goal = goalOf(tool);
      const difficulty = Math.min(5, 1 + (Object.keys(args).length > 2 ? 1 : 0) + (mutates ? 1 : 0));
      if (deletes && !r.isError) {
        // "Entities deleted successfully" is nothing to ask about: the task is what the reads show now;
        // a deletion by id (delete_note {id: 12}) is seen by what the item held beside its id going
        // (and the id itself gone from a listing: a rename would take the title away too)
        const given = [...givenStrings(args, 200), ...valuesBesideIds(args, reads.map((r) => r.data), (v) => askable(v) && v.length <= 200), ...idValues(args)];
        const checks = await goneAndKept(ctx, reads, [...new Set(given)]);
        if (checks) return { task: ctx.phrase(CHANGE_TRAIN, CHANGE_TEST, { goal, given: describeArgs(args) }), difficulty, expected: checks, answer: "Done." };
      }
      if (!isUseful(r)) return undefined;
      // a default the call left unsaid ("limit 20") is as much an echo as a given argument
      const picked = answerFields(r, { ...schemaDefaults(tool), ...args });
      const field = drawField(mutates ? picked.filter((f) => !isReceipt(f, args)) : picked, ctx.rng) ?? (mutates ? undefined : documentField(tool, r, args, ctx.rng));
      if (!field || asksAboutNothing(r, field.value)) {
        // nothing new to ask (server-memory's create_entities lists the entities it was given): the
        // task is the change, checked by a read that shows a given value it did not show before
        const state = mutates ? await shownAfter(ctx, reads) : undefined;
        if (!state) return undefined;
        const went = await besideIdsGone(ctx, reads, args, (v) => askable(v) && v.length <= 200);
        return { task: ctx.phrase(CHANGE_TRAIN, CHANGE_TEST, { goal, given: describeArgs(args) }), difficulty, expected: [state, ...went], answer: "Done." };
      }
      const task = ctx.phrase(SINGLE_TRAIN, SINGLE_TEST, { goal, given: describeArgs(args), field: field.label, is: verbFor(field.label) });
      const expected: Expected[] = [expectFor(field.value, field.caseSensitive)];
      if (mutates) {
        // a read by what the reply gives (the new id), else one by what the task gave
        const byReply = await stateCheckAfter(ctx, tool, r);
        const state = byReply ?? (await shownAfter(ctx, reads));
        if (!state) return undefined;
        expected.push(state, ...(byReply ? [] : await besideIdsGone(ctx, reads, args, (v) => askable(v) && v.length <= 200)));
      }
      return { task, difficulty, expected, answer: answerSentence(field.label, field.value) };
    },
  };
}

/** Share of single-call tasks that ask for the field pickAnswerField prefers, when a result has others too. */
const PREFERRED_SHARE = 0.5;

/**
 * The field a single-call task asks for: the preferred one half the time, else another useful
 * one at random, so one call gives as many distinct tasks as its result has things to ask (an
 * attempt that repeats an earlier task draws again). One field only: no draw.
 */
function drawField(fields: readonly AnswerField[], rng: RecipeContext["rng"]): AnswerField | undefined {
  if (fields.length <= 1 || rng.bool(PREFERRED_SHARE)) return fields[0];
  return rng.pick(fields.slice(1));
}

// a tool that reads documents whole: "Read the contents of multiple notes", get_file_contents
const READS_DOCUMENTS = /\b(?:read|open|view)s?\b.*\b(?:notes?|documents?|pages?|files?|contents?)\b|\bcontents?\b/i;

/**
 * What to ask of a document a reader returned as text (mcp-obsidian's read_notes: "/projects/
 * heron.md:\n# Project Heron\n\nOwner: Malik Osei…"): its title, or a "Key: value" line no
 * other line's key repeats (document-answer.ts), drawn as drawField draws. Never its first line
 * (often the name it was asked by), nor anything that holds a given value or is held in one, nor
 * a title when several documents came back (whose?), nor anything from a reply that reports a
 * failure for some of what was asked (a made-up path's "Error - ENOENT" beside a real note).
 */
function documentField(tool: ToolSpec, result: ToolResult, args: Record<string, unknown>, rng: RecipeContext["rng"]): AnswerField | undefined {
  if (!READS_DOCUMENTS.test(`${human(tool.name)} ${tool.description ?? ""}`) || resultData(result) !== undefined) return undefined;
  const text = result.text;
  if (text.trim().split("\n").length < 2 || /\b(?:error|enoent|no such file|not found|denied)\b/i.test(text)) return undefined;
  const { titles, keyed } = documentFacts(text);
  const given = givenStrings(args, 200).map((g) => g.toLowerCase());
  const fair = (f: AnswerField) => {
    const v = String(f.value).toLowerCase();
    return askable(f.value) && String(f.value).length <= 80 && !given.some((g) => g.includes(v) || v.includes(g));
  };
  const fields = [...(titles.length === 1 ? [{ label: "title", value: titles[0] }] : []), ...keyed].filter(fair);
  return drawField(fields, rng);
}

/**
 * A change's reply that only confirms it: its whole text as a sentence ("Updated note 12") or a
 * word ("OK"), or text that repeats what it was given ("Successfully wrote to notes.txt"). Not an
 * answer to ask for: the change itself is the task, and a read shows it. A whole reply of one
 * token with a digit or a mark in it ("s9f99bd", a new short link's code) is the change's own new
 * value, and is asked for.
 */
export function isReceipt(field: { label: string; value: string | number }, args: Record<string, unknown>): boolean {
  if (typeof field.value !== "string") return false;
  if (field.label === "result") return /\s/.test(field.value.trim()) || /^\p{L}+[.!]?$/u.test(field.value.trim());
  // a change's `message` in words ("Record created successfully", mcp-sqlite's create_record) is its receipt too
  if (/(^| )(message|msg)$/.test(field.label) && /\s/.test(field.value.trim())) return true;
  return givenStrings(args, 200).some((v) => checkAnswer(containsCheck(v), field.value as string).pass);
}

export interface PendingRead {
  tool: string;
  arguments: Record<string, unknown>;
  /** the read's text before the change */
  before: string;
  /** given values it may show afterwards, those that are not its own arguments first */
  wanted: string[];
  /** the values it showed before (deletions.ts's shownValues) */
  shown: string[];
  /** its data before the change (parsed JSON or structured content), when it had any */
  data?: unknown;
}

/**
 * Before a change: read-only tools whose required arguments all come from the change's own
 * arguments (open_nodes' `names` from the entities' `name`s), or that need none, each called
 * once to see what it shows beforehand. At most three.
 */
async function readsOfGiven(ctx: RecipeContext, mutated: ToolSpec, args: Record<string, unknown>): Promise<PendingRead[]> {
  const given = new ValuePool();
  given.harvestData(mutated.name, args);
  const values = givenStrings(args);
  const readers = readersFor(ctx, mutated);
  const requiredOf = (t: ToolSpec) => ((t.inputSchema.required as string[] | undefined) ?? []).length;
  const out: PendingRead[] = [];
  // a lookup by a given value first: a whole listing shows the change too, less pointedly
  for (const reader of [...readers.filter((t) => requiredOf(t) > 0), ...readers.filter((t) => requiredOf(t) === 0)]) {
    if (out.length >= 3) break;
    const fixed = argsFrom(reader, given);
    if (!fixed) continue;
    const before = await ctx.probe(reader.name, fixed);
    // an error is an answer here (no such key yet); a call that did not get through is not
    if (before.fault && before.fault !== "protocol") continue;
    const own = new Set(givenStrings(fixed));
    const wanted = [...values.filter((v) => !own.has(v)), ...values.filter((v) => own.has(v))];
    const data = before.isError ? undefined : resultData(before);
    out.push({ tool: reader.name, arguments: fixed, before: before.text, wanted, shown: data === undefined ? [] : shownValues(data, askable), data });
  }
  return out;
}

/** The read-only tools (not the resource ones) that could show what `mutated` changes. */
function readersFor(ctx: RecipeContext, mutated: ToolSpec): ToolSpec[] {
  return [...ctx.tools.values()].filter((t) => t.name !== mutated.name && isReadOnlyTool(t) && !isResourceTool(t));
}

/** After the change: the first read that now shows a given value it did not show before. */
async function shownAfter(ctx: RecipeContext, reads: readonly PendingRead[]): Promise<Expected | undefined> {
  for (const read of reads) {
    const after = await ctx.probe(read.tool, read.arguments);
    if (!isUseful(after)) continue;
    for (const value of read.wanted) {
      const check = containsCheck(value);
      if (checkAnswer(check, after.text).pass && !checkAnswer(check, read.before).pass) return { kind: "state", tool: read.tool, arguments: read.arguments, expect: check };
    }
  }
  return undefined;
}

/** Arguments for a reader from harvested values: one value for a scalar, up to five for a list (`names` from `name`s). */
function argsFrom(reader: ToolSpec, pool: ValuePool): Record<string, unknown> | undefined {
  const props = (reader.inputSchema.properties ?? {}) as Record<string, { type?: unknown }>;
  const fixed: Record<string, unknown> = {};
  for (const name of (reader.inputSchema.required as string[] | undefined) ?? []) {
    const list = props[name]?.type === "array";
    const values = [...new Set(list ? [...pool.lookup(name), ...pool.lookup(singular(name))] : pool.lookup(name))];
    if (list ? values.length === 0 : values.length !== 1) return undefined;
    fixed[name] = list ? values.slice(0, 5) : values[0];
  }
  return fixed;
}

/** Every string in a call's arguments, nested ones and list items too, that makes a fair check,
 *  up to `max` characters (a deletion's may be longer: an observation is often a sentence). */
function givenStrings(args: unknown, max = 60): string[] {
  const out = new Set<string>();
  const visit = (v: unknown, depth: number): void => {
    if (typeof v === "string") {
      const t = v.trim();
      if (t.length <= max && askable(t)) out.add(t);
    } else if (depth < 6 && Array.isArray(v)) v.forEach((x) => visit(x, depth + 1));
    else if (depth < 6 && v && typeof v === "object") Object.values(v).forEach((x) => visit(x, depth + 1));
  };
  visit(args, 0);
  return [...out];
}

/** After a mutation: a read-only tool whose required args all come from the mutation's result. */
async function stateCheckAfter(ctx: RecipeContext, mutated: ToolSpec, result: ToolResult): Promise<Expected | undefined> {
  const local = new ValuePool();
  local.harvest(mutated.name, result);
  for (const reader of [...ctx.tools.values()].filter((t) => isReadOnlyTool(t))) {
    const required = (reader.inputSchema.required as string[] | undefined) ?? [];
    if (required.length === 0) continue;
    const fixed: Record<string, unknown> = {};
    for (const r of required) {
      const values = local.lookup(r);
      if (values.length !== 1) break;
      fixed[r] = values[0];
    }
    if (Object.keys(fixed).length !== required.length) continue;
    const check = await ctx.probe(reader.name, fixed);
    if (!isUseful(check)) continue;
    const field = pickAnswerField(check, fixed);
    if (!field) continue;
    return { kind: "state", tool: reader.name, arguments: fixed, expect: expectFor(field.value) };
  }
  return undefined;
}

const CHAIN_TRAIN = ["Two steps. First: {goalA} ({givenA}). Then, with the {link} found there: {goalB}. What {is} the {field}?"];
const CHAIN_TEST = ["Step one: {goalA} ({givenA}). Step two, for the {link} it gives: {goalB}. Report the {field}."];

function chainRecipe(a: ToolSpec, b: ToolSpec, link: string): Recipe {
  return {
    id: `generic.chain.${a.name}.${b.name}`,
    tools: [a.name, b.name],
    primary: b.name,
    weight: 1,
    mutates: !isReadOnlyTool(b),
    async build(ctx) {
      const argsA = synthesizeArgs(a.inputSchema, ctx.rng, ctx.pool, { readsOnly: true });
      if (!argsA) return undefined;
      const ra = await ctx.call(a.name, argsA);
      if (!isUseful(ra)) return undefined;
      const local = new ValuePool();
      local.harvest(a.name, ra);
      const values = local.lookup(link);
      if (values.length !== 1) return undefined; // ambiguous: the task would not say which
      const argsB = synthesizeArgs(b.inputSchema, ctx.rng, local, { fixed: { [link]: values[0] }, readsOnly: isReadOnlyTool(b) });
      if (!argsB) return undefined;
      const rb = await ctx.call(b.name, argsB);
      if (!isUseful(rb)) return undefined;
      const field = pickAnswerField(rb, argsB);
      if (!field || asksAboutNothing(rb, field.value)) return undefined;
      const goalA = goalOf(a);
      const task = ctx.phrase(CHAIN_TRAIN, CHAIN_TEST, {
        goalA,
        givenA: describeArgs(argsA),
        link: human(link),
        goalB: goalOf(b),
        field: field.label,
        is: verbFor(field.label),
      });
      const expected: Expected[] = [expectFor(field.value, field.caseSensitive)];
      // a chain that ends in a change is checked by what a reader then sees, as a single one is
      if (!isReadOnlyTool(b)) {
        const state = await stateCheckAfter(ctx, b, rb);
        if (!state) return undefined;
        expected.push(state);
      }
      return { task, difficulty: 3, expected, answer: answerSentence(field.label, field.value) };
    },
  };
}

/** Single-call recipes for every tool, plus chains where one tool's output names another's input. */
export function genericRecipes(tools: readonly ToolSpec[]): Recipe[] {
  // list_resources / read_resource get their own recipes (resources.ts): no made-up URIs
  const out: Recipe[] = tools.filter((t) => !isResourceTool(t)).map(singleRecipe);
  for (const b of tools) {
    const required = (b.inputSchema.required as string[] | undefined) ?? [];
    for (const link of required.filter((r) => /id$|email|name$/i.test(r))) {
      for (const a of tools) {
        if (a.name === b.name || !isReadOnlyTool(a)) continue;
        // A chain is plausible when A's name or description mentions the link's noun.
        const noun = normKey(link.replace(/_?id$/i, ""));
        if (noun && normKey(`${a.name} ${a.description}`).includes(noun)) out.push(chainRecipe(a, b, link));
      }
    }
  }
  return out;
}
