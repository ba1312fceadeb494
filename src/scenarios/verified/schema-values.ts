/**
 * Argument synthesis from a tool's JSON Schema, for the execution-verified generator.
 *
 * Given an inputSchema, build a value the schema accepts: enum/const first, then values
 * harvested from real tool outputs whose key matches the argument's name (an `order_id`
 * argument gets an id some other tool really returned), then the schema's own `examples` and
 * `default`, then a value drawn within the declared bounds and format. The result is checked
 * with ajv before it is ever sent; a schema we cannot satisfy yields undefined, not a guess.
 * Follows the spirit of property-based generators (fast-check's JSON-Schema arbitraries,
 * Schemathesis), kept small: local $ref, allOf/anyOf/oneOf by first usable branch.
 */
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import type { JsonSchema } from "../../mcp/types.js";
import type { ValuePool } from "./harvest.js";
import type { Rng } from "./rng.js";

type Schema = Record<string, unknown>;

// ajv-formats ships CommonJS; under NodeNext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;
// logger off: a server's own format ("x-house-style") is its business, not a line on the user's terminal
const ajv = addFormats(new Ajv({ strict: false, allErrors: false, validateFormats: true, logger: false }));
const compiled = new WeakMap<object, ValidateFunction>();

/** True when `value` satisfies `schema` (compiled once per schema object). */
export function schemaAccepts(schema: JsonSchema, value: unknown): boolean {
  let v = compiled.get(schema);
  if (!v) {
    try {
      v = ajv.compile(schema);
    } catch {
      return true; // a schema ajv cannot compile: let the server be the judge
    }
    compiled.set(schema, v);
  }
  return v(value) as boolean;
}

export interface SynthOptions {
  /** probability of filling each optional property (default 0.3) */
  optionalRate?: number;
  /** probability of taking a harvested value when one matches (default 0.85) */
  poolRate?: number;
  /** fixed values for named properties (a template pinning an argument) */
  fixed?: Record<string, unknown>;
  /** no made-up word (set for optional properties: an invented author, branch or search text
   *  filters a listing down to nothing, or names nothing there, on nearly every call) */
  noInvented?: boolean;
  /** the tool only reads: a repository or project folder argument may name the server's own
   *  working directory (a writing tool given it would change the user's real folder) */
  readsOnly?: boolean;
  /** the tool makes or changes something: a title, name or text it is given is a new one (a title
   *  the server shows already could not show the change: an update to it looks like nothing) */
  newText?: boolean;
  /** the arguments filled in before this one, at the top level (a map of columns finds the
   *  rows of the `table` given beside it) */
  siblings?: Record<string, unknown>;
}

/**
 * Arguments for a tool: an object satisfying `inputSchema`, or undefined after a few tries.
 */
export function synthesizeArgs(
  inputSchema: JsonSchema,
  rng: Rng,
  pool?: ValuePool,
  options: SynthOptions = {},
): Record<string, unknown> | undefined {
  for (let attempt = 0; attempt < 8; attempt++) {
    const value = synthObject(inputSchema, inputSchema, rng, pool, options, 0);
    if (value && schemaAccepts(inputSchema, value)) return value;
  }
  return undefined;
}

function resolveRef(schema: Schema, root: Schema): Schema {
  let s = schema;
  for (let i = 0; i < 10 && typeof s.$ref === "string"; i++) {
    const ref = s.$ref as string;
    if (!ref.startsWith("#/")) return {};
    let target: unknown = root;
    for (const part of ref.slice(2).split("/")) {
      target = (target as Schema | undefined)?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
    }
    s = (target as Schema | undefined) ?? {};
  }
  // allOf: merge the branches' properties and required lists; enough for tool schemas.
  if (Array.isArray(s.allOf)) {
    const merged: Schema = { ...s, allOf: undefined };
    for (const b of s.allOf as Schema[]) {
      const r = resolveRef(b, root);
      merged.type ??= r.type;
      merged.properties = { ...(merged.properties as Schema | undefined), ...(r.properties as Schema | undefined) };
      merged.required = [...((merged.required as string[] | undefined) ?? []), ...((r.required as string[] | undefined) ?? [])];
    }
    return merged;
  }
  return s;
}

