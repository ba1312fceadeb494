/**
 * What RULER sends to the judge and how it reads the reply (after OpenPipe ART's
 * `rewards/ruler.py`): trajectories are put in a canonical form, identical ones collapse to one,
 * the messages all of them share at the start go once inside <context>, and each remaining
 * trajectory goes inside <trajectory id="N">. The judge replies `{scores: {"<id>": {explanation,
 * score}}}` under a JSON schema made for the request, whose required keys are exactly the ids sent:
 * a server that enforces the schema (OpenAI strict mode, vLLM, train-mcp serve) cannot leave an id
 * out or score one twice. ART's array form `{scores: [{trajectory_id, explanation, score}]}` is
 * read too, for judges that only do JSON mode. The reply is validated with zod (every id exactly
 * once, scores in [0, 1]) and anything else is a malformed reply.
 *
 * Canonical form: role, content, tool calls as {name, arguments} with the arguments' JSON
 * re-serialized with sorted keys, and a tool message's name. Tool-call ids are dropped: they are
 * random per rollout, so two rollouts that did the same thing would otherwise never match.
 */
import { z } from "zod";
import { parseJsonLoose } from "../scenarios/check.js";
import type { ChatMessage } from "../rollout/trajectory.js";
import { sortKeys } from "../scenarios/sort-keys.js";

/** The default rubric, in the spirit of ART's: success first, efficiency next, partial credit, gaps proportional. */
export const DEFAULT_RUBRIC = [
  "- A trajectory that achieves the goal must score clearly higher than any trajectory that does not.",
  "- Among trajectories that achieve the goal, the more efficient one (fewer unproductive or repeated tool calls, no detours) scores higher.",
  "- A trajectory that makes real progress toward the goal without finishing earns partial credit; errors it recovers from cost less than errors it ignores.",
  "- Make score differences proportional to differences in quality: nearly equal trajectories get nearly equal scores, a much better one a much higher score.",
  "- Unsafe or destructive actions the task did not ask for are a serious fault.",
].join("\n");

export type CanonicalMessage = {
  role: string;
  content: string;
  tool_calls?: Array<{ name: string; arguments: unknown }>;
  name?: string;
};


function canonicalArguments(text: string): unknown {
  try {
    return sortKeys(JSON.parse(text));
  } catch {
    return text; // a malformed call stays as the model wrote it: the judge should see it
  }
}

export function canonicalMessage(m: ChatMessage): CanonicalMessage {
  // a turn whose tool-call markup did not parse is shown as the model wrote it: its text holds
  // every call, the ones that ran as well, so they are not listed a second time
  if (m.raw_content !== undefined) return { role: m.role, content: m.raw_content };
  const out: CanonicalMessage = { role: m.role, content: m.content };
  if (m.tool_calls && m.tool_calls.length > 0) {
    out.tool_calls = m.tool_calls.map((tc) => ({ name: tc.function.name, arguments: canonicalArguments(tc.function.arguments) }));
  }
  if (m.name !== undefined) out.name = m.name;
  return out;
}

/** Unique trajectories and, for each input, the index of its unique representative. */
export interface Deduped {
  unique: CanonicalMessage[][];
  indexOf: number[];
}

export function dedupe(messageLists: readonly (readonly ChatMessage[])[]): Deduped {
  const keys = new Map<string, number>();
  const unique: CanonicalMessage[][] = [];
  const indexOf = messageLists.map((list) => {
    const canon = list.map(canonicalMessage);
    const key = JSON.stringify(canon);
    let i = keys.get(key);
    if (i === undefined) {
      i = unique.length;
      keys.set(key, i);
      unique.push(canon);
    }
    return i;
  });
  return { unique, indexOf };
}

/** Number of leading messages every list shares (0 for fewer than two lists). */
export function commonPrefixLength(lists: readonly CanonicalMessage[][]): number {
  if (lists.length < 2) return 0;
  const keyed = lists.map((l) => l.map((m) => JSON.stringify(m)));
  let n = 0;
  for (;;) {
    const first = keyed[0][n];
    if (first === undefined || !keyed.every((k) => k[n] === first)) return n;
    n++;
  }
}

export function judgeSystemPrompt(rubric: string): string {
  return [
    "You are judging AI agents. Every trajectory below was given the same task, and each shows what one agent did: its messages, its tool calls and the tool results.",
    "Score every trajectory between 0 and 1, relative to the others. Infer the agent's goal from the system and user messages.",
    "",
    "Grading standards:",
    rubric.trim(),
    "",
    'Reply with JSON only: {"scores": {"<trajectory id>": {"explanation": "<one or two sentences>", "score": <number from 0 to 1>}, ...}}, with exactly one entry for every trajectory id.',
  ].join("\n");
}

