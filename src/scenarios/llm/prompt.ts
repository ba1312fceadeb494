/**
 * What the LLM scenario generator asks for: the prompt (tools, resources, rules) and the reply
 * schema, once as JSON Schema for `response_format: json_schema` (strict: every field required,
 * optional ones nullable, as OpenAI's structured outputs demand) and once as zod for validating
 * replies from providers that only offer JSON mode.
 */
import { z } from "zod";
import type { ToolSpec } from "../../mcp/types.js";

export interface ResourceInfo {
  uri: string;
  name?: string;
  description?: string;
}

/** One task as the model writes it. */
export const LlmTaskSchema = z
  .object({
    // trimmed before the length check: blank padding must not make a task long enough
    task: z
      .string()
      .trim()
      .min(8)
      .max(2000)
      // a small or broken model writes digits and template debris; a request is words
      .refine((t) => (t.match(/\p{L}{2,}/gu) ?? []).length >= 3, "not a request in words (fewer than three words)")
      .refine((t) => !/<\|[^|]*\|>|<\/?(tool_call|tool_response|think|tools)>/.test(t), "holds chat-template markup (<tool_call>, <|…|>)")
      .describe("the user's request"),
    difficulty: z.number().int().min(1).max(5),
    tags: z.array(z.string()).max(10).nullable().optional(),
    expected_answer: z.string().max(500).nullable().optional().describe("the short answer when it is knowable in advance"),
    answer_kind: z.enum(["numeric", "contains", "none"]).nullable().optional(),
    // the calls the model would make: replayed on the server, they confirm (or refute) expected_answer
    solution: z
      .array(z.object({ tool: z.string().min(1), arguments_json: z.string().max(4000) }))
      .max(12)
      .nullable()
      .optional(),
  })
  .refine((t) => t.answer_kind !== "numeric" || !t.expected_answer?.trim() || /\d/.test(t.expected_answer), {
    message: "answer_kind is numeric but expected_answer holds no number",
    path: ["expected_answer"],
  });
export type LlmTask = z.infer<typeof LlmTaskSchema>;

export const LlmReplySchema = z.object({ scenarios: z.array(z.unknown()) });

/** The same shape as JSON Schema, for json_schema mode. */
export const REPLY_JSON_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["scenarios"],
  properties: {
    scenarios: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["task", "difficulty", "tags", "expected_answer", "answer_kind", "solution"],
        properties: {
          task: { type: "string", description: "the user's request, in their words" },
          difficulty: { type: "integer", minimum: 1, maximum: 5, description: "1 = one obvious call, 5 = many dependent calls" },
          tags: { type: "array", items: { type: "string" } },
          expected_answer: { type: ["string", "null"], description: "the short final answer if it can be known without calling the tools, else null" },
          answer_kind: { type: ["string", "null"], enum: ["numeric", "contains", "none", null] },
          solution: {
            type: ["array", "null"],
            description: "the tool calls that solve the task, in order, when they can be known in advance; else null",
            items: {
              type: "object",
              additionalProperties: false,
              required: ["tool", "arguments_json"],
              properties: { tool: { type: "string" }, arguments_json: { type: "string", description: "the call's arguments as a JSON object text" } },
            },
          },
        },
      },
    },
  },
} as const;

function describeTool(t: ToolSpec): string {
  const { $schema: _s, ...params } = t.inputSchema;
  return `- ${t.name}: ${(t.description || t.title || "").replace(/\s+/g, " ").trim()}\n  parameters: ${JSON.stringify(params)}`;
}

export function systemPrompt(): string {
  return [
    "You write evaluation tasks for an AI agent that can call the tools of one server.",
    "Each task is a message a real user would send. Rules:",
    "1. Every task must be solvable using only the listed tools (and resources), with values that plausibly exist on the server.",
    "2. Never name a tool or mention tool calls; describe the goal as a user would.",
    "3. Grade difficulty 1-5: 1 = one obvious call, 3 = two or three calls where one result feeds the next, 5 = a long chain with reasoning.",
    "4. Vary the tasks: different tools, goals, values and wording. No two tasks may be near-identical.",
    "5. If the exact answer is knowable without running the tools (e.g. arithmetic), give it in expected_answer with answer_kind",
    '   "numeric" or "contains"; otherwise expected_answer null and answer_kind "none".',
    "6. If the tool calls that solve a task can be known in advance, list them in solution, in order: the tool's name and its",
    '   arguments as JSON object text (e.g. {"tool": "add", "arguments_json": "{\\"a\\": 2, \\"b\\": 3}"}); otherwise solution null.',
    "   They are run on the server to check expected_answer: a task whose results contradict its answer is dropped.",
    'Reply with one JSON object: {"scenarios": [{"task": string, "difficulty": 1-5, "tags": [string], "expected_answer": string|null, "answer_kind": "numeric"|"contains"|"none", "solution": [{"tool": string, "arguments_json": string}]|null}]}.',
  ].join("\n");
}

export function userPrompt(tools: readonly ToolSpec[], resources: readonly ResourceInfo[], count: number, avoid: readonly string[]): string {
  const parts = [`Tools:\n${tools.map(describeTool).join("\n")}`];
  if (resources.length > 0) {
    parts.push(`Resources:\n${resources.slice(0, 50).map((r) => `- ${r.uri}${r.name ? ` (${r.name})` : ""}${r.description ? `: ${r.description}` : ""}`).join("\n")}`);
  }
  parts.push(`Write ${count} new tasks, spread over difficulties 1 to 5 (more easy than hard).`);
  if (avoid.length > 0) parts.push(`Do not repeat or closely paraphrase these existing tasks:\n${avoid.slice(-40).map((t) => `- ${t}`).join("\n")}`);
  return parts.join("\n\n");
}