function synthObject(schema: Schema, root: Schema, rng: Rng, pool: ValuePool | undefined, o: SynthOptions, depth: number): Record<string, unknown> | undefined {
  const s = resolveRef(schema, root);
  const props = (s.properties as Record<string, Schema> | undefined) ?? {};
  const required = new Set((s.required as string[] | undefined) ?? []);
  const out: Record<string, unknown> = {};
  for (const [name, propSchema] of Object.entries(props)) {
    const isFixed = depth === 0 && o.fixed && name in o.fixed;
    if (isFixed) {
      out[name] = o.fixed![name];
      continue;
    }
    // the repository or project folder a tool works in: the server's own working directory,
    // given even where optional (git-mcp-server's `path` defaults to a session folder that no
    // fresh instance has set, so every call without it fails)
    if (depth === 0 && o.readsOnly && workDirArgument(name, propSchema, root)) {
      out[name] = WORK_DIR;
      continue;
    }
    // a date or time left out is most often "now" (days_in_month without a date counts this
    // month's days): the answer would change with the clock, so one is always given
    if (!required.has(name) && !datedArgument(name, propSchema, root) && !rng.bool(o.optionalRate ?? 0.3)) continue;
    const fresh = depth === 0 && o.newText && NEW_TEXT.test(name.replace(/[^a-z]/gi, "").toLowerCase());
    const own = { ...o, ...(depth === 0 ? { siblings: out } : {}), ...(required.has(name) ? {} : { noInvented: true }) };
    const v = synthValue(propSchema, root, name, rng, fresh ? undefined : pool, own, depth + 1);
    if (v === undefined) {
      if (required.has(name)) return undefined;
      continue;
    }
    out[name] = v;
  }
  // an object with nothing in it (`{}` among read_pdf's `sources`) asks for nothing: it gets one
  // property whose values the server showed or the user gave (--value path=…), where one has
  // (never a made-up one: a made-up filter finds nothing, a made-up `force` forces)
  const known = depth > 0 && Object.keys(out).length === 0 ? Object.keys(props).filter((n) => (pool?.lookup(n).length ?? 0) > 0) : [];
  if (known.length > 0) {
    const name = rng.pick(known);
    const v = synthValue(props[name], root, name, rng, pool, { ...o, noInvented: true }, depth + 1);
    if (v !== undefined) out[name] = v;
  }
  return out;
}

