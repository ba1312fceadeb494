/**
 * The request bodies the server accepts, as zod schemas (OpenAI's chat-completions request,
 * vLLM's LoRA endpoints), and `parseBody`, which turns the first problem into a 400 naming the
 * field ("messages.1.role: Invalid option..."). Unknown fields are ignored, as OpenAI-compatible
 * servers do, so newer clients keep working; fields we cannot honour are rejected explicitly.
 */
import { z } from "zod";
import { ApiError } from "./api-error.js";

const TextPartSchema = z.object({
  type: z.literal("text", { error: (i) => `content parts of type ${JSON.stringify(i.input)} are not supported: text only (no images or audio)` }),
  text: z.string(),
});
const ContentSchema = z
  .union([z.string(), z.array(TextPartSchema)], {
    // a list of parts: its own issue names the part; anything else: what content may be
    error: (i) => (Array.isArray(i.input) ? undefined : "content must be a string or a list of text parts"),
  })
  .describe("a string, or text parts (images and audio are not supported)");

const ToolCallSchema = z.object({
  id: z.string(),
  type: z.literal("function").default("function"),
  function: z.object({ name: z.string().min(1), arguments: z.string().describe("JSON text") }),
});

/** A parameter accepted at its neutral value only; any other value is refused with why (never ignored). */
function neutralOnly<const V extends string | number | boolean>(value: V, why: string) {
  return z.literal(value, { error: why }).describe(why);
}

export const MessageSchema = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: ContentSchema, name: z.string().nullish() }),
  z.object({ role: z.literal("developer"), content: ContentSchema, name: z.string().nullish() }),
  z.object({ role: z.literal("user"), content: ContentSchema, name: z.string().nullish() }),
  z.object({
    role: z.literal("assistant"),
    content: ContentSchema.nullable().optional(),
    tool_calls: z.array(ToolCallSchema).nullish(),
    name: z.string().nullish(),
  }),
  z.object({ role: z.literal("tool"), content: ContentSchema, tool_call_id: z.string() }),
]);
export type RequestMessage = z.infer<typeof MessageSchema>;

export const FunctionToolSchema = z.object({
  type: z.literal("function"),
  function: z.object({
    name: z.string().min(1),
    description: z.string().nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
    strict: z.boolean().nullable().optional(),
  }),
});

export const ResponseFormatSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text") }),
  z.object({ type: z.literal("json_object") }),
  z.object({
    type: z.literal("json_schema"),
    json_schema: z.object({
      name: z.string().optional(),
      description: z.string().optional(),
      schema: z.unknown().optional().describe("the JSON Schema; absent means any JSON object"),
      strict: z.boolean().nullable().optional(),
    }),
  }),
]);

