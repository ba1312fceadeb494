/**
 * Harvesting real values from tool results, so later calls use ids, names and emails the
 * server actually knows rather than invented ones (the chain "look up an id, then act on it").
 *
 * Every scalar found in a result's structuredContent (or in JSON inside its text) is filed under
 * its key and under aliases: `{"products":[{"id":"P1"}]}` yields `id`, `product_id`, `productId`;
 * the top level of `get_customer`'s result also yields `customer_id`. Emails and id-like tokens
 * in plain text are filed under `email` and `id`. Whole objects are kept as records, so a
 * template can pair a product's name with its id. Insertion order is kept: deterministic.
 */
import { parseJsonLoose } from "../check.js";
import { mentionsWorkCopy } from "../../mcp/toolbox.js";
import type { ToolResult, ToolSpec } from "../../mcp/types.js";
import { schemaAccepts, singular } from "./schema-values.js";
import { reportsFailure } from "./recipe.js";
import { markdownTableRecords } from "./markdown-table.js";

export type Scalar = string | number | boolean;

export interface HarvestRecord {
  /** tool whose result held the object */
  tool: string;
  /** the key path to the object, e.g. "products" */
  context: string;
  fields: Record<string, Scalar>;
  /** the scalar arguments of the call whose result held it (`{table: "customers"}`): which
   *  table's row a record is, where the result does not say */
  given?: Record<string, Scalar>;
}

/** "Product-ID", "product_id", "productId" → "productid" */
export function normKey(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, "");
}

export class ValuePool {
  private readonly byKey = new Map<string, Scalar[]>();
  readonly records: HarvestRecord[] = [];

  add(key: string, value: Scalar): void {
    const k = normKey(key);
    if (!k) return;
    // (a path into this server instance's working copy is no argument for another instance)
    if (typeof value === "string" && (value.length === 0 || value.length > 120 || mentionsWorkCopy(value))) return;
    const list = this.byKey.get(k) ?? [];
    if (!list.some((v) => v === value)) list.push(value);
    this.byKey.set(k, list);
  }

  /** an independent copy (records and value lists are copied, scalars shared) */
  clone(): ValuePool {
    const c = new ValuePool();
    for (const [k, v] of this.byKey) c.byKey.set(k, [...v]);
    c.records.push(...this.records.map((r) => ({ ...r, fields: { ...r.fields } })));
    return c;
  }

  keys(): string[] {
    return [...this.byKey.keys()];
  }

  /**
   * Values for an argument name: exact key, then for `x_id` the plain `id` of records about x,
   * then for an argument named after a thing (`table`, `repo`) that thing's name (`table_name`,
   * filed from list_tables' `name`s), then for anything mentioning email, every email seen.
   */
  lookup(name: string): Scalar[] {
    const k = normKey(name);
    const exact = this.byKey.get(k);
    if (exact && exact.length > 0) return exact;
    const named = this.byKey.get(`${k}name`);
    if (named && named.length > 0 && /^[a-z]+$/.test(k)) return named;
    // a search is best made for something the server holds: a name or title it gave, else the
    // name of a file it listed ("falcon" of "/projects/falcon.md")
    if (SEARCH_ARG.test(k)) {
      const named = [...this.byKey.entries()].filter(([key]) => /(name|title)$/.test(key)).flatMap(([, v]) => v.filter((x) => typeof x === "string" && x.length <= 40));
      if (named.length > 0) return named;
      return [...new Set((this.byKey.get("path") ?? []).map((p) => String(p).split(/[\\/]/).pop()!.replace(/\.[a-z0-9]{1,5}$/i, "")).filter((x) => x.length >= 2 && x.length <= 40))];
    }
    if (/email/.test(k)) return [...this.byKey.entries()].filter(([key]) => key.includes("email")).flatMap(([, v]) => v);
    return [];
  }

  /** Records from `tool` (or any tool) having all of `fields`. */
  recordsWith(fields: readonly string[], tool?: string): HarvestRecord[] {
    return this.records.filter((r) => (tool === undefined || r.tool === tool) && fields.every((f) => f in r.fields));
  }