/** A value for one (sub)schema; `name` is the property it fills, used to match harvested values. */
export function synthValue(
  schema: Schema,
  root: Schema,
  name: string,
  rng: Rng,
  pool: ValuePool | undefined,
  o: SynthOptions = {},
  depth = 0,
): unknown {
  if (depth > 6) return undefined;
  const s = resolveRef(schema, root);
  if ("const" in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return rng.pick(s.enum as unknown[]);
  for (const key of ["anyOf", "oneOf"] as const) {
    if (Array.isArray(s[key])) {
      const branches = (s[key] as Schema[]).map((b) => resolveRef(b, root)).filter((b) => b.type !== "null");
      if (branches.length === 0) return null;
      return synthValue(rng.pick(branches), root, name, rng, pool, o, depth + 1);
    }
  }
  let type = s.type;
  if (Array.isArray(type)) type = (type as string[]).find((t) => t !== "null") ?? "null";
  if (type === undefined) type = s.properties ? "object" : s.items ? "array" : "string";

  // Real values first: an id another tool returned beats any invented string.
  if (pool && (type === "string" || type === "integer" || type === "number") && rng.bool(o.poolRate ?? 0.85)) {
    const candidates = pool.lookup(name).filter((v) => typeMatches(type as string, v) && schemaAccepts(s, v));
    if (candidates.length > 0) return rng.pick(candidates);
  }
  const examples = Array.isArray(s.examples) ? (s.examples as unknown[]) : [];
  if (examples.length > 0 && rng.bool(0.5)) return rng.pick(examples);
  if ("default" in s && rng.bool(0.5)) return s.default;

  switch (type) {
    case "boolean":
      return rng.bool();
    case "integer":
    case "number": {
      const count = countLike(name);
      const b = bounds(s, type === "integer" || count !== undefined);
      // an offset of 13.88 reads as noise, and a limit of 97 as no limit at all
      if (count && b.min === undefined && b.max === undefined) return count === "start" ? rng.int(0, 2) : count === "page" ? rng.int(1, 3) : rng.int(1, 10);
      // a count with a floor only (zod 4's `.int().min(0)` is 0 … 2^53 - 1): the everyday size above it
      if (count && b.max === undefined && b.min! <= (count === "size" ? 1 : count === "page" ? 1 : 0)) {
        const lo = Math.ceil(b.min!);
        return count === "start" ? rng.int(lo, lo + 2) : count === "page" ? rng.int(Math.max(1, lo), 3) : rng.int(Math.max(1, lo), 10);
      }
      // a count bounded far apart (1 … 1000): "max count 707" asks for no limit a person would set
      if (count === "size" && b.min !== undefined && b.max !== undefined && b.max - b.min > 20 && rng.bool(0.8)) return rng.int(Math.max(1, Math.ceil(b.min)), Math.min(Math.floor(b.max), Math.max(1, Math.ceil(b.min)) + 9));
      return synthNumber(s, type === "integer" || count !== undefined, rng, /(^|_)id$|Id$/.test(name));
    }
    case "string":
      return synthString(s, name, rng, o.noInvented);
    case "array": {
      const items = (s.items as Schema | undefined) ?? {};
      const min = Number(s.minItems ?? 1);
      // a task reads its arguments out: a few made-up items, not five
      const max = Math.min(Number(s.maxItems ?? Math.max(min, 3)), min + 6);
      // a list of things the server knows (names, ids): real ones only, each once, a few
      const known = pool ? pool.lookup(singular(name)).filter((v) => typeMatches(String(resolveRef(items, root).type ?? "string"), v) && schemaAccepts(items, v)) : [];
      if (known.length >= Math.max(min, 1) && rng.bool(o.poolRate ?? 0.85)) {
        const picked = rng.shuffle([...known]).slice(0, rng.int(Math.max(min, 1), Math.max(min, Math.min(known.length, max, 3))));
        if (schemaAccepts(s, picked)) return picked;
      }
      const n = rng.int(min, Math.max(min, max));
      const out: unknown[] = [];
      for (let i = 0; i < n; i++) {
        const v = synthValue(items, root, singular(name), rng, pool, o, depth + 1);
        if (v === undefined) return undefined;
        out.push(v);
      }
      // the same made-up value twice (["velvet", "velvet"]) reads as a slip; kept where the schema needs the items
      const unique = [...new Map(out.map((v) => [JSON.stringify(v), v])).values()];
      return s.uniqueItems || unique.length >= Math.max(min, 1) ? unique : out;
    }
    case "object":
      if (freeForm(s)) return pool ? mapFromRecord(s, name, rng, pool, o) : undefined;
      return synthObject(s, root, rng, pool, { ...o, fixed: undefined }, depth);
    case "null":
      return null;
    default:
      return undefined;
  }
}

/** An object of any keys (`{"type": "object", "additionalProperties": {...}}`: a row's columns, a filter). */
function freeForm(s: Schema): boolean {
  const props = s.properties as Schema | undefined;
  return (!props || Object.keys(props).length === 0) && (s.additionalProperties === true || (typeof s.additionalProperties === "object" && s.additionalProperties !== null));
}

// a map that picks rows (`conditions`, `where`, `filter`) names values that are there; another
// one a change is given (`data`, `values`) holds new ones
const PICKS_ROWS = /^(where|conditions?|filters?|criteria|match|query)$/i;

/**
 * A free-form map (mcp-sqlite's `data` and `conditions`: column → value) from a record the
 * server showed for the same arguments given beside it (a row read from the same `table`): one
 * of its text columns, with the value it holds where the map picks rows, else (a change's new
 * values) with a made-up one. Keys and dates are never picked. No such record: undefined (an
 * empty map inserts nothing and a made-up column names none).
 */
function mapFromRecord(s: Schema, name: string, rng: Rng, pool: ValuePool, o: SynthOptions): Record<string, unknown> | undefined {
  const siblings = Object.entries(o.siblings ?? {}).filter(([, v]) => typeof v !== "object");
  if (siblings.length === 0) return undefined;
  const records = pool.records.filter((r) => r.given && siblings.some(([k]) => k in r.given!) && siblings.every(([k, v]) => !(k in r.given!) || r.given![k] === v));
  const values = typeof s.additionalProperties === "object" ? (s.additionalProperties as Schema) : {};
  const columns = (r: (typeof records)[number]) =>
    Object.entries(r.fields).filter(([k, v]) => typeof v === "string" && /[a-z]/i.test(v) && v.length <= 60 && !/(^|_)(id|key|uuid)$|Id$|^id$|_at$|date|time/i.test(k));
  const usable = records.filter((r) => columns(r).length > 0);
  if (usable.length === 0) return undefined;
  const [key, value] = rng.pick(columns(rng.pick(usable)));
  const map = { [key]: PICKS_ROWS.test(name) || !o.newText ? value : rng.pick(WORDS) };
  return schemaAccepts(values as JsonSchema, map[key]) && schemaAccepts(s as JsonSchema, map) ? map : undefined;
}

/** How a work-folder argument names the server's working directory: "./", not ".", which some
 *  servers take for "the folder set earlier in this session" (git-mcp-server). */
export const WORK_DIR = "./";

/**
 * A string argument that names the repository or project folder the tool works in (git servers'
 * `path`/`repo_path`: "Path to the Git repository"), not a file in it: its value is the server's
 * working directory — the --cwd folder or the instance's --template-dir copy — where the data is.
 * An argument that must be absolute, or whose schema refuses "./", is left to the usual rules.
 */
export function workDirArgument(name: string, schema: Schema, root: Schema): boolean {
  const s = resolveRef(schema, root);
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== "null") : s.type;
  if (type !== undefined && type !== "string") return false;
  if ("const" in s || Array.isArray(s.enum)) return false;
  const words = name.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase().split(/[^a-z]+/).filter(Boolean);
  if (!words.some((w) => /^(path|dir|directory|repo|repository|cwd|root|folder)$/.test(w))) return false;
  if (words.some((w) => /^(file|files|filename|target|dest|destination|source|src|output|new|old|worktree|clone)$/.test(w))) return false;
  const description = typeof s.description === "string" ? s.description : "";
  if (!/\b(git )?repositor(y|ies)\b|\bworking director(y|ies)\b|\bproject (root|director(y|ies)|folder)\b/i.test(description)) return false;
  if (/\babsolute\b|\bfile\b/i.test(description)) return false;
  return schemaAccepts(s as JsonSchema, WORK_DIR);
}

