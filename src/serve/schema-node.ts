/**
 * The JSON Schema subset that constrained decoding enforces, compiled into a small tree of nodes
 * the character automaton (json-automaton.ts) walks. The subset is what structured-output
 * callers send in practice (OpenAI strict schemas, the RULER judge reply, scenario generators):
 * object (properties, required, additionalProperties), string (enum, const, minLength,
 * maxLength), number / integer (minimum, maximum, exclusiveMinimum, exclusiveMaximum), boolean,
 * null, array (items, minItems, maxItems), enum / const of any JSON values, anyOf (and `type` as a
 * list), local `$ref` to `$defs` (inlined; not recursive ones), and `{}` / `true` for any value. Where
 * the caller asks for the schema strictly (`strict: true`), any other validation keyword is refused
 * with an error naming its path, rather than silently not enforced: a caller that asks for
 * `pattern` must learn it is not guaranteed; otherwise (`loose`) it goes unenforced. Annotations (title, description, default, examples, $schema, $id...) are
 * ignored.
 */

import { numberCompletion } from "./number-prefix.js";

export type SchemaNode =
  | { kind: "any" }
  | { kind: "object"; props: Map<string, SchemaNode>; required: string[]; additional: SchemaNode | null }
  | { kind: "array"; items: SchemaNode; minItems: number; maxItems: number }
  | { kind: "string"; enum: string[] | null; minLength: number; maxLength: number }
  | { kind: "number"; integer: boolean; min: Bound | null; max: Bound | null }
  | { kind: "literal"; texts: string[] } // JSON texts of allowed values (true, false, null, enum members)
  | { kind: "anyOf"; options: SchemaNode[] };

export interface Bound {
  value: number;
  exclusive: boolean;
}

/** JSON text with every non-ASCII character as a \u escape (surrogate pairs as two): text any
 *  vocabulary can write, for completions. */
export function asciiJson(v: unknown): string {
  return JSON.stringify(v).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export class SchemaError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
  }
}

