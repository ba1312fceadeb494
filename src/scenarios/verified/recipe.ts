/**
 * Recipes: how the verified generator turns real tool calls into a scenario.
 *
 * A recipe picks arguments (from the rng, the schema and harvested values), makes the calls on a
 * real server through its context, and phrases a task whose expected answer is read from the
 * real results. Calls made with `ctx.call` become the reference solution; `ctx.probe` is for
 * read-only looking around that the solver need not repeat (finding an order that is still
 * open, say). A recipe returns undefined when this attempt found nothing useful; the generator
 * then tries again with a fresh random stream.
 *
 * Held-out phrasing: `ctx.phrase(train, test, vars)` uses only `train` templates for training
 * scenarios; a test scenario uses a `test` template part of the time (tagged
 * "heldout:template") and otherwise a training template with unseen values ("heldout:values").
 */
import type { ToolResult, ToolSpec } from "../../mcp/types.js";
import type { AnswerCheck, Expected, ReferenceCall } from "../schema.js";
import type { ValuePool } from "./harvest.js";
import type { Rng } from "./rng.js";

export type Split = "train" | "test";

export interface RecipeContext {
  readonly rng: Rng;
  readonly split: Split;
  /** values harvested from read-only calls on a fresh server before generation began */
  readonly pool: ValuePool;
  readonly tools: ReadonlyMap<string, ToolSpec>;
  /** makes a call that belongs to the reference solution; results are harvested into `pool` */
  call(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  /** a read-only call that is not part of the solution */
  probe(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  /** picks a phrasing for the split and fills `{name}` placeholders from `vars` */
  phrase(train: readonly string[], test: readonly string[], vars?: Record<string, string | number>): string;
}

export interface Draft {
  task: string;
  difficulty: number;
  expected: Expected[];
  /** the reference final answer; every answer check in `expected` must pass on it */
  answer: string;
  tags?: string[];
}

export interface Recipe {
  /** stable id, also the template tag: "calculator.arith.binary" */
  id: string;
  /** every tool the recipe may call; it applies only when the server has them all */
  tools: string[];
  /** the tool this recipe counts toward when balancing over tools (default tools[0]) */
  primary?: string;
  /** relative frequency among the recipes of its primary tool (default 1) */
  weight?: number;
  /** changes server state: built on a fresh instance, checked with a state check */
  mutates?: boolean;
  build(ctx: RecipeContext): Promise<Draft | undefined>;
}

/** The calls a built draft made, in order; filled in by the generator. */
export interface BuiltDraft extends Draft {
  calls: ReferenceCall[];
  recipe: string;
  heldOutTemplate: boolean;
  /** a result its calls got carried a credential the server was given (Toolbox.secrets): the
   *  answer may be a piece of it ("2026" of "letmein-2026"), so the task is not written */
  sawSecret?: boolean;
}

// ---- helpers shared by recipes ----

/** A number as people write it: at most 10 significant digits, no float noise, no exponent for everyday sizes. */
export function fmt(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e15) return String(n);
  const r = Number(n.toPrecision(10));
  return Math.abs(r) >= 1e-6 && Math.abs(r) < 1e15 ? String(r) : r.toExponential();
}

/** Numeric check suited to the value: exact for integers, relative 1e-4 otherwise (answers are rounded), cents for money. */
export function numericCheck(value: number, opts: { money?: boolean } = {}): AnswerCheck {
  if (opts.money) return { kind: "numeric", value, tolerance: 0.01, relTolerance: 0 };
  if (Number.isInteger(value)) return { kind: "numeric", value, tolerance: 1e-6, relTolerance: 0 };
  return { kind: "numeric", value, tolerance: 1e-6, relTolerance: 1e-4 };
}

/** "The capital is Paris." — one full stop, also after a value that ends with one ("D.C."). */
export function answerSentence(label: string, value: string | number): string {
  const text = typeof value === "number" ? fmt(value) : value;
  return `The ${label} ${verbFor(label)} ${text}${/[.!?]$/.test(text) ? "" : "."}`;
}

/**
 * "is", or "are" for a label whose head noun is a plural ("tags", "ACT rules"; not "status",
 * "address", "analysis", nor the "count of items", whose head is "count").
 */
export function verbFor(label: string): "is" | "are" {
  const head = label.split(/ (?:of|for|in|on|by|from|per) /)[0].trim().split(/\s+/).pop() ?? "";
  return /^[a-z]*[^su\W]s$/i.test(head) && !/(ss|us|is)$/i.test(head) ? "are" : "is";
}

export function containsCheck(value: string): AnswerCheck {
  return { kind: "contains", value, caseSensitive: false };
}

/** A value a state check's read must no longer show (a deleted entity's name). */
export function notContainsCheck(value: string): AnswerCheck {
  return { kind: "not_contains", value, caseSensitive: false };
}

/** The structuredContent of a result, or the JSON inside its text. */
export function resultData(result: ToolResult): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  try {
    return JSON.parse(result.text) as unknown;
  } catch {
    return undefined;
  }
}

