/**
 * The scenario format: one task for the agent, one JSON object per line of a .jsonl file.
 * This zod schema is the single source of truth; the types below are derived from it.
 */
import { z } from "zod";

/** A check on a piece of text: the agent's final answer, or a state-check tool's result. */
export const AnswerCheckSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("exact"),
    value: z.string().trim().min(1).describe("the whole answer, compared after trimming"),
    caseSensitive: z.boolean().default(false),
  }).strict(),
  z.object({
    kind: z.literal("numeric"),
    value: z.number().describe("the expected number; the first number in the answer that is within tolerance passes"),
    tolerance: z.number().nonnegative().default(1e-6).describe("absolute tolerance"),
    relTolerance: z.number().nonnegative().default(0).describe("relative tolerance"),
  }).strict(),
  z.object({
    kind: z.literal("contains"),
    value: z.string().refine((v) => v.trim() !== "", "an empty value is in every answer, so every answer would pass").describe("substring the answer must contain"),
    caseSensitive: z.boolean().default(false),
  }).strict(),
  z.object({
    // contains' opposite, read the same way (a whole word or number, case-insensitive by default):
    // a state check that a deleted item is no longer shown
    kind: z.literal("not_contains"),
    value: z.string().refine((v) => v.trim() !== "", "an empty value is in every answer, so no answer would pass").describe("substring the answer must not contain"),
    caseSensitive: z.boolean().default(false),
  }).strict(),
  z.object({
    kind: z.literal("regex"),
    pattern: z.string().describe("JavaScript regular expression the answer must match"),
    flags: z.string().default("i"),
  })
    .strict()
    .superRefine((c, ctx) => {
      // a pattern that does not compile would fail at scoring time, zeroing the scenario silently
      try {
        new RegExp(c.pattern, c.flags);
      } catch (e) {
        ctx.addIssue({ code: "custom", path: [/flag/i.test((e as Error).message) ? "flags" : "pattern"], message: (e as Error).message });
        return;
      }
      // matching "" and unrelated text alike, it matches anything ("", "x*"); "^\d*$" does not
      const re = new RegExp(c.pattern, c.flags);
      if (re.test("") && re.test("\u0001 unrelated text")) ctx.addIssue({ code: "custom", path: ["pattern"], message: "matches the empty string, so every answer would pass" });
    }),
  z.object({
    kind: z.literal("json_subset"),
    value: z
      .unknown()
      .refine((v) => v !== undefined, "required: the JSON the answer must contain")
      .refine((v) => !(v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0), "an empty object is in every JSON object answer, so every such answer would pass")
      .describe("every key/value here must appear in the JSON parsed from the answer"),
  }).strict(),
]);
export type AnswerCheck = z.infer<typeof AnswerCheckSchema>;

/** A tool call to run on the server after the rollout, and what its result must satisfy. */
export const StateCheckSchema = z.object({
  kind: z.literal("state"),
  tool: z.string().describe("tool to call after the rollout, on the rollout's own server instance"),
  arguments: z.record(z.string(), z.unknown()).default({}),
  expect: AnswerCheckSchema.describe("check applied to the tool result's text"),
  error: z.boolean().optional().describe("true when the tool should answer with its own error (the item is gone): the check then reads the error's text; otherwise an error fails"),
}).strict();
export type StateCheck = z.infer<typeof StateCheckSchema>;

// One discriminated union over all seven kinds (zod 4 flattens the nested one), so a bad `kind`
// is reported as "expected one of …" at the `kind` field instead of an opaque union failure.
export const ExpectedSchema = z.discriminatedUnion("kind", [AnswerCheckSchema, StateCheckSchema]);
export type Expected = z.infer<typeof ExpectedSchema>;

/** A check that something is absent: alone, saying nothing or deleting everything passes it. */
export function isAbsenceCheck(e: Expected): boolean {
  return e.kind === "not_contains" || (e.kind === "state" && e.expect.kind === "not_contains");
}

export const ReferenceCallSchema = z.object({
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  error: z.boolean().optional().describe("true when this call should come back as the tool's own error (a lookup of something absent); otherwise an error fails the replay"),
}).strict();
export type ReferenceCall = z.infer<typeof ReferenceCallSchema>;

export const ReferenceSolutionSchema = z.object({
  calls: z.array(ReferenceCallSchema).describe("tool calls in order; one per assistant turn"),
  answer: z.string().describe("the final answer text after the calls"),
  derived: z.boolean().optional().describe("true when the answer is worked out from the results (a sum, a yes/no) rather than stated by one: a replay then checks it on the reference answer only"),
}).strict();
export type ReferenceSolution = z.infer<typeof ReferenceSolutionSchema>;

export const ScenarioSchema = z.object({
  id: z.string().trim().min(1).describe("unique within the file"),
  task: z.string().trim().min(1).describe("the user message"),
  difficulty: z.number().int().min(1).max(5),
  split: z.enum(["train", "test"]),
  tags: z.array(z.string()).default([]),
  server: z.string().optional().describe("which bundled server or target the scenario is for"),
  setup: z
    .array(ReferenceCallSchema)
    .refine((calls) => calls.length > 0, "an empty list sets nothing up: leave the field out")
    .refine((calls) => calls.every((c) => !c.error), "a setup call must succeed: error: true has no place here")
    .optional()
    .describe("calls that bring a fresh server instance to the task's starting state (an empty server given a few entries), run before the model's first turn; the model does not see them, and each rollout gets its own instance"),
  expected: z
    .array(ExpectedSchema)
    .refine((list) => list.length > 0, "an empty list checks nothing, so every answer would succeed: leave the field out for a judge-only task")
    .refine((list) => list.length === 0 || !list.every(isAbsenceCheck), "not_contains checks alone pass for an empty answer or an emptied server: add a check of something that must be there")
    .optional()
    .describe("all must pass for success"),
  reference: ReferenceSolutionSchema.optional(),
});
export type Scenario = z.infer<typeof ScenarioSchema>;
export type ScenarioInput = z.input<typeof ScenarioSchema>;

/** The scenario's "template:..." tag (the generator template it came from), if it has one. */
export function templateTag(s: Pick<Scenario, "tags">): string | undefined {
  return s.tags.find((t) => t.startsWith("template:"));
}