const ANNOTATIONS = new Set(["title", "description", "default", "examples", "$schema", "$id", "$comment", "deprecated", "readOnly", "writeOnly", "name", "strict"]);
const KEYWORDS: Record<string, Set<string>> = {
  object: new Set(["type", "properties", "required", "additionalProperties"]),
  array: new Set(["type", "items", "minItems", "maxItems"]),
  string: new Set(["type", "enum", "const", "minLength", "maxLength"]),
  number: new Set(["type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]),
  integer: new Set(["type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]),
  boolean: new Set(["type"]),
  null: new Set(["type"]),
};
const TYPES = ["object", "array", "string", "number", "integer", "boolean", "null"];

const ANY: SchemaNode = { kind: "any" };
export const ANY_OBJECT: SchemaNode = { kind: "object", props: new Map(), required: [], additional: ANY };

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function nonNegInt(v: unknown, path: string): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0) throw new SchemaError(path, `must be a non-negative integer, got ${JSON.stringify(v)}`);
  return v;
}

function num(v: unknown, path: string): number {
  if (typeof v !== "number" || !Number.isFinite(v)) throw new SchemaError(path, `must be a finite number, got ${JSON.stringify(v)}`);
  return v;
}

export interface CompileOptions {
  /** tool arguments, and response formats not marked strict: keywords outside the subset
   *  (pattern, format, minProperties...) are not enforced instead of refused, and oneOf is
   *  decoded as anyOf — the rest is still held to */
  loose?: boolean;
}

/** Compiles a JSON Schema (the subset above) into a node tree; throws SchemaError naming the path.
 *  Local `$ref`s ("#/$defs/Point", as pydantic and MCP SDKs write them) are inlined first. */
export function compileSchema(schema: unknown, path = "schema", o: CompileOptions = {}): SchemaNode {
  return compileNode(inlineRefs(schema, schema, path, []), path, o.loose ?? false);
}

/** `node` with every local `$ref` replaced by what it points to (siblings of the `$ref` kept over
 *  it) and `$defs` / `definitions` dropped; a recursive definition cannot be inlined and is refused. */
function inlineRefs(node: unknown, root: unknown, path: string, resolving: string[]): unknown {
  if (Array.isArray(node)) return node.map((v, i) => inlineRefs(v, root, `${path}[${i}]`, resolving));
  if (!isRecord(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "$defs" || k === "definitions" || k === "$ref") continue;
    // enum / const values are data, not schemas
    out[k] = k === "enum" || k === "const" ? v : inlineRefs(v, root, `${path}.${k}`, resolving);
  }
  const ref = node.$ref;
  if (ref === undefined) return out;
  if (typeof ref !== "string" || !ref.startsWith("#")) throw new SchemaError(`${path}.$ref`, `only local references ("#/$defs/Name") are supported, got ${JSON.stringify(ref)}`);
  if (resolving.includes(ref)) throw new SchemaError(`${path}.$ref`, `${ref} refers to itself: recursive schemas are not supported by constrained decoding`);
  let target: unknown = root;
  for (const raw of ref.slice(1).split("/").filter((x) => x !== "")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    target = isRecord(target) ? target[key] : Array.isArray(target) ? target[Number(key)] : undefined;
    if (target === undefined) throw new SchemaError(`${path}.$ref`, `${ref} points at nothing in the schema`);
  }
  const resolved = inlineRefs(target, root, `${path}.$ref`, [...resolving, ref]);
  return isRecord(resolved) ? { ...resolved, ...out } : Object.keys(out).length ? out : resolved;
}

function compileNode(schema: unknown, path: string, loose: boolean): SchemaNode {
  if (schema === true) return ANY;
  if (schema === false) throw new SchemaError(path, "the schema `false` admits no value");
  if (!isRecord(schema)) throw new SchemaError(path, `must be an object, got ${JSON.stringify(schema)}`);
  if (loose && "oneOf" in schema && !("anyOf" in schema)) {
    const { oneOf, ...rest } = schema;
    return compileNode({ ...rest, anyOf: oneOf }, path, loose);
  }
  if ("oneOf" in schema || "allOf" in schema || "not" in schema) throw new SchemaError(path, "oneOf/allOf/not are not supported; use anyOf");
  if ("anyOf" in schema) {
    const list = schema.anyOf;
    if (!Array.isArray(list) || list.length === 0) throw new SchemaError(`${path}.anyOf`, "must be a non-empty array");
    for (const k of Object.keys(schema)) if (k !== "anyOf" && !ANNOTATIONS.has(k) && !loose) throw new SchemaError(`${path}.${k}`, `keyword "${k}" beside anyOf is not supported; put it inside each alternative`);
    return { kind: "anyOf", options: list.map((s, i) => compileNode(s, `${path}.anyOf[${i}]`, loose)) };
  }
  if ("enum" in schema || "const" in schema) {
    const values = "const" in schema ? [schema.const] : schema.enum;
    if (!Array.isArray(values) || values.length === 0) throw new SchemaError(`${path}.enum`, "must be a non-empty array");
    for (const k of Object.keys(schema)) if (!["enum", "const", "type"].includes(k) && !ANNOTATIONS.has(k) && !loose) throw new SchemaError(`${path}.${k}`, `keyword "${k}" beside enum/const is not supported`);
    // `type` beside enum: the members must be of it ({"type": "integer", "enum": ["a"]} allows nothing)
    if (schema.type !== undefined && !loose) {
      const types = Array.isArray(schema.type) ? schema.type : [schema.type];
      const typeOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "number" ? (Number.isInteger(v) ? "integer" : "number") : typeof v);
      const bad = values.find((v) => !types.includes(typeOf(v)) && !(typeOf(v) === "integer" && types.includes("number")));
      if (bad !== undefined) throw new SchemaError(`${path}.enum`, `${JSON.stringify(bad)} is not of the type ${JSON.stringify(schema.type)} beside it`);
    }
    if (values.every((v) => typeof v === "string")) return { kind: "string", enum: values as string[], minLength: 0, maxLength: Infinity };
    // a non-ASCII character may also be written as a \u escape: a byte-level vocabulary may have
    // no token holding the character whole ("Zürich" as "Z\u00fcrich")
    return { kind: "literal", texts: [...new Set(values.flatMap((v) => [JSON.stringify(v), asciiJson(v)]))] };
  }
  const type = schema.type;
  if (type === undefined) {
    const keys = Object.keys(schema).filter((k) => !ANNOTATIONS.has(k));
    if (keys.length === 0) return ANY;
    // a schema with properties but no type is an object schema in practice
    if (keys.some((k) => k === "properties" || k === "required" || k === "additionalProperties")) return compileTyped({ ...schema, type: "object" }, "object", path, loose);
    if (loose) return ANY;
    throw new SchemaError(`${path}.${keys[0]}`, `keyword "${keys[0]}" without "type" is not supported`);
  }
  if (Array.isArray(type)) {
    if (type.length === 0) throw new SchemaError(`${path}.type`, "must not be empty");
    const options = type.map((t, i) => {
      if (typeof t !== "string" || !TYPES.includes(t)) throw new SchemaError(`${path}.type[${i}]`, `unknown type ${JSON.stringify(t)}`);
      return compileTyped(schema, t, path, loose, true);
    });
    return options.length === 1 ? options[0] : { kind: "anyOf", options };
  }
  if (typeof type !== "string" || !TYPES.includes(type)) throw new SchemaError(`${path}.type`, `unknown type ${JSON.stringify(type)} (expected one of ${TYPES.join(", ")})`);
  return compileTyped(schema, type, path, loose);
}

function compileTyped(s: Record<string, unknown>, type: string, path: string, loose: boolean, lenient = false): SchemaNode {
  // with `type` as a list, keywords of the other listed types are legal; check against all of them
  const allowed = lenient ? new Set([...Object.values(KEYWORDS).flatMap((k) => [...k])]) : KEYWORDS[type];
  for (const k of Object.keys(s)) {
    if (!allowed.has(k) && !ANNOTATIONS.has(k) && !loose) throw new SchemaError(`${path}.${k}`, `keyword "${k}" is not supported by constrained decoding (type ${type} supports: ${[...KEYWORDS[type]].join(", ")})`);
  }
  switch (type) {
    case "object": {
      const props = new Map<string, SchemaNode>();
      if (s.properties !== undefined) {
        if (!isRecord(s.properties)) throw new SchemaError(`${path}.properties`, "must be an object");
        for (const [k, v] of Object.entries(s.properties)) props.set(k, compileNode(v, `${path}.properties.${k}`, loose));
      }
      let required: string[] = [];
      if (s.required !== undefined) {
        if (!Array.isArray(s.required) || s.required.some((r) => typeof r !== "string")) throw new SchemaError(`${path}.required`, "must be an array of strings");
        required = [...new Set(s.required as string[])];
      }
      const ap = s.additionalProperties;
      // JSON Schema's default is true: any further key with any value
      const additional = ap === undefined || ap === true ? ANY : ap === false ? null : compileNode(ap, `${path}.additionalProperties`, loose);
      for (const r of required) if (!props.has(r) && additional === null) throw new SchemaError(`${path}.required`, `"${r}" is required but not in properties and additionalProperties is false`);
      for (const r of required) if (!props.has(r)) props.set(r, additional ?? ANY);
      return { kind: "object", props, required, additional };
    }
    case "array": {
      const items = s.items === undefined ? ANY : compileNode(s.items, `${path}.items`, loose);
      const minItems = s.minItems === undefined ? 0 : nonNegInt(s.minItems, `${path}.minItems`);
      const maxItems = s.maxItems === undefined ? Infinity : nonNegInt(s.maxItems, `${path}.maxItems`);
      if (minItems > maxItems) throw new SchemaError(`${path}.minItems`, `minItems ${minItems} > maxItems ${maxItems}`);
      return { kind: "array", items, minItems, maxItems };
    }
    case "string": {
      const minLength = s.minLength === undefined ? 0 : nonNegInt(s.minLength, `${path}.minLength`);
      const maxLength = s.maxLength === undefined ? Infinity : nonNegInt(s.maxLength, `${path}.maxLength`);
      if (minLength > maxLength) throw new SchemaError(`${path}.minLength`, `minLength ${minLength} > maxLength ${maxLength}`);
      return { kind: "string", enum: null, minLength, maxLength };
    }
    case "number":
    case "integer": {
      const bound = (inc: string, exc: string, pick: (a: number, b: number) => boolean): Bound | null => {
        let b: Bound | null = s[inc] === undefined ? null : { value: num(s[inc], `${path}.${inc}`), exclusive: false };
        if (s[exc] !== undefined) {
          const e = { value: num(s[exc], `${path}.${exc}`), exclusive: true };
          if (!b || pick(e.value, b.value) || e.value === b.value) b = e;
        }
        return b;
      };
      const min = bound("minimum", "exclusiveMinimum", (a, b) => a > b);
      const max = bound("maximum", "exclusiveMaximum", (a, b) => a < b);
      if (min && max && (min.value > max.value || (min.value === max.value && (min.exclusive || max.exclusive))))
        throw new SchemaError(path, `no number satisfies the bounds ${JSON.stringify({ min, max })}`);
      const integer = type === "integer";
      if (integer && min && max) {
        const lo = min.exclusive ? Math.floor(min.value) + 1 : Math.ceil(min.value);
        const hi = max.exclusive ? Math.ceil(max.value) - 1 : Math.floor(max.value);
        if (lo > hi) throw new SchemaError(path, `no integer lies between ${min.value} and ${max.value}`);
      }
      const node: SchemaNode = { kind: "number", integer, min, max };
      // bounds only a longer number meets (a minimum of 1e25) would leave the decoder no way out
      if (numberCompletion("", node) === null) throw new SchemaError(path, `no ${type} of at most 24 characters satisfies the bounds ${JSON.stringify({ min, max })}`);
      return node;
    }
    case "boolean":
      return { kind: "literal", texts: ["true", "false"] };
    default:
      return { kind: "literal", texts: ["null"] };
  }
}