// a reply's status beside its data: `{"success": true, "message": "Found 2 task(s)", "data": {...},
// "metadata": {"timestamp": …, "version": "1.0.0"}}`
const ENVELOPE_KEYS = new Set(["success", "ok", "status", "message", "msg", "error", "errors", "metadata", "meta", "timestamp", "version", "code", "warning", "warnings"]);
const ENVELOPE_MARKS = ["success", "ok", "message", "msg", "metadata", "meta"];
/** the key an envelope (or a batch's item) keeps its content under */
const BODY_KEY = /^(data|result|payload)$/;

/**
 * What a reply wrapped in a status envelope holds (its `data`, `result` or `payload`), else the
 * reply as it is: "1.0.0" (the envelope's version) or "Next task retrieved successfully" are the
 * server's words about the call, the same for every call, and no task asks for them.
 */
export function envelopeData(data: unknown): unknown {
  if (!data || typeof data !== "object" || Array.isArray(data)) return data;
  const keys = Object.keys(data);
  const inner = keys.filter((k) => BODY_KEY.test(k));
  const body = inner.length === 1 ? (data as Record<string, unknown>)[inner[0]] : undefined;
  if (!body || typeof body !== "object") return data;
  const rest = keys.filter((k) => k !== inner[0]);
  return rest.length > 0 && rest.every((k) => ENVELOPE_KEYS.has(k)) && rest.some((k) => ENVELOPE_MARKS.includes(k)) ? body : data;
}

/**
 * A batch reply for one thing asked (`{"results": [{"source": "a.pdf", "success": true, "data":
 * {...}}]}`, read_pdf of one source): the one item's `data`, `result` or `payload`, beside which
 * the item holds only scalars (its source, its status), else the reply as it is. The answer's
 * fields then read "num pages" and "info title", not "result data num pages" cut off by depth.
 */
export function oneOfBatch(data: unknown): unknown {
  if (!data || typeof data !== "object" || Array.isArray(data)) return data;
  const lists = Object.entries(data).filter(([, v]) => Array.isArray(v));
  const others = Object.entries(data).filter(([, v]) => !Array.isArray(v));
  if (lists.length !== 1 || !others.every(([, v]) => typeof v !== "object" || v === null)) return data;
  const items = lists[0][1] as unknown[];
  const item = items.length === 1 ? items[0] : undefined;
  if (!item || typeof item !== "object" || Array.isArray(item) || itemFailed(item)) return data;
  const inner = Object.entries(item).filter(([k]) => BODY_KEY.test(k));
  const scalarsBeside = Object.entries(item).every(([k, v]) => k === inner[0]?.[0] || typeof v !== "object" || v === null);
  return inner.length === 1 && inner[0][1] && typeof inner[0][1] === "object" && !Array.isArray(inner[0][1]) && scalarsBeside ? inner[0][1] : data;
}

/**
 * A reply that says in its data that the call failed, without the MCP error flag (`{"success":
 * false, "message": "Task not found: …", "error": "NOT_FOUND"}`, `{"ok": false}`): an error,
 * not an answer to build a task on. (A `status` of "failed" is left alone: a job's status is data.)
 */
export function reportsFailure(result: ToolResult): boolean {
  const data = resultData(result);
  if (!data || typeof data !== "object" || Array.isArray(data)) return false;
  const d = data as Record<string, unknown>;
  return d.success === false || d.ok === false || failureStatus(d) || everyItemFailed(d) || nothingDone(d);
}

// a batch's count of what it did, and of what it could not
const DONE_COUNT = /^(succeeded|successful|success_?count|ok_?count|parsed|imported|processed|added|created|inserted|loaded|fetched|indexed)$/i;
const NOT_DONE_COUNT = /^(failed|failures|failed_?count|skipped|rejected|errors|error_?count|invalid)$/i;

/**
 * A batch that did none of what it was given: `{"parsed": 0, "failed": 1, …}` (a page that could
 * not be fetched), `{"imported": 0, "skipped": 1}` (chunks it refused). Its counts are no answer,
 * and what it was asked to do did not happen.
 */
