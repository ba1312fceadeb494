/**
 * Recipes for a server's resources, when they are offered as tools (`--resource-tools`): a
 * generic single-call recipe cannot invent a URI the server knows, so these take one from
 * list_resources, read it for real, and ask about what it says.
 *
 * - read: the task names the URI; the answer is one field of the resource (a JSON resource's
 *   value, a short text resource's whole text, a document's title or first line).
 * - find: the task names the resource only by its title, so the solver lists, then reads.
 */
import { isResourceTool, LIST_RESOURCES, parseResourceListing, READ_RESOURCE, type ListedResource } from "../../mcp/resource-tools.js";
import type { ToolResult, ToolSpec } from "../../mcp/types.js";
import { answerSentence, containsCheck, isUseful, numericCheck, type Draft, type Recipe, type RecipeContext } from "./recipe.js";
import { documentAnswer } from "./document-answer.js";

const READ_TRAIN = ["Read the server's resource {uri} and tell me its {field}.", "What is the {field} in the resource {uri}?"];
const READ_TEST = ["Open {uri} (one of the server's resources): what {field} does it give?"];
const FIND_TRAIN = ['Among the server\'s resources, find the one called "{name}" and tell me its {field}.'];
const FIND_TEST = ['One of the server\'s resources is "{name}". What is its {field}?'];

/** The resource recipes a tool list allows: none unless list_resources and read_resource are train-mcp's. */
export function resourceRecipes(tools: readonly ToolSpec[]): Recipe[] {
  const has = (name: string) => tools.some((t) => t.name === name && isResourceTool(t));
  if (!has(LIST_RESOURCES) || !has(READ_RESOURCE)) return [];
  return [
    { id: "generic.resource.read", tools: [READ_RESOURCE, LIST_RESOURCES], primary: READ_RESOURCE, weight: 2, build: (ctx) => build(ctx, "read") },
    { id: "generic.resource.find", tools: [LIST_RESOURCES, READ_RESOURCE], primary: READ_RESOURCE, weight: 1, build: (ctx) => build(ctx, "find") },
  ];
}

async function build(ctx: RecipeContext, kind: "read" | "find"): Promise<Draft | undefined> {
  // the listing is looked at, not part of the solution, when the task gives the URI
  const listing = kind === "find" ? await ctx.call(LIST_RESOURCES, {}) : await ctx.probe(LIST_RESOURCES, {});
  if (listing.isError) return undefined;
  const listed = parseResourceListing(listing.text);
  const candidates = kind === "read" ? listed : listed.filter((r) => r.name !== undefined && uniqueName(listed, r));
  if (candidates.length === 0) return undefined;
  const pick = ctx.rng.pick(candidates);
  const read = await ctx.call(READ_RESOURCE, { uri: pick.uri });
  const content = contentOf(read, pick.uri);
  if (!content || !isUseful(content)) return undefined;
  const field = documentAnswer(content, { uri: pick.uri, ...(pick.name ? { name: pick.name } : {}) }, (n) => ctx.rng.int(0, n - 1));
  if (!field) return undefined;
  const label = field.label === "result" ? "content" : field.label;
  const task = kind === "read" ? ctx.phrase(READ_TRAIN, READ_TEST, { uri: pick.uri, field: label }) : ctx.phrase(FIND_TRAIN, FIND_TEST, { name: pick.name!, field: label });
  return {
    task,
    difficulty: kind === "read" ? 1 : 2,
    expected: [typeof field.value === "number" ? numericCheck(field.value) : containsCheck(field.value)],
    answer: answerSentence(label, field.value),
  };
}

/** A read_resource result without its `[resource: URI]` heading: one text resource, else undefined. */
function contentOf(result: ToolResult, uri: string): ToolResult | undefined {
  if (result.isError) return undefined;
  const heading = `[resource: ${uri}]\n`;
  const text = result.text.startsWith(heading) ? result.text.slice(heading.length) : undefined;
  // binary resources, and resources of several parts, have nothing one question can ask
  if (text === undefined || text.includes("\n[resource: ")) return undefined;
  return { isError: false, text, truncated: result.truncated };
}

function uniqueName(all: readonly ListedResource[], r: ListedResource): boolean {
  const key = r.name!.toLowerCase();
  return all.filter((x) => x.name?.toLowerCase() === key).length === 1;
}
