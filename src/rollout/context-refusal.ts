/**
 * An endpoint's refusal of a request whose prompt plus max_tokens is over the model's context
 * (HTTP 400). vLLM and OpenAI word it three ways:
 *   "This model's maximum context length is 2048 tokens. However, you requested 2100 tokens
 *    (2000 in the messages, 100 in the completion). …"                       (vLLM before 0.6)
 *   "'max_tokens' or 'max_completion_tokens' is too large: 100. This model's maximum context
 *    length is 2048 tokens and your request has 2000 input tokens (100 > 2048 - 2000)." (vLLM)
 *   "This model's maximum context length is 8192 tokens. However, your messages resulted in
 *    8200 tokens. …"                                                          (OpenAI)
 * and a prompt alone over the context as "… However, you requested 39197 tokens in the
 * messages, Please reduce …" (vLLM). vLLM before 0.10.1 sends the error at the top level of the
 * body, where the openai client does not look: remote-policy.ts's fetch moves it under `error`.
 * A rollout then has the room the prompt leaves, as a local policy's turn would.
 */
export interface ContextRefusal {
  /** the model's context, in tokens */
  context: number;
  /** the prompt's tokens */
  prompt: number;
}

export function contextRefusal(message: string): ContextRefusal | undefined {
  const context = /maximum context length is (\d+)/i.exec(message);
  const prompt = /(\d+)(?: tokens)? in the messages|has (\d+) input tokens|messages resulted in (\d+) tokens/i.exec(message);
  if (!context || !prompt) return undefined;
  return { context: Number(context[1]), prompt: Number(prompt[1] ?? prompt[2] ?? prompt[3]) };
}