export const ChatCompletionRequestSchema = z.object({
  model: z.string().min(1),
  messages: z.array(MessageSchema).min(1),
  tools: z.array(FunctionToolSchema).nullish(),
  tool_choice: z
    .union([z.enum(["auto", "none"]), z.enum(["required"]), z.object({ type: z.literal("function"), function: z.object({ name: z.string() }) })])
    .nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  temperature: z.number().min(0).max(2).nullable().optional().describe("default 1; 0 is greedy"),
  top_p: z.number().gt(0).max(1).nullable().optional().describe("default 1"),
  top_k: z.number().int().min(-1).nullable().optional().describe("vLLM extension; 0 or -1 disables (default)"),
  max_tokens: z.number().int().min(1).nullable().optional(),
  max_completion_tokens: z.number().int().min(1).nullable().optional(),
  stop: z.union([z.string().min(1), z.array(z.string().min(1)).max(16, "at most 16 stop strings")]).nullable().optional(),
  seed: z
    .number()
    .refine((x) => Number.isInteger(x), "expected an integer")
    .nullable()
    .optional()
    .describe("any integer (64-bit seeds arrive rounded to a double); its low 32 bits are used"),
  n: z.number().int().min(1).max(64).nullable().optional(),
  stream: z.boolean().nullable().optional(),
  stream_options: z.object({ include_usage: z.boolean().nullish() }).nullish(),
  logprobs: z.boolean().nullable().optional(),
  top_logprobs: z.number().int().min(0).max(20).nullable().optional(),
  response_format: ResponseFormatSchema.nullable().optional(),
  presence_penalty: neutralOnly(0, "only 0 is supported").nullable().optional(),
  logit_bias: z
    .record(z.string(), z.number())
    .refine((b) => Object.keys(b).length === 0, "logit_bias is not supported")
    .nullable()
    .optional(),
  frequency_penalty: neutralOnly(0, "only 0 is supported").nullable().optional(),
  user: z.string().nullish(),
  // vLLM's sampling extensions: accepted at their neutral value, refused otherwise (never ignored)
  repetition_penalty: neutralOnly(1, "vLLM extension; only 1 is supported").nullish(),
  min_p: neutralOnly(0, "vLLM extension; only 0 is supported").nullish(),
  min_tokens: neutralOnly(0, "vLLM extension; only 0 is supported").nullish(),
  ignore_eos: neutralOnly(false, "vLLM extension; not supported").nullish(),
  best_of: neutralOnly(1, "only 1 is supported").nullish(),
  use_beam_search: neutralOnly(false, "vLLM extension; not supported").nullish(),
  add_generation_prompt: neutralOnly(true, "vLLM extension; the reply always starts a new assistant turn").nullish(),
  continue_final_message: neutralOnly(false, "vLLM extension; not supported").nullish(),
  guided_json: z.never({ error: "vLLM's guided decoding: use response_format json_schema" }).optional().describe("vLLM's guided decoding: use response_format json_schema"),
  guided_regex: z.never({ error: "vLLM's guided decoding: not supported" }).optional().describe("vLLM's guided decoding: not supported"),
  guided_choice: z.never({ error: "vLLM's guided decoding: not supported" }).optional().describe("vLLM's guided decoding: not supported"),
  guided_grammar: z.never({ error: "vLLM's guided decoding: not supported" }).optional().describe("vLLM's guided decoding: not supported"),
  structured_outputs: z.never({ error: "vLLM's structured outputs: use response_format json_schema" }).optional().describe("vLLM's structured outputs: use response_format json_schema"),
  chat_template_kwargs: z
    .record(z.string(), z.unknown())
    .nullable()
    .optional()
    .describe("vLLM extension: extra chat-template variables, e.g. {enable_thinking: false} for Qwen3"),
  // the legacy function-calling fields: refused, so a legacy client learns it gets no calls
  functions: z.unknown().optional(),
  function_call: z.unknown().optional(),
}).superRefine((req, ctx) => {
  if (req.top_logprobs != null && req.logprobs !== true)
    ctx.addIssue({ code: "custom", path: ["top_logprobs"], message: "top_logprobs needs logprobs: true" });
  if (req.stream_options != null && req.stream !== true)
    ctx.addIssue({ code: "custom", path: ["stream_options"], message: "stream_options is only allowed when stream is true" });
  for (const k of ["functions", "function_call"] as const)
    if (req[k] != null) ctx.addIssue({ code: "custom", path: [k], message: `${k} (legacy function calling) is not supported: send tools and tool_choice` });
});
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequestSchema>;

export const LoadLoraSchema = z.object({
  lora_name: z.string().min(1),
  lora_path: z.string().min(1),
  load_inplace: z.boolean().optional().describe("vLLM: replace an adapter already loaded under this name (default false)"),
});

export const UnloadLoraSchema = z.object({
  lora_name: z.string().min(1),
  lora_int_id: z.number().int().optional(),
});

/** Validates a parsed JSON body; a failure is a 400 invalid_request_error naming the field. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  let issue = r.error.issues[0];
  // a union that failed: the alternative that got furthest says what was wrong ("content.0.type:
  // image parts are not supported" rather than "content: Invalid input")
  while (issue.code === "invalid_union") {
    // deepest first; at one depth, an alternative of the right type ("too many") before a wrong type
    const rank = (x: z.core.$ZodIssue) => x.path.length * 2 + (x.code === "invalid_type" ? 0 : 1);
    const best = issue.errors.flat().sort((a, b) => rank(b) - rank(a))[0];
    if (!best || rank(best) === 0) break;
    issue = { ...best, path: [...issue.path, ...best.path] };
  }
  const param = issue.path.map(String).join(".");
  throw new ApiError(400, `${param || "body"}: ${issue.message}`, "invalid_request_error", param || null);
}