  /** Files every value in one tool result. */
  harvest(tool: string, result: ToolResult, args?: Record<string, unknown>): void {
    if (result.isError || reportsFailure(result)) return;
    const data = result.structuredContent ?? parseJsonLoose(result.text)?.value;
    if (data !== undefined) this.harvestData(tool, data, args);
    else {
      this.harvestListing(result.text);
      // a listing as a Markdown table: each row a record, its cells filed by their column's name
      const rows = markdownTableRecords(result.text);
      if (rows.length > 0) this.harvestData(tool, rows, args);
    }
    for (const email of result.text.match(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g) ?? []) this.add("email", email);
  }

  /**
   * A plain-text listing, one name to a line under an optional heading (server-redis's "Found
   * keys:\nuser:1\n…", mcp-obsidian's search: "/daily/2024-03-14.md" lines): each name filed under
   * the heading's noun ("key"), and one that looks like a path under `path` too. Text with a
   * space in a line is prose, not a listing.
   */
  private harvestListing(text: string): void {
    const lines = text.split("\n").map((l) => l.trim()).filter((l) => l.length > 0);
    const heading = lines.length > 1 && /^[\w ]{1,40}:$/.test(lines[0]) && lines[0].split(" ").length <= 4 ? lines.shift()! : "";
    if (lines.length === 0 || lines.length > 200 || !lines.every((l) => l.length <= 120 && /^[^\s,;]+$/.test(l))) return;
    const noun = singular(heading.replace(/:$/, "").split(" ").pop()?.toLowerCase() ?? "");
    for (const line of lines) {
      if (noun) this.add(noun, line);
      if (/[\\/]|\.[a-z0-9]{1,5}$/i.test(line)) this.add("path", line);
    }
  }

  /** Files every value in a JSON value (a result's data, or the arguments a call was given). */
  harvestData(tool: string, data: unknown, args?: Record<string, unknown>): void {
    const given = args && Object.fromEntries(Object.entries(args).filter((e): e is [string, Scalar] => ["string", "number", "boolean"].includes(typeof e[1])));
    this.walk(tool, data, toolNoun(tool), 0, given && Object.keys(given).length > 0 ? given : undefined);
  }

  private walk(tool: string, value: unknown, context: string, depth: number, given?: Record<string, Scalar>): void {
    if (depth > 6 || value === null || typeof value !== "object") return;
    if (Array.isArray(value)) {
      for (const item of value.slice(0, 200)) this.walk(tool, item, context, depth + 1, given);
      return;
    }
    const fields: Record<string, Scalar> = {};
    const noun = singular(context);
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") {
        fields[key] = v;
        this.add(key, v);
        if (noun && !normKey(key).startsWith(normKey(noun))) this.add(`${noun}_${key}`, v);
      } else {
        this.walk(tool, v, key, depth + 1, given);
      }
    }
    if (Object.keys(fields).length > 0) this.records.push({ tool, context, fields, ...(given ? { given } : {}) });
  }
}

/** An argument that holds search text (normalized: "search_term" is "searchterm"). */
const SEARCH_ARG = /^(query|q|search|searchterm|searchquery|keyword|keywords|term)$/;

/**
 * Arguments that ask a search tool for everything it holds: its one required argument, search
 * text, left empty or given as a wildcard ("" and "*"), where the schema takes them. A server
 * with no tool that lists (mcp-obsidian's search_notes matches every note's name to "") shows
 * its things only this way; what a made-up query finds is nothing.
 */
export function matchAllArgs(tool: ToolSpec): Array<Record<string, unknown>> {
  const required = (tool.inputSchema.required as string[] | undefined) ?? [];
  const props = (tool.inputSchema.properties ?? {}) as Record<string, { type?: unknown }>;
  if (required.length !== 1 || !SEARCH_ARG.test(normKey(required[0])) || props[required[0]]?.type !== "string") return [];
  return ["", "*"].map((q) => ({ [required[0]]: q })).filter((args) => schemaAccepts(tool.inputSchema, args));
}

/** "get_customer" → "customer", "searchProducts" → "products", "lookup" → "" */
export function toolNoun(tool: string): string {
  const words = tool.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
  const verbs = new Set(["get", "list", "search", "find", "fetch", "lookup", "look", "up", "read", "show", "query", "by", "all"]);
  const nouns = words.filter((w) => !verbs.has(w));
  return nouns[0] ?? "";
}