/**
 * A string argument naming the date or time the call is about (`date`, `time`, `datetime`,
 * `timestamp`, `day`, `month`, `year`, `week`; not `timezone`, `time_format` or `timeout`), or one
 * whose description asks for a date layout.
 */
export function datedArgument(name: string, schema: Schema, root: Schema): boolean {
  const s = resolveRef(schema, root);
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== "null") : s.type;
  if (type !== undefined && type !== "string") return false;
  if ("const" in s || Array.isArray(s.enum)) return false;
  const words = name.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase().split(/[^a-z]+/).filter(Boolean);
  if (words.some((w) => /^(format|zone|timezone|tz|unit|units|interval|duration|period|range|type|kind|limit|out|timeout)$/.test(w))) return false;
  if (words.some((w) => /^(date|time|datetime|timestamp|day|month|year|week)$/.test(w))) return true;
  return dateLayout(typeof s.description === "string" ? s.description : "") !== undefined;
}

/** What a change is given to write (`title`, `new_name`, `body`…), as opposed to what it finds (an id, a key, an entity's name to add to). */
const NEW_TEXT = /^(new)?(title|name|text|content|contents|body|description|summary|note|message|label|subject)$/;

/** Arguments that count things (limit, offset, page…) take whole numbers, of everyday size. */
function countLike(name: string): "start" | "page" | "size" | undefined {
  const words = name.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase().split(/[^a-z]+/).filter(Boolean);
  const last = words.at(-1) ?? "";
  // maxCommits, max_results, num_tags: a count of the things named
  if (words.length > 1 && /^(max|num|n)$/.test(words[0]) && /s$/.test(last)) return "size";
  if (/^(offset|skip|start|index)$/.test(last)) return "start";
  if (last === "page") return "page";
  if (/^(limit|count|size|top|results|n|k|depth|max)$/.test(last)) return "size";
  return undefined;
}

function typeMatches(type: string, v: unknown): boolean {
  if (type === "string") return typeof v === "string";
  if (type === "integer") return Number.isInteger(v);
  return typeof v === "number";
}

/**
 * The bounds that say something about a value: zod 4 writes every `.int()` as
 * -9007199254740991 … 9007199254740991 (the safe integers), which is no range a person means, so a
 * bound beyond ±2^31 counts as none (else an argument of a zod-4 server came out as -9007199254740000).
 */