function nothingDone(d: Record<string, unknown>): boolean {
  const done = Object.entries(d).filter(([k, v]) => DONE_COUNT.test(k) && typeof v === "number");
  const notDone = Object.entries(d).filter(([k, v]) => NOT_DONE_COUNT.test(k) && typeof v === "number");
  // (an item of its own that went well says otherwise, whatever the counts)
  const items = Object.values(d).filter(Array.isArray).flat();
  return done.length > 0 && done.every(([, v]) => v === 0) && notDone.some(([, v]) => (v as number) > 0) && items.every((item) => itemFailed(item, true));
}

/**
 * A batch reply in which each thing asked for failed: `{"total": 1, "succeeded": 0, "results":
 * [{"index": 0, "status": "error", "error": "Invalid component item…"}]}` (@primevue/mcp's
 * get_component given names where it takes objects), or items that each say `"success": false`
 * beside an error (read_pdf's sources). Its counts are no answer. A list of things whose status
 * is "error" is data unless the reply counts no success (a health check's `{"checks": [{"name":
 * "db", "status": "error", "error": "connection refused"}]}` says which service is down).
 */
function everyItemFailed(d: Record<string, unknown>): boolean {
  const lists = Object.values(d).filter((v): v is unknown[] => Array.isArray(v) && v.length > 0);
  const noneSucceeded = Object.entries(d).some(([k, v]) => DONE_COUNT.test(k) && v === 0);
  return lists.length > 0 && lists.every((l) => l.every((item) => itemFailed(item, noneSucceeded)));
}

/** One item of a batch reply that failed: `{"source": "a.pdf", "success": false, "error": "…"}`;
 *  with `statusSays`, `{"index": 0, "status": "error", "error": "…"}` too */
export function itemFailed(item: unknown, statusSays = false): boolean {
  if (!item || typeof item !== "object" || Array.isArray(item)) return false;
  const x = item as Record<string, unknown>;
  // (where the reply counts no success, an item with an error and no verdict of its own failed: `{"url": …, "error": "fetch failed"}`)
  const said = x.success === false || x.ok === false || (statusSays && typeof x.status === "string" && /^(error|errored|failure|invalid|not[ _-]?found)$/i.test(x.status)) || (statusSays && !["success", "ok", "status"].some((k) => k in x));
  const error = ["error", "errors"].find((k) => k in x && x[k] !== null);
  return said && error !== undefined && Object.keys(x).filter((k) => !["status", "success", "ok", error].includes(k)).length <= 2;
}

const MESSAGE_KEY = /^(message|msg|error|detail|details|reason|description|code)$/i;

/**
 * A reply that is only a failed status and words about it, without the MCP error flag:
 * `{"status": "error", "message": "Request not found"}`, `{"status": "task_not_found", …}`
 * (mcp-taskmanager). A status among more fields is the state of a thing (a build that "failed").
 */
function failureStatus(d: Record<string, unknown>): boolean {
  const words = Object.keys(d).filter((k) => k !== "status");
  if (typeof d.status !== "string" || words.length > 2 || !words.every((k) => MESSAGE_KEY.test(k) && d[k] !== null && ["string", "number", "object"].includes(typeof d[k]))) return false;
  return /(^|_|-|\s)(error|errored|fail(ed|ure)?|not[ _-]?found|invalid|denied|forbidden|unauthori[sz]ed)($|_|-|\s)/i.test(d.status);
}

/** True when a result is worth building a task on: no error, some content, not an empty list. */
export function isUseful(result: ToolResult): boolean {
  if (result.isError || reportsFailure(result)) return false;
  const t = result.text.trim();
  if (t === "" || t === "[]" || t === "{}" || t === "null") return false;
  // "No facts found for …", "No results", "Not found": an empty answer in words.
  // ("No rules match the specified filters.": a plural of anything found or matched)
  if (t.length < 200 && /\b(no (\w+ )?(results?|matches?|items?|records?|entries|facts?) (found|match)|no \w+s (were )?(found|match(ed)?)\b|no (results?|matches?)\b|not found|nothing found|no such \w+ (found|exists?)\b)/i.test(t)) return false;
  const data = resultData(result);
  if (data && typeof data === "object" && !Array.isArray(data)) {
    const values = Object.values(data as Record<string, unknown>);
    // {"products": []} or {"results": [], "note": "..."} is an empty answer.
    if (values.length > 0 && values.every((v) => (Array.isArray(v) ? v.length === 0 : typeof v === "string" || v === null))) {
      if (values.some(Array.isArray)) return false;
    }
  }
  return true;
}

export function lowerFirst(s: string): string {
  return s.length > 1 && /^[A-Z][a-z]/.test(s) ? s[0].toLowerCase() + s.slice(1) : s;
}
