/**
 * Deletions (server-memory's delete_entities, delete_observations, delete_relations): a change
 * whose result says only "deleted", checked by what a read shows afterwards. Two state checks on
 * reads made before and after the reference call, on the scenario's own fresh instance:
 *
 * - gone: each given value the read showed before no longer shows (not_contains checks, three
 *   at most, so doing nothing, or half of it, fails);
 * - kept: another value it showed before still shows (a contains check, so deleting everything
 *   fails; a given value that stays, the entity whose observation went, first).
 *
 * A task is built only when both hold after the call and the first did not before it.
 */
import type { ToolSpec } from "../../mcp/types.js";
import { checkAnswer } from "../check.js";
import type { AnswerCheck, Expected } from "../schema.js";
import type { PendingRead } from "./generic.js";
import type { ValuePool } from "./harvest.js";
import { containsCheck, notContainsCheck, resultData, type RecipeContext } from "./recipe.js";
import { singular } from "./schema-values.js";

const DELETING = /(^|_|-|\b)(delete|remove|destroy|erase|purge|drop|wipe)(?=$|_|-|\b)/i;

/**
 * Whether a tool takes things away: its annotations say destructive (server-memory marks its
 * deletions so, and its creations not), or, without annotations, its name has a deleting verb.
 * An update marked destructive passes too: its task needs a given value to disappear.
 */
export function isDeletingTool(tool: Pick<ToolSpec, "name" | "annotations">): boolean {
  const hint = tool.annotations?.destructiveHint;
  if (typeof hint === "boolean") return hint;
  return DELETING.test(tool.name.replace(/([a-z])([A-Z])/g, "$1_$2"));
}

/**
 * Files what whole listings (read-only tools that need no arguments, two at most) show now,
 * items of lists of strings too (an entity's observations, under `observation`): a deletion's
 * arguments name things that are there.
 */
export async function fileListings(ctx: RecipeContext, readers: readonly ToolSpec[]): Promise<void> {
  const listings = readers.filter((t) => ((t.inputSchema.required as string[] | undefined) ?? []).length === 0).slice(0, 2);
  for (const reader of listings) {
    const r = await ctx.probe(reader.name, {});
    if (r.isError) continue;
    ctx.pool.harvest(reader.name, r);
    fileListItems(ctx.pool, resultData(r), 0);
  }
}

function fileListItems(pool: ValuePool, data: unknown, depth: number): void {
  if (depth > 6 || !data || typeof data !== "object") return;
  for (const [key, v] of Array.isArray(data) ? data.slice(0, 200).map((x) => ["", x] as const) : Object.entries(data)) {
    if (key && Array.isArray(v) && v.every((x) => typeof x === "string")) v.slice(0, 200).forEach((x) => pool.add(singular(key), x as string));
    else fileListItems(pool, v, depth + 1);
  }
}

/**
 * After the deletion: the gone and kept checks (see the module comment), from the first reads
 * that give them, or undefined when no read does. `given` are the deletion's own values.
 */
export async function goneAndKept(ctx: RecipeContext, reads: readonly PendingRead[], given: readonly string[]): Promise<Expected[] | undefined> {
  let gone: { read: PendingRead; values: string[] } | undefined;
  let kept: { read: PendingRead; value: string } | undefined;
  for (const read of reads) {
    const after = await ctx.probe(read.tool, read.arguments);
    // a read that fails afterwards checks nothing: a state check fails on an error; and past a
    // cut at the output limit anything would read as gone
    if (after.isError || after.truncated) continue;
    const shows = (v: string, text: string) => checkAnswer(containsCheck(v), text).pass;
    const went = given.filter((v) => shows(v, read.before) && !shows(v, after.text)).slice(0, 3);
    if (!gone && went.length > 0) gone = { read, values: went };
    // a given value that stays (the entity whose observation went) first
    const stays = [...read.shown.filter((v) => given.includes(v)), ...read.shown.filter((v) => !given.includes(v))];
    // not a value the read is asked for: a server that echoes its lookup ({"name": X, "found":
    // false}) would still show it with everything deleted
    const asked = JSON.stringify(read.arguments);
    const value = stays.find((v) => !asked.includes(JSON.stringify(v)) && shows(v, read.before) && shows(v, after.text));
    if (!kept && value !== undefined) kept = { read, value };
    if (gone && kept) break;
  }
  if (!gone || !kept) return undefined;
  const state = (read: PendingRead, expect: AnswerCheck): Expected => ({ kind: "state", tool: read.tool, arguments: read.arguments, expect });
  const from = gone.read;
  return [...gone.values.map((v) => state(from, notContainsCheck(v))), state(kept.read, containsCheck(kept.value))];
}

// id, ids, note_id, noteId, noteIDs: not "paid" or "valid"
const ID_KEY = /(^|_)(ids?|IDs?|Ids?)$|[a-z](Ids?|IDs?)$/;

