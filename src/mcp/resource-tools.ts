/**
 * Resources as tools (`--resource-tools`): MCP resources are the application's to read, not the
 * model's to call, so a tools-only client never shows them. Agents that want the model to read
 * them on its own (Claude Code's ListMcpResources / ReadMcpResource) give it two tools, and so
 * does this: `list_resources` (resources/list and resources/templates/list, with an optional
 * `query` to find one in a long list) and `read_resource` (resources/read). They are offered only
 * when the server declares the resources capability, and a server tool of the same name wins
 * (the synthetic one is left out, with a note). A `resource_link` in a tool result can then be
 * followed.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { z } from "zod";
import { normalizeResult } from "./normalize.js";
import type { ToolResult, ToolSpec } from "./types.js";

export const LIST_RESOURCES = "list_resources";
export const READ_RESOURCE = "read_resource";

/** a server listing more than this many pages of resources is cut off (and says so) */
const MAX_PAGES = 20;

const TEMPLATES_HEADING = "URI templates (fill in the {braces}):";
/** "Resources:", or "Resources (each: <the description every one of them has>):" */
const RESOURCES_HEADING = /^Resources(?: \(each: .*\))?:$/;

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const SPECS: ToolSpec[] = [
  {
    name: LIST_RESOURCES,
    description:
      "List the resources this server offers (documents, files, records): each one's URI, name, type and description, and URI templates for resources that are read by filling in a template. Read one with read_resource.",
    inputSchema: {
      type: "object",
      properties: { query: { type: "string", description: "only those whose URI, name or description contains this text (any case)" } },
      additionalProperties: false,
    },
    annotations: READ_ONLY,
  },
  {
    name: READ_RESOURCE,
    description: "Read one resource of this server by its URI, as listed by list_resources or linked in a tool result ([resource: URI]).",
    inputSchema: {
      type: "object",
      properties: { uri: { type: "string", minLength: 1, description: "the resource's URI, e.g. file:///notes.txt" } },
      required: ["uri"],
      additionalProperties: false,
    },
    annotations: READ_ONLY,
  },
];

/** True for the tools this module adds (a server's own tool of one of these names is not one). */
export function isResourceTool(tool: Pick<ToolSpec, "name" | "description">): boolean {
  return SPECS.some((s) => s.name === tool.name && s.description === tool.description);
}

/** For a call or a scenario naming a resource tool the server was not given: why it is missing. */
export function resourceToolHint(name: string, offered: boolean): string {
  if (name !== LIST_RESOURCES && name !== READ_RESOURCE) return "";
  return offered ? " (the server declares no resources capability)" : " (--resource-tools offers the server's resources as list_resources and read_resource)";
}

/** The synthetic tools a server with resources gets, with a note for each left out or missing. */
export function resourceToolSpecs(client: Client, serverTools: readonly ToolSpec[]): { tools: ToolSpec[]; notes: string[] } {
  if (!client.getServerCapabilities()?.resources)
    return { tools: [], notes: ["--resource-tools: the server declares no resources capability, so no resource tools were added"] };
  const taken = new Set(serverTools.map((t) => t.name));
  const clash = SPECS.filter((s) => taken.has(s.name)).map((s) => s.name);
  const notes = clash.map((n) => `--resource-tools: the server has its own tool "${n}", which is the one a model sees (the resource tool of that name is left out)`);
  return { tools: SPECS.filter((s) => !taken.has(s.name)), notes };
}

// loose, like tools/call results: one odd entry should not fail the whole answer
const Described = { name: z.string().optional(), title: z.string().optional(), description: z.string().optional(), mimeType: z.string().optional() };
const ResourcesPage = z.looseObject({ resources: z.array(z.looseObject({ uri: z.string(), ...Described })), nextCursor: z.string().optional() });
const TemplatesPage = z.looseObject({ resourceTemplates: z.array(z.looseObject({ uriTemplate: z.string(), ...Described })), nextCursor: z.string().optional() });
const ReadResult = z.looseObject({ contents: z.array(z.looseObject({ uri: z.string().optional() })) });

type Entry = z.infer<typeof ResourcesPage>["resources"][number] | z.infer<typeof TemplatesPage>["resourceTemplates"][number];

/** Runs one resource tool; protocol errors throw (the toolbox classifies them like a tools/call's). */
export async function callResourceTool(client: Client, name: string, args: Record<string, unknown>, options: RequestOptions, maxChars: number): Promise<ToolResult> {
  if (name === READ_RESOURCE) {
    const uri = String(args.uri);
    const result = await client.request({ method: "resources/read", params: { uri } }, ReadResult, options);
    if (result.contents.length === 0) return normalizeResult({ content: [{ type: "text", text: `(${uri} is empty)` }] }, maxChars);
    return normalizeResult({ content: result.contents.map((resource) => ({ type: "resource", resource })) }, maxChars);
  }
  const query = typeof args.query === "string" && args.query.trim() !== "" ? args.query.trim().toLowerCase() : undefined;
  const matches = (uri: string, r: Entry) => !query || [uri, r.name, r.title, r.description].some((x) => x?.toLowerCase().includes(query));
  const [allResources, resourcesCut] = await pages(client, "resources/list", ResourcesPage, (p) => p.resources, options);
  // templates are optional: a server may not answer resources/templates/list at all
  const [allTemplates, templatesCut] = await pages(client, "resources/templates/list", TemplatesPage, (p) => p.resourceTemplates, options).catch(() => [[], false] as const);
  const resources = allResources.filter((r) => matches(r.uri, r));
  const templates = allTemplates.filter((t) => matches(t.uriTemplate, t));
  // a description every resource repeats (one a template gave them all) is said once
  const shared = resources.length >= 3 && resources.every((r) => r.description && r.description === resources[0].description) ? oneLine(resources[0].description!) : undefined;
  const listed = resources.length > 0 ? resources.map((r) => describe(r.uri, shared ? { ...r, description: undefined } : r)) : [query ? `(no resource matches ${JSON.stringify(args.query)})` : "(the server lists no resources)"];
  const heading = shared ? `Resources (each: ${shared}):` : "Resources:";
  // templates first: few and short, they still show when a long list is cut at the output limit
  const lines = templates.length > 0 ? [TEMPLATES_HEADING, ...templates.map((t) => describe(t.uriTemplate, t)), heading, ...listed] : shared ? [heading, ...listed] : listed;
  if (resourcesCut || templatesCut) lines.push(`…[the server has more than ${MAX_PAGES} pages; the rest are not listed]`);
  return normalizeResult({ content: [{ type: "text", text: lines.join("\n") }] }, maxChars);
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, " ").trim();
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

function describe(uri: string, r: Entry): string {
  const name = r.title ?? r.name;
  const about = [name && name !== uri ? name : undefined, r.mimeType ? `(${r.mimeType})` : undefined].filter(Boolean).join(" ");
  return `${uri}${about ? ` — ${about}` : ""}${r.description ? `: ${oneLine(r.description)}` : ""}`;
}

async function pages<P extends { nextCursor?: string }, T>(
  client: Client,
  method: "resources/list" | "resources/templates/list",
  schema: z.ZodType<P>,
  items: (page: P) => T[],
  options: RequestOptions,
): Promise<[T[], boolean]> {
  const out: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.request({ method, params: cursor === undefined ? {} : { cursor } }, schema, options);
    out.push(...items(result));
    cursor = result.nextCursor;
    if (cursor === undefined || seen.has(cursor)) return [out, false];
    seen.add(cursor);
  }
  return [out, true];
}
