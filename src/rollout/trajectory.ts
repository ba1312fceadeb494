/**
 * One Trajectory type for the whole trip (after ART's trajectories.py): what a rollout did,
 * token by token, and what it was scored. A failed rollout is data (finish "error"), never a
 * thrown error. Serialized one per line in a run's trajectories.jsonl.
 */
import { z } from "zod";

export const ChatToolCallSchema = z.object({
  id: z.string(),
  type: z.literal("function").default("function"),
  function: z.object({ name: z.string(), arguments: z.string().describe("JSON text") }),
});

/** OpenAI-style chat messages; the chat template renders them. */
export const ChatMessageSchema = z.object({
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.string(),
  tool_calls: z.array(ChatToolCallSchema).optional(),
  tool_call_id: z.string().optional(),
  name: z.string().optional(),
  raw_content: z
    .string()
    .optional()
    .describe("an assistant turn whose tool-call markup did not parse: its text exactly as generated (content keeps the text outside the calls, as the chat template renders it); for the judge and the report, never sent to a policy"),
});
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

export const ToolCallRecordSchema = z.object({
  name: z.string(),
  args: z.unknown(),
  result: z.string().describe("normalized text the model saw"),
  isError: z.boolean(),
  error: z.string().optional().describe("fault kind or parse problem, when there was one"),
  outputProblem: z.string().optional().describe("how the result broke the tool's outputSchema (the model saw it as sent)"),
  ms: z.number(),
});
export type ToolCallRecord = z.infer<typeof ToolCallRecordSchema>;

export const FinishReasonSchema = z.enum([
  "answer", // the model answered without a tool call (or called the completion tool)
  "max_turns",
  "max_tokens", // truncated: the completion hit the token limit
  "error", // the rollout itself failed (server crash, policy error); see `error`
]);
export type FinishReason = z.infer<typeof FinishReasonSchema>;

export const TrajectorySchema = z.object({
  id: z.string(),
  scenarioId: z.string(),
  groupId: z.string(),
  step: z.number().int().default(0),
  messages: z.array(ChatMessageSchema),
  tokenIds: z.array(z.number().int()).describe("the whole conversation as the policy tokenized it"),
  assistantMask: z.array(z.number().int().min(0).max(1)).describe("1 for tokens the policy sampled"),
  sampleLogprobs: z.array(z.number()).describe("sampler log-prob per token; 0 where the mask is 0"),
  turnLogprobs: z
    .array(z.array(z.number()))
    .optional()
    .describe("remote policies: the endpoint's log-probs of each assistant turn's tokens (no token ids)"),
  toolCalls: z.array(ToolCallRecordSchema),
  finish: FinishReasonSchema,
  error: z.string().optional(),
  finalAnswer: z.string().default(""),
  turns: z.number().int(),
  rewards: z.record(z.string(), z.number()).default({}).describe("raw score per reward component"),
  reward: z.number().default(0).describe("weighted total"),
  success: z.boolean().default(false).describe("all verifiers passed"),
  judgeExplanation: z.string().optional(),
  rewardDetails: z.record(z.string(), z.string()).optional().describe("why each component scored what it did (the verifier's checks, a component's failure)"),
  ms: z.number().default(0),
});
export type Trajectory = z.infer<typeof TrajectorySchema>;

export interface TrajectoryGroup {
  scenarioId: string;
  groupId: string;
  trajectories: Trajectory[];
}