function bounds(s: Schema, integer: boolean): { min?: number; max?: number } {
  const meaningful = (v: number | undefined) => (v !== undefined && Math.abs(v) < WIDE ? v : undefined);
  return {
    min: meaningful(typeof s.minimum === "number" ? s.minimum : typeof s.exclusiveMinimum === "number" ? s.exclusiveMinimum + (integer ? 1 : 1e-6) : undefined),
    max: meaningful(typeof s.maximum === "number" ? s.maximum : typeof s.exclusiveMaximum === "number" ? s.exclusiveMaximum - (integer ? 1 : 1e-6) : undefined),
  };
}

// zod 4 writes a plain .int() as ±Number.MAX_SAFE_INTEGER: no bound at all (a real one, such as
// a millisecond timestamp's 1e12 minimum, is kept)
const WIDE = Number.MAX_SAFE_INTEGER;

function synthNumber(s: Schema, integer: boolean, rng: Rng, idLike = false): number {
  let { min, max } = bounds(s, integer);
  // Unbounded sides get a human-sized range: tasks read better with 17 than with 8.3e15.
  if (min === undefined && max === undefined) [min, max] = [1, 100];
  else if (min === undefined) min = Math.min(max! - 100, 0);
  else if (max === undefined) max = min + 100;
  // Prefer the small end of very wide ranges.
  if (max! - min! > 1000) max = min! + 1000;
  const step = typeof s.multipleOf === "number" ? s.multipleOf : integer ? 1 : 0;
  if (step > 0) {
    const lo = Math.ceil(min! / step);
    const hi = Math.floor(max! / step);
    return Number((rng.int(lo, Math.max(lo, hi)) * step).toPrecision(12));
  }
  // Ids usually count up from 1: an unknown id is most likely a small one.
  if (integer && idLike && rng.bool(0.6)) return rng.int(Math.ceil(min!), Math.min(Math.floor(max!), Math.ceil(min!) + 9));
  if (integer) return rng.int(Math.ceil(min!), Math.floor(max!));
  return Number((min! + rng.next() * (max! - min!)).toFixed(2));
}

/** Cities of the tz database a person would name (a fixed list: Node's own list varies with its ICU). */
const IANA_ZONES = ["Europe/London", "Europe/Paris", "Europe/Berlin", "Europe/Madrid", "America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles", "America/Sao_Paulo", "Asia/Tokyo", "Asia/Shanghai", "Asia/Kolkata", "Asia/Dubai", "Asia/Singapore", "Australia/Sydney", "Africa/Cairo", "Africa/Johannesburg", "Pacific/Auckland"];

const WORDS = ["alpha", "bravo", "delta", "echo", "harbor", "maple", "orbit", "river", "summit", "velvet"];

/**
 * A string of the kind an argument's name or description names when its schema has no
 * `format`: third-party servers describe their inputs in words ("IP address", "Date string
 * (ISO8601)", "CIDR notation (e.g. 192.168.1.0/24)", "Semver version string"), and a random word
 * makes every such call an error. An example the description gives is used as it is, half the time.
 */
