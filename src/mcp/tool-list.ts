/**
 * Tool discovery and the OpenAI function-tool view. `tools/list` is paginated (MCP spec
 * "Pagination": follow `nextCursor` until absent); a server that repeats a cursor or pages
 * forever is cut off rather than looping. Each tool is checked with ToolSpecSchema (zod) so a
 * malformed entry is named, not silently passed on.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { z } from "zod";
import { ToolSpecSchema, type OpenAiTool, type ToolSpec } from "./types.js";

const MAX_PAGES = 1000;

// the page itself, loosely: the SDK's own schema would reject the whole list for one sloppy tool
const ToolsPageSchema = z.object({ tools: z.array(z.unknown()), nextCursor: z.string().optional() }).passthrough();

export interface ToolList {
  tools: ToolSpec[];
  /** what a user should know about the list: a name listed twice with different definitions,
   *  a name a model may not be able to write */
  notes: string[];
}

export async function listAllTools(client: Client, timeoutMs: number): Promise<ToolList> {
  const tools = new Map<string, ToolSpec>();
  const conflicting = new Set<string>();
  // an entry the tool schema refuses (no inputSchema, no name) is left out by name, the rest kept
  const invalid = new Map<string, string>();
  // a server without the tools capability answers tools/list with "Method not found": it has none
  const caps = client.getServerCapabilities();
  if (caps && !caps.tools) return { tools: [], notes: ["the server declares no tools capability (it may offer only resources or prompts)"] };
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.request({ method: "tools/list", params: cursor === undefined ? {} : { cursor } }, ToolsPageSchema, { timeout: timeoutMs });
    for (const raw of result.tools) {
      const parsed = ToolSpecSchema.safeParse(lenient(raw));
      if (!parsed.success) {
        const name = typeof (raw as { name?: unknown })?.name === "string" ? (raw as { name: string }).name : "?";
        const issue = parsed.error.issues[0];
        const where = issue ? issue.path.join(".") || "(tool)" : "(tool)";
        invalid.set(name, !issue ? "bad shape" : /received undefined$/.test(issue.message) ? `no ${where}` : `${where}: ${issue.message}`);
        continue;
      }
      // a name listed twice (or a page served again) keeps its first definition; two different
      // definitions under one name are the server's ambiguity, worth a note
      const first = tools.get(parsed.data.name);
      if (!first) tools.set(parsed.data.name, parsed.data);
      else if (JSON.stringify(first) !== JSON.stringify(parsed.data)) conflicting.add(parsed.data.name);
    }
    cursor = result.nextCursor;
    if (cursor === undefined || seenCursors.has(cursor)) break;
    seenCursors.add(cursor);
  }
  // a tool that must run as an MCP task (taskSupport "required") refuses a plain tools/call,
  // which is all train-mcp sends: offering it to a model would only teach it to fail
  const taskOnly = [...tools.values()].filter((t) => t.execution?.taskSupport === "required").map((t) => t.name);
  // a schema that breaks JSON Schema's shape (`enum: 5`, `properties: [...]`) breaks the chat
  // template that renders it too, and with it every rollout: that tool is left out, by name
  const malformed = new Map([...tools.values()].flatMap((t) => {
    const problem = schemaShapeProblem(t.inputSchema, "inputSchema");
    return problem ? [[t.name, problem] as const] : [];
  }));
  let list = [...tools.values()].filter((t) => !taskOnly.includes(t.name) && !malformed.has(t.name));
  const notes = [...conflicting].map((n) => `the server lists tool ${JSON.stringify(n)} more than once with different definitions: the first is the one a model sees`);
  if (list.length >= 2 && list.every(hasOnlyDefaultHints)) {
    list = list.map(withoutDefaultHints);
    notes.push(
      "every tool carries MCP's default annotations (readOnlyHint false, destructiveHint true, idempotentHint false, openWorldHint true), as mcp-go writes them for a server that sets none: they say nothing, so tools that read are told from tools that write by their names, as for a server without annotations",
    );
  }
  for (const [name, problem] of invalid) notes.push(`left out ${JSON.stringify(name)}: the server sent it in a shape MCP does not allow (${problem})`);
  for (const [name, problem] of malformed) notes.push(`left out ${JSON.stringify(name)}: its ${problem}, so no model could be shown it or call it`);
  // a model writes the name inside JSON in a chat template's tool-call format; other characters
  // break that format, and OpenAI-compatible endpoints refuse such function names
  const odd = list.filter((t) => !/^[A-Za-z0-9_.-]{1,64}$/.test(t.name)).map((t) => JSON.stringify(t.name));
  if (odd.length > 0) notes.push(`${odd.join(", ")}: a tool name outside A-Z a-z 0-9 _ . - (or over 64 characters) may not be callable by a model`);
  if (taskOnly.length > 0) notes.push(`left out ${taskOnly.join(", ")}: ${taskOnly.length === 1 ? "it runs" : "they run"} only as MCP tasks (execution.taskSupport "required"), which train-mcp does not speak`);
  return { tools: list, notes };
}

