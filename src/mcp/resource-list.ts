/**
 * `list_resources` (resource-tools.ts): the server's resources as lines of text, one page at a
 * time. A page holds what fits in a tool result (the toolbox's maxOutputChars) and what at most
 * MAX_PAGES of the server's own pages hold; when more are left, its last line says how many and
 * gives a cursor to call again with — nothing is cut without saying where the rest is.
 *
 * The cursor is stateless: the server's cursor of the page where the next unlisted resource is,
 * and how many of that page's resources came before it (base64url JSON, opaque to the model).
 * Any instance of the server (an isolated() one too) continues from it, and a listing continued
 * across calls never repeats or skips a resource, whatever the server's page size.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { z } from "zod";
import { truncate } from "./normalize.js";
import type { ToolResult } from "./types.js";

/** most of the server's pages one call reads (a server may paginate forever) */
export const MAX_PAGES = 20;

const TEMPLATES_HEADING = "URI templates (fill in the {braces}):";
/** "Resources:", or "Resources (each: <the description every one of them has>):" */
const RESOURCES_HEADING = /^Resources(?: \(each: .*\))?:$/;

// loose, like tools/call results: one odd entry should not fail the whole answer
const Described = { name: z.string().optional(), title: z.string().optional(), description: z.string().optional(), mimeType: z.string().optional() };
const ResourcesPage = z.looseObject({ resources: z.array(z.looseObject({ uri: z.string(), ...Described })), nextCursor: z.string().optional() });
const TemplatesPage = z.looseObject({ resourceTemplates: z.array(z.looseObject({ uriTemplate: z.string(), ...Described })), nextCursor: z.string().optional() });

type Resource = z.infer<typeof ResourcesPage>["resources"][number];
type Template = z.infer<typeof TemplatesPage>["resourceTemplates"][number];
type Entry = Resource | Template;

/** Where a listing goes on: the server's cursor of a page (none: the first), and how many of its resources to pass over. */
const Position = z.tuple([z.string().nullable(), z.number().int().min(0)]);
type Position = z.infer<typeof Position>;

export function encodeCursor(at: Position): string {
  return Buffer.from(JSON.stringify(at)).toString("base64url");
}