function describedString(name: string, description: string, rng: Rng): string | undefined {
  const hint = `${name.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " ")} ${description}`.toLowerCase();
  // "Format: YYYY-MM-DD HH:mm:ss", "e.g. 2025-03-23 12:30:00": a date in that layout (the
  // example below would stop at its space)
  const layout = dateLayout(description);
  if (layout) return formatDate(layout, rng);
  // "The source timezone. IANA timezone name, e.g. Asia/Shanghai": a zone of the tz database
  if (/\btime ?zones?\b|\btz\b|\biana\b/.test(hint) && !/format|offset/.test(hint)) return rng.pick(IANA_ZONES);
  const example = /\be\.g\.,?\s*["'`]?([^"'`\s,;]+[^"'`\s,;).])/i.exec(description)?.[1];
  if (example && rng.bool(0.5)) return example;
  const n = (lo: number, hi: number) => String(rng.int(lo, hi));
  if (/\bcidr\b/.test(hint)) return `10.${n(0, 255)}.${n(0, 255)}.0/${rng.pick(["16", "24", "28"])}`;
  if (/\bip\b|ip address|ipv4/.test(hint)) return `192.168.${n(0, 255)}.${n(1, 254)}`;
  // "a date (ISO 8601 format)" is a date; "the date format to use" is not
  if ((/iso ?8601/.test(hint) && !/duration|interval|period/.test(hint)) || (/\bdates?\b|\bday\b/.test(hint) && !/format|pattern/.test(hint))) return `2024-${n(1, 12).padStart(2, "0")}-${n(1, 28).padStart(2, "0")}`;
  if (/semver|\bversion\b/.test(hint)) return `${n(0, 5)}.${n(0, 20)}.${n(0, 20)}`;
  if (/#hex|hex colou?r|\bcolou?r\b/.test(hint)) return `#${Array.from({ length: 6 }, () => "0123456789abcdef"[rng.int(0, 15)]).join("")}`;
  if (/\b(math )?expression\b|formula/.test(hint)) return `${n(2, 99)} ${rng.pick(["+", "-", "*"])} ${n(2, 99)}`;
  if (/\burl\b|\buri\b|website|link/.test(hint)) return `https://example.com/${rng.pick(WORDS)}`;
  return undefined;
}

/**
 * The layout of a date a description asks for, by its pattern ("Format: YYYY-MM-DD HH:mm:ss.SSS")
 * or its example ("e.g. 2025-03-23 12:30:00" gives "YYYY-MM-DD HH:mm:ss"); undefined when it names neither.
 */
export function dateLayout(description: string): string | undefined {
  const pattern = /\b(?:YYYY|yyyy)([-/.])MM(?:\1(?:DD|dd))?(?:[ T](?:HH|hh):mm(?::ss(?:\.SSS)?)?)?/.exec(description)?.[0];
  if (pattern) return pattern.replace(/yyyy/, "YYYY").replace(/dd/, "DD").replace(/hh/, "HH");
  const example = /\b\d{4}([-/.])\d{2}(?:\1\d{2})?(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d{3})?)?)?/.exec(description)?.[0];
  if (!example) return undefined;
  const letters = ["YYYY", "MM", "DD", "HH", "mm", "ss", "SSS"];
  let i = 0;
  return example.replace(/\d+/g, () => letters[i++]);
}

/** A date in 2024 written in a layout of dateLayout's: a day of 1–28, a quarter hour, no seconds. */
function formatDate(layout: string, rng: Rng): string {
  const two = (v: number) => String(v).padStart(2, "0");
  const parts: Record<string, string> = { YYYY: "2024", MM: two(rng.int(1, 12)), DD: two(rng.int(1, 28)), HH: two(rng.int(0, 23)), mm: two(rng.pick([0, 15, 30, 45])), ss: "00", SSS: "000" };
  return layout.replace(/YYYY|MM|DD|HH|mm|ss|SSS/g, (k) => parts[k]);
}

function synthString(s: Schema, name: string, rng: Rng, noInvented = false): string | undefined {
  const format = typeof s.format === "string" ? s.format : "";
  const min = Number(s.minLength ?? 0);
  const max = Number(s.maxLength ?? 64);
  let v: string;
  switch (format) {
    case "email":
      v = `${rng.pick(WORDS)}.${rng.pick(WORDS)}@example.com`;
      break;
    case "uri":
    case "url":
      v = `https://example.com/${rng.pick(WORDS)}`;
      break;
    case "date":
      v = `2024-${String(rng.int(1, 12)).padStart(2, "0")}-${String(rng.int(1, 28)).padStart(2, "0")}`;
      break;
    case "date-time":
      v = `2024-${String(rng.int(1, 12)).padStart(2, "0")}-${String(rng.int(1, 28)).padStart(2, "0")}T12:00:00Z`;
      break;
    case "uuid":
      v = "00000000-0000-4000-8000-".concat(String(rng.int(0, 999999999999)).padStart(12, "0"));
      break;
    default: {
      const described = describedString(name, typeof s.description === "string" ? s.description : "", rng);
      if (described === undefined && noInvented) return undefined;
      v = described ?? (/email/i.test(name) ? `${rng.pick(WORDS)}@example.com` : rng.pick(WORDS));
    }
  }
  if (v.length > max) v = v.slice(0, max);
  while (v.length < min) v += rng.pick(WORDS);
  if (typeof s.pattern === "string") {
    try {
      if (!new RegExp(s.pattern, "u").test(v)) return undefined;
    } catch {
      return undefined;
    }
  }
  return v.slice(0, Math.max(max, min));
}

export function singular(word: string): string {
  if (/ies$/i.test(word)) return word.slice(0, -3) + "y";
  if (/(ss|us)$/i.test(word)) return word;
  if (/s$/i.test(word)) return word.slice(0, -1);
  return word;
}
