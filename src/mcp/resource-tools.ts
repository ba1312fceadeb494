/**
 * Resources as tools (`--resource-tools`): MCP resources are the application's to read, not the
 * model's to call, so a tools-only client never shows them. Agents that want the model to read
 * them on its own (Claude Code's ListMcpResources / ReadMcpResource) give it two tools, and so
 * does this: `list_resources` (resources/list and resources/templates/list, with an optional
 * `query` to find one in a long list, one page per call with a `cursor` to the next:
 * resource-list.ts) and `read_resource` (resources/read). They are offered only
 * when the server declares the resources capability, and a server tool of the same name wins
 * (the synthetic one is left out, with a note). A `resource_link` in a tool result can then be
 * followed.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { z } from "zod";
import { normalizeResult } from "./normalize.js";
import { listResources } from "./resource-list.js";
import type { ToolResult, ToolSpec } from "./types.js";

export { parseResourceListing, type ListedResource } from "./resource-list.js";

export const LIST_RESOURCES = "list_resources";
export const READ_RESOURCE = "read_resource";

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const SPECS: ToolSpec[] = [
  {
    name: LIST_RESOURCES,
    description:
      "List the resources this server offers (documents, files, records): each one's URI, name, type and description, and URI templates for resources that are read by filling in a template. Read one with read_resource. A long list comes in pages: the last line then gives the cursor for the next one.",
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", description: "only those whose URI, name or description contains this text (any case)" },
        cursor: { type: "string", description: "where to go on: the cursor the previous page's last line gave" },
      },
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

const ReadResult = z.looseObject({ contents: z.array(z.looseObject({ uri: z.string().optional() })) });

/** Runs one resource tool; protocol errors throw (the toolbox classifies them like a tools/call's). */
export async function callResourceTool(client: Client, name: string, args: Record<string, unknown>, options: RequestOptions, maxChars: number): Promise<ToolResult> {
  if (name === READ_RESOURCE) {
    const uri = String(args.uri);
    const result = await client.request({ method: "resources/read", params: { uri } }, ReadResult, options);
    if (result.contents.length === 0) return normalizeResult({ content: [{ type: "text", text: `(${uri} is empty)` }] }, maxChars);
    return normalizeResult({ content: result.contents.map((resource) => ({ type: "resource", resource })) }, maxChars);
  }
  return listResources(client, args, options, maxChars);
}