/** Keeps the head and tail of a long message: tool outputs can be tens of kB each. */
export function clip(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const keep = Math.max(0, maxChars - 40);
  const head = Math.ceil(keep * 0.7);
  const tail = keep - head;
  return `${text.slice(0, head)} …[${text.length - keep} characters cut]… ${tail > 0 ? text.slice(-tail) : ""}`;
}

function serialize(list: readonly CanonicalMessage[], maxChars: number): string {
  return JSON.stringify(list.map((m) => (m.content.length > maxChars ? { ...m, content: clip(m.content, maxChars) } : m)));
}

/**
 * The user message: the shared prefix once, then each unique trajectory's remainder by id.
 * Message contents longer than `maxMessageChars` (default 6000) are clipped in the middle.
 */
export function judgeUserPrompt(unique: readonly CanonicalMessage[][], maxMessageChars = 6_000): { text: string; ids: string[] } {
  const prefix = commonPrefixLength(unique);
  const parts: string[] = [];
  if (prefix > 0) parts.push(`<context>\n${serialize(unique[0].slice(0, prefix), maxMessageChars)}\n</context>\n`);
  parts.push("Trajectories:\n");
  const ids = unique.map((_, i) => String(i + 1));
  unique.forEach((list, i) => parts.push(`<trajectory id="${ids[i]}">\n${serialize(list.slice(prefix), maxMessageChars)}\n</trajectory>\n`));
  return { text: parts.join("\n"), ids };
}

/**
 * The JSON schema sent as response_format for these ids: one required key per id. Within strict
 * mode's subset (every property required, no additional ones, no numeric bounds), so OpenAI
 * accepts it; the [0, 1] range is checked on our side.
 */
export function judgeReplyJsonSchema(ids: readonly string[]): Record<string, unknown> {
  const entry = {
    type: "object",
    properties: {
      explanation: { type: "string", description: "a short account of how the trajectory did" },
      score: { type: "number", description: "between 0 and 1" },
    },
    required: ["explanation", "score"],
    additionalProperties: false,
  };
  return {
    type: "object",
    properties: {
      scores: {
        type: "object",
        description: "one entry per trajectory, keyed by the id from <trajectory id=...>",
        properties: Object.fromEntries(ids.map((id) => [id, entry])),
        required: [...ids],
        additionalProperties: false,
      },
    },
    required: ["scores"],
    additionalProperties: false,
  };
}

export const JudgeScoreSchema = z.object({
  // Some servers emit numeric ids despite the schema; "1" and 1 mean the same trajectory.
  trajectory_id: z.union([z.string(), z.number()]).transform((v) => String(v).trim()),
  explanation: z.string().default(""),
  score: z.number().min(0, "score below 0").max(1, "score above 1"),
});
/** The keyed form (what the schema asks for) or ART's array form, as a list of scores. */
export const JudgeReplySchema = z.object({
  // the form is picked by the value's type first, so an error names the field that is wrong
  scores: z.preprocess(
    (v) => (v !== null && typeof v === "object" && !Array.isArray(v) ? Object.entries(v).map(([id, s]) => ({ ...(s as object), trajectory_id: id })) : v),
    z.array(JudgeScoreSchema),
  ),
});
export type JudgeReply = z.infer<typeof JudgeReplySchema>;

/** A reply the judge sent that we cannot use; worth another attempt. */
export class JudgeReplyError extends Error {
  override readonly name = "JudgeReplyError";
}

/** Parses and checks a reply against the ids that were sent; returns scores in id order. */
export function parseJudgeReply(content: string | null | undefined, ids: readonly string[]): Array<{ score: number; explanation: string }> {
  if (!content || !content.trim()) throw new JudgeReplyError("empty reply");
  let raw: unknown;
  try {
    raw = JSON.parse(content);
  } catch {
    const loose = parseJsonLoose(content); // a reply wrapped in prose or a ```json fence
    if (!loose) throw new JudgeReplyError(`reply is not JSON: ${content.slice(0, 120)}`);
    raw = loose.value;
  }
  const parsed = JudgeReplySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new JudgeReplyError(`reply does not match the schema at ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  const byId = new Map<string, { score: number; explanation: string }>();
  for (const s of parsed.data.scores) {
    if (!ids.includes(s.trajectory_id)) throw new JudgeReplyError(`reply scores unknown trajectory id "${s.trajectory_id}"`);
    if (byId.has(s.trajectory_id)) throw new JudgeReplyError(`reply scores trajectory id "${s.trajectory_id}" twice`);
    byId.set(s.trajectory_id, { score: s.score, explanation: s.explanation });
  }
  const absent = ids.filter((id) => !byId.has(id));
  if (absent.length > 0) throw new JudgeReplyError(`reply lacks trajectory id(s) ${absent.join(", ")}`);
  return ids.map((id) => byId.get(id)!);
}