/** What MCP assumes of a tool that gives no annotations, and what mcp-go's NewTool writes into
 *  every tool's annotations unless the server says otherwise. */
const DEFAULT_HINTS: Readonly<Record<string, boolean>> = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };

/** A tool whose annotations are those defaults, all four and nothing else (a title aside). */
export function hasOnlyDefaultHints(tool: Pick<ToolSpec, "annotations">): boolean {
  const a = tool.annotations;
  if (!a) return false;
  return Object.entries(DEFAULT_HINTS).every(([k, v]) => a[k] === v) && Object.keys(a).every((k) => k in DEFAULT_HINTS || k === "title");
}

function withoutDefaultHints(tool: ToolSpec): ToolSpec {
  const { annotations, ...rest } = tool;
  const kept = Object.fromEntries(Object.entries(annotations ?? {}).filter(([k]) => !(k in DEFAULT_HINTS)));
  return Object.keys(kept).length > 0 ? { ...rest, annotations: kept } : rest;
}

const SCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"] as const;

/**
 * The first place where a JSON Schema breaks the shape every dialect gives its keywords (what a
 * chat template iterates over): `properties` an object of schemas, `required` and `enum` arrays,
 * `items` a schema (or a list of them), the combinators lists; undefined when none does. The
 * top level must describe an object of arguments.
 */
export function schemaShapeProblem(schema: unknown, at: string, depth = 0): string | undefined {
  if (typeof schema === "boolean" || depth > 32) return undefined;
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) return `${at} is not a schema (an object)`;
  const s = schema as Record<string, unknown>;
  if (depth === 0 && s.type !== "object") return `${at}.type is ${JSON.stringify(s.type)}, not "object" (MCP tools take an object of arguments)`;
  if (s.type !== undefined && typeof s.type !== "string" && !(Array.isArray(s.type) && s.type.every((t) => typeof t === "string"))) return `${at}.type is not a type name`;
  if (s.required !== undefined && !(Array.isArray(s.required) && s.required.every((r) => typeof r === "string"))) return `${at}.required is not a list of names`;
  if (s.enum !== undefined && !Array.isArray(s.enum)) return `${at}.enum is not a list`;
  if (s.properties !== undefined) {
    if (!s.properties || typeof s.properties !== "object" || Array.isArray(s.properties)) return `${at}.properties is not an object`;
    for (const [k, v] of Object.entries(s.properties)) {
      const p = schemaShapeProblem(v, `${at}.properties.${k}`, depth + 1);
      if (p) return p;
    }
  }
  if (s.items !== undefined) {
    const items = Array.isArray(s.items) ? s.items : [s.items];
    for (const [i, v] of items.entries()) {
      const p = schemaShapeProblem(v, Array.isArray(s.items) ? `${at}.items.${i}` : `${at}.items`, depth + 1);
      if (p) return p;
    }
  }
  for (const key of SCHEMA_LISTS) {
    const list = s[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) return `${at}.${key} is not a list`;
    for (const [i, v] of list.entries()) {
      const p = schemaShapeProblem(v, `${at}.${key}.${i}`, depth + 1);
      if (p) return p;
    }
  }
  return undefined;
}

/** What servers in the wild get slightly wrong and mean plainly: an input schema without
 *  `type` (or with `properties: null`) describes an object of arguments. */
function lenient(raw: unknown): unknown {
  if (!raw || typeof raw !== "object") return raw;
  const tool = raw as { inputSchema?: unknown };
  const schema = tool.inputSchema;
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) return raw;
  const fixed: Record<string, unknown> = { ...(schema as Record<string, unknown>) };
  if (fixed.type === undefined) fixed.type = "object";
  if (fixed.properties === null) delete fixed.properties;
  return { ...tool, inputSchema: fixed };
}

/** `{type:"function", function:{name, description, parameters}}` as chat templates expect */
export function toOpenAiTool(tool: ToolSpec): OpenAiTool {
  // `$schema` means nothing to a model and costs prompt tokens
  const { $schema: _ignored, ...parameters } = tool.inputSchema;
  return {
    type: "function",
    function: { name: tool.name, description: tool.description || tool.title || "", parameters },
  };
}
