/**
 * The judge endpoint: one chat-completions call through the `openai` client to any
 * OpenAI-compatible server, with our own bounded retry loop (the client's own retries are off,
 * so that malformed replies are retried by the same rule and every attempt is counted).
 *
 * Retried: HTTP 408/409/429/5xx (openai-node's `shouldRetry` set), connection failures,
 * timeouts, and replies that fail validation. Not retried: other 4xx (a wrong model name or key
 * will not fix itself) and the caller's abort. Delay before attempt k+1 is
 * min(maxDelayMs, baseDelayMs·2^(k−1)), or the server's Retry-After when that is longer (still
 * capped); no jitter, so runs are reproducible.
 *
 * The API key is passed in by the caller and never read from the environment here; it is
 * never logged, and every message this module produces is scrubbed of it (servers echo keys).
 * The client is built with logLevel "off" and with organization/project headers off, so no
 * OPENAI_* variable of the user's shell reaches a third-party judge.
 */
import OpenAI from "openai";
import { z } from "zod";
import { TrainMcpError } from "../errors.js";
import { scrubKey as scrub } from "../mcp/command-credentials.js";
export { scrub };
import { JudgeReplyError } from "./ruler-prompt.js";
import { openAiEndpoint } from "../mcp/openai-base-url.js";
import { sleep } from "../sleep.js";

export const JudgeClientSchema = z.object({
  baseURL: z.string().url().describe("OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1"),
  model: z.string().min(1).describe("judge model name as the endpoint knows it"),
  timeoutMs: z.number().int().positive().default(120_000).describe("per attempt; default 120 s"),
  maxAttempts: z.number().int().min(1).max(20).default(4).describe("attempts in all, first included; default 4"),
  baseDelayMs: z.number().int().nonnegative().default(1_000).describe("delay before the second attempt; doubles after; default 1 s"),
  maxDelayMs: z.number().int().nonnegative().default(30_000).describe("cap on one delay; default 30 s"),
  temperature: z.number().min(0).max(2).optional().describe("sampling temperature; endpoint default when absent"),
  maxTokens: z.number().int().positive().default(2048).describe("cap on the judge's reply tokens (scores and a short explanation per trajectory fit well within the default)"),
  seed: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("sampling seed sent with each request (attempt k sends seed + k - 1, so a retry is a fresh draw); endpoints that honour it (vLLM, train-mcp serve) then judge reproducibly"),
});
export type JudgeClientOptions = z.infer<typeof JudgeClientSchema>;
export type JudgeClientInput = z.input<typeof JudgeClientSchema>;

/** Client settings plus the secret, which is kept out of the schema (never saved with a run). */
export type JudgeConfig = JudgeClientInput & {
  /** sent as the bearer token; "EMPTY" when absent (local servers such as vLLM ignore it) */
  apiKey?: string;
  /** a prebuilt client to share a connection pool between groups; its retries should be 0 */
  client?: OpenAI;
};

export interface JudgeCallStats {
  attempts: number;
  /** attempt number → reason it failed, for the log */
  failures: string[];
}

export function makeJudgeClient(cfg: JudgeConfig): OpenAI {
  if (cfg.client) return cfg.client;
  const o = JudgeClientSchema.parse(cfg);
  const hasKey = !!cfg.apiKey && cfg.apiKey.length > 0;
  return new OpenAI({
    apiKey: hasKey ? cfg.apiKey : "EMPTY",
    ...openAiEndpoint(o.baseURL),
    timeout: o.timeoutMs,
    maxRetries: 0,
    logLevel: "off",
    organization: null,
    project: null,
    adminAPIKey: null,
    webhookSecret: null,
  });
}


interface Verdict {
  retry: boolean;
  reason: string;
  retryAfterMs?: number;
}

function retryAfterMs(headers: Headers | undefined): number | undefined {
  const v = headers?.get?.("retry-after-ms") ?? undefined;
  if (v && Number.isFinite(Number(v))) return Number(v);
  const s = headers?.get?.("retry-after") ?? undefined;
  if (s && Number.isFinite(Number(s))) return Number(s) * 1000;
  return undefined;
}