export function decodeCursor(cursor: string): Position | undefined {
  try {
    const parsed = Position.safeParse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** One page of list_resources; a cursor that is not one it gave is a tool error (invalid_arguments). */
export async function listResources(client: Client, args: { query?: unknown; cursor?: unknown }, options: RequestOptions, maxChars: number): Promise<ToolResult> {
  const query = typeof args.query === "string" && args.query.trim() !== "" ? args.query.trim().toLowerCase() : undefined;
  const matches = (uri: string, r: Entry) => !query || [uri, r.name, r.title, r.description].some((x) => x?.toLowerCase().includes(query));
  const first = typeof args.cursor !== "string";
  const start = first ? ([null, 0] as Position) : decodeCursor(args.cursor as string);
  if (!start)
    return { isError: true, fault: "invalid_arguments", truncated: false, text: `invalid arguments for list_resources: cursor ${JSON.stringify(args.cursor)} is not one list_resources gave; call it without a cursor to start over` };

  const read = await resourcePages(client, start, options);
  // templates (few and short) lead the first page; a server may not answer templates/list at all
  const [allTemplates, templatesCut] = first ? await templatePages(client, options).catch(() => [[], false] as const) : [[], false];
  const templates = allTemplates.filter((t) => matches(t.uriTemplate, t));
  const found = read.items.filter(({ resource: r }) => matches(r.uri, r));
  // a description every resource repeats (one a template gave them all) is said once
  const shared = found.length >= 3 && found.every(({ resource: r }) => r.description && r.description === found[0].resource.description) ? oneLine(found[0].resource.description!) : undefined;
  const heading = shared ? `Resources (each: ${shared}):` : "Resources:";
  const head = templates.length > 0 ? [TEMPLATES_HEADING, ...templates.map((t) => describe(t.uriTemplate, t)), heading] : shared ? [heading] : [];
  const lines = found.map(({ resource: r }) => describe(r.uri, shared ? { ...r, description: undefined } : r));

  const what = query ? "matching resources" : "resources";
  const footer = (shown: number): string | undefined => {
    const left = found.length - shown;
    const next = left > 0 ? found[shown].at : read.next;
    if (!next) return undefined;
    const more = left > 0 ? `${left}${read.next ? "+" : ""} more ${what}` : `more ${what} on the server's later pages`;
    return `(${more}: call list_resources again with cursor "${encodeCursor(next)}"${query ? " and the same query" : ""} for the next ones)`;
  };
  // as many lines as fit with their footer; at least one, so a cursor always moves on
  let shown = 0;
  for (let size = head.join("\n").length; shown < lines.length; shown++) {
    size += lines[shown].length + 1;
    if (shown > 0 && size + 1 + (footer(shown + 1)?.length ?? 0) > maxChars) break;
  }
  const body = lines.slice(0, shown);
  if (body.length === 0 && !footer(0)) body.push(!first ? `(no more ${what})` : query ? `(no resource matches ${JSON.stringify(args.query)})` : "(the server lists no resources)");
  if (templatesCut) body.push(`…[the server has more than ${MAX_PAGES} pages of URI templates; the rest are not listed]`);
  // only a template list past the limit is still cut here, with the marker every long result gets
  return { isError: false, ...truncate([...head, ...body, footer(shown)].filter((l): l is string => l !== undefined).join("\n"), maxChars) };
}

/** The resources from `start` on, each with the position a cursor to it names, from at most
 *  MAX_PAGES of the server's pages; `next` is where the server's later pages begin. */
async function resourcePages(client: Client, [cursor, skip]: Position, options: RequestOptions): Promise<{ items: Array<{ resource: Resource; at: Position }>; next?: Position }> {
  const items: Array<{ resource: Resource; at: Position }> = [];
  const seen = new Set<string>(cursor === null ? [] : [cursor]);
  let page: string | null = cursor;
  for (let n = 0; n < MAX_PAGES; n++) {
    const result = await request(client, { method: "resources/list", params: page === null ? {} : { cursor: page } }, ResourcesPage, options);
    const from = n === 0 ? skip : 0;
    result.resources.slice(from).forEach((resource, i) => items.push({ resource, at: [page, from + i] }));
    // a server that hands back a cursor it gave before would loop forever
    if (result.nextCursor === undefined || seen.has(result.nextCursor)) return { items };
    seen.add(result.nextCursor);
    page = result.nextCursor;
  }
  return { items, next: [page, 0] };
}

/** The URI templates of at most MAX_PAGES pages, and whether the server has more. */
async function templatePages(client: Client, options: RequestOptions): Promise<readonly [Template[], boolean]> {
  const out: Template[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let n = 0; n < MAX_PAGES; n++) {
    const result = await request(client, { method: "resources/templates/list", params: cursor === undefined ? {} : { cursor } }, TemplatesPage, options);
    out.push(...result.resourceTemplates);
    cursor = result.nextCursor;
    if (cursor === undefined || seen.has(cursor)) return [out, false];
    seen.add(cursor);
  }
  return [out, true];
}

/** One request of the many a listing makes, on its own signal linked to the call's: the SDK
 *  leaves an abort listener on every request's signal, and 20 pages on one signal would pass
 *  Node's limit of 10 (MaxListenersExceededWarning). */
async function request<P>(client: Client, req: { method: string; params: Record<string, unknown> }, schema: z.ZodType<P>, options: RequestOptions): Promise<P> {
  const own = new AbortController();
  const forward = () => own.abort(options.signal?.reason);
  if (options.signal?.aborted) forward();
  options.signal?.addEventListener("abort", forward, { once: true });
  try {
    return await client.request(req, schema, { ...options, signal: own.signal });
  } finally {
    options.signal?.removeEventListener("abort", forward);
  }
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

function describe(uri: string, r: Entry): string {
  const name = r.title ?? r.name;
  const about = [name && name !== uri ? name : undefined, r.mimeType ? `(${r.mimeType})` : undefined].filter(Boolean).join(" ");
  return `${uri}${about ? ` — ${about}` : ""}${r.description ? `: ${oneLine(r.description)}` : ""}`;
}

/** One listed resource as list_resources shows it: `URI — name (type): description`. */
export interface ListedResource {
  uri: string;
  /** its title or name, when it has one other than the URI */
  name?: string;
}

/** The resources (not the templates) in list_resources' text, as `describe` wrote them. */
export function parseResourceListing(text: string): ListedResource[] {
  const lines = text.split("\n");
  const start = lines.findIndex((l) => RESOURCES_HEADING.test(l)) + 1; // 0 when there is no heading
  const out: ListedResource[] = [];
  for (const line of lines.slice(start)) {
    const m = /^(\S+?)(?: — (.+?))?(?: \([^()]*\))?(?:: .*)?$/.exec(line);
    if (!m || !m[1].includes(":") || line.startsWith("…[") || line.startsWith("(")) continue;
    out.push(m[2] !== undefined ? { uri: m[1], name: m[2] } : { uri: m[1] });
  }
  return out;
}