/**
 * For a deletion by id (`delete_note {id: 12}`, `remove_todo {todo_ids: [3, 4]}`): the strings
 * the reads showed beside those ids, in the same object (`{"id": 12, "title": "Dentist"}` gives
 * "Dentist"). An id is a number or a short code that any listing may show by chance ("12" in a
 * date): what the item held is what a read can be seen to lose. An object matches by the
 * argument's own key or by a bare `id`.
 */
export function valuesBesideIds(args: Record<string, unknown>, reads: readonly unknown[], fair: (s: string) => boolean): string[] {
  const ids = new Map<string, Set<string>>(); // argument key -> its id values, as text
  for (const [key, v] of Object.entries(args)) {
    if (!ID_KEY.test(key)) continue;
    const values = (Array.isArray(v) ? v : [v]).filter((x) => typeof x === "number" || (typeof x === "string" && x.trim() !== ""));
    if (values.length) ids.set(key.replace(/s$/, ""), new Set(values.map(String)));
  }
  if (ids.size === 0) return [];
  const out = new Set<string>();
  const matches = (obj: Record<string, unknown>) =>
    [...ids].some(([key, values]) =>
      Object.entries(obj).some(([k, x]) => (k === key || /^_?id$/i.test(k)) && (typeof x === "number" || typeof x === "string") && values.has(String(x))),
    );
  const visit = (v: unknown, depth: number): void => {
    if (depth > 6 || !v || typeof v !== "object") return;
    if (Array.isArray(v)) return v.slice(0, 500).forEach((x) => visit(x, depth + 1));
    const obj = v as Record<string, unknown>;
    if (matches(obj)) for (const [k, x] of Object.entries(obj)) if (typeof x === "string" && !ID_KEY.test(k) && fair(x.trim())) out.add(x.trim());
    Object.values(obj).forEach((x) => visit(x, depth + 1));
  };
  reads.forEach((r) => visit(r, 0));
  return [...out];
}

/** The ids a change is given (`{id: 12}`, `{note_ids: [3, 4]}`), as text. */
export function idValues(args: Record<string, unknown>): string[] {
  return Object.entries(args)
    .filter(([key]) => ID_KEY.test(key))
    .flatMap(([, v]) => (Array.isArray(v) ? v : [v]))
    .filter((x) => typeof x === "number" || (typeof x === "string" && x.trim() !== ""))
    .map((x) => String(x).trim());
}

/**
 * After a change by id that a read shows by a given value (a rename: the new title): what the
 * same read showed beside the id before and no longer does (the old title), as not_contains
 * checks on it, two at most. With them, changing another item, or adding a new one with the
 * given value, fails. None when the change has no id or nothing beside it went.
 */
export async function besideIdsGone(ctx: RecipeContext, reads: readonly PendingRead[], args: Record<string, unknown>, fair: (s: string) => boolean): Promise<Expected[]> {
  const given = new Set(Object.values(args).flatMap((v) => (Array.isArray(v) ? v : [v])).map(String));
  const shows = (v: string, text: string) => checkAnswer(containsCheck(v), text).pass;
  for (const read of reads) {
    const beside = valuesBesideIds(args, [read.data], fair).filter((v) => !given.has(v) && shows(v, read.before));
    if (beside.length === 0) continue;
    const after = await ctx.probe(read.tool, read.arguments);
    if (after.isError || after.truncated) continue;
    const went = beside.filter((v) => !shows(v, after.text)).slice(0, 2);
    if (went.length > 0) return went.map((v) => ({ kind: "state", tool: read.tool, arguments: read.arguments, expect: notContainsCheck(v) }));
  }
  return [];
}

/**
 * The strings a read's data shows, names, titles and ids first, leaving out any that its keys
 * and punctuation alone hold ("entities" in `{"entities": []}`): an emptied server shows those.
 */
export function shownValues(data: unknown, fair: (s: string) => boolean): string[] {
  const named: string[] = [];
  const other: string[] = [];
  const visit = (v: unknown, key: string, depth: number): void => {
    if (typeof v === "string") {
      const t = v.trim();
      if (t.length <= 60 && fair(t)) (/(name|title|id)$/i.test(key) ? named : other).push(t);
    } else if (depth < 6 && Array.isArray(v)) v.slice(0, 200).forEach((x) => visit(x, key, depth + 1));
    else if (depth < 6 && v && typeof v === "object") Object.entries(v).forEach(([k, x]) => visit(x, k, depth + 1));
  };
  visit(data, "", 0);
  const bare = JSON.stringify(skeleton(data));
  return [...new Set([...named, ...other])].filter((v) => !checkAnswer(containsCheck(v), bare).pass);
}

/** The data with every string emptied and every number 0: its keys and shape alone. */
function skeleton(v: unknown): unknown {
  if (typeof v === "string") return "";
  if (typeof v === "number") return 0;
  if (Array.isArray(v)) return v.map(skeleton);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, skeleton(x)]));
  return v;
}