function classify(e: unknown, timeoutMs: number): Verdict {
  if (e instanceof JudgeReplyError) return { retry: true, reason: `malformed reply: ${e.message}` };
  if (e instanceof OpenAI.APIUserAbortError) return { retry: false, reason: "aborted by the caller" };
  if (e instanceof OpenAI.APIConnectionTimeoutError) return { retry: true, reason: `timed out after ${timeoutMs} ms` };
  if (e instanceof OpenAI.APIConnectionError) return { retry: true, reason: `connection failed: ${e.message}` };
  if (e instanceof OpenAI.APIError) {
    const status = e.status ?? 0;
    const retry = status === 408 || status === 409 || status === 429 || status >= 500;
    return { retry, reason: `HTTP ${status}: ${e.message}`.slice(0, 300), retryAfterMs: retryAfterMs(e.headers) };
  }
  return { retry: false, reason: e instanceof Error ? e.message : String(e) };
}

export interface JudgeCall<T> {
  system: string;
  user: string;
  schemaName: string;
  schema: Record<string, unknown>;
  /** turns the reply text into a result; throw JudgeReplyError for a reply worth retrying */
  parse(content: string | null | undefined): T;
  signal?: AbortSignal;
  /** one line per failed attempt, already scrubbed of the key */
  onRetry?: (message: string) => void;
}

/**
 * Sends one judge request with retries. Resolves with the parsed result and the attempt count;
 * after the last attempt fails, rejects with TrainMcpError "JudgeFailed" (scrubbed message).
 */
export async function callJudge<T>(cfg: JudgeConfig, call: JudgeCall<T>): Promise<{ value: T; stats: JudgeCallStats }> {
  const o = JudgeClientSchema.parse(cfg);
  const client = makeJudgeClient(cfg);
  const stats: JudgeCallStats = { attempts: 0, failures: [] };
  for (let attempt = 1; ; attempt++) {
    stats.attempts = attempt;
    let verdict: Verdict;
    try {
      const response = await client.chat.completions.create(
        {
          model: o.model,
          messages: [
            { role: "system", content: call.system },
            { role: "user", content: call.user },
          ],
          response_format: { type: "json_schema", json_schema: { name: call.schemaName, schema: call.schema, strict: true } },
          ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
          max_tokens: o.maxTokens,
          ...(o.seed !== undefined ? { seed: o.seed + attempt - 1 } : {}),
        },
        { signal: call.signal, timeout: o.timeoutMs },
      );
      const choice = response.choices?.[0];
      if (!choice) throw new JudgeReplyError("reply has no choices");
      if (choice.finish_reason === "length") throw new JudgeReplyError("reply was cut off at the token limit");
      return { value: call.parse(choice.message?.content), stats };
    } catch (e) {
      if (call.signal?.aborted) throw new TrainMcpError("JudgeFailed", "judge call aborted", false);
      verdict = classify(e, o.timeoutMs);
    }
    const reason = scrub(verdict.reason, cfg.apiKey);
    stats.failures.push(reason);
    if (!verdict.retry || attempt >= o.maxAttempts) {
      const why = verdict.retry ? `gave up after ${attempt} attempt(s)` : "not retryable";
      throw new TrainMcpError("JudgeFailed", scrub(`judge ${o.model} at ${o.baseURL} failed (${why}): ${reason}`, cfg.apiKey), false);
    }
    const backoff = Math.min(o.maxDelayMs, o.baseDelayMs * 2 ** (attempt - 1));
    const delay = Math.min(o.maxDelayMs, Math.max(backoff, verdict.retryAfterMs ?? 0));
    call.onRetry?.(`judge attempt ${attempt}/${o.maxAttempts} failed (${reason}); retrying in ${delay} ms`);
    try {
      await sleep(delay, call.signal);
    } catch {
      throw new TrainMcpError("JudgeFailed", "judge call aborted", false);
    }
  }
}
