/**
 * The LLM scenario generator: asks any OpenAI-compatible endpoint (through the `openai`
 * client) for tasks of graded difficulty over a server's tools, validates every task with zod,
 * drops near-duplicates and tasks that name a tool, and asks again until N distinct ones exist.
 *
 * Structured output first: `response_format: {type: "json_schema", strict}`; a provider that
 * answers HTTP 400 naming json_schema/response_format gets `{type: "json_object"}` (JSON mode)
 * from then on, the reply checked by zod alone. Transient failures (408/409/429/5xx, connection
 * errors: openai-node's own retry rule) are retried with backoff inside a bounded number of
 * attempts; a persistent failure throws and nothing is returned, so the caller writes no file.
 * The API key is passed in by the CLI and never logged. Before the first request the endpoint's
 * GET /models is asked whether it serves the model (model-check.ts). A model that answers with a
 * tool call instead of text (some providers implement JSON output as a forced tool call) has its
 * call's arguments read as the reply.
 */
import OpenAI from "openai";
import { rootCause, TrainMcpError } from "../../errors.js";
import type { ToolSpec } from "../../mcp/types.js";
import { redactUrlCredentials } from "../../mcp/url-credentials.js";
import { redactTargetCredentials } from "../../mcp/target.js";
import { NearDuplicateFilter } from "../dedupe.js";
import { ScenarioSchema, type Expected, type ReferenceCall, type Scenario } from "../schema.js";
import { Rng } from "../verified/rng.js";
import { extractNumbers } from "../numbers.js";
import { LlmReplySchema, LlmTaskSchema, REPLY_JSON_SCHEMA, systemPrompt, userPrompt, type LlmTask, type ResourceInfo } from "./prompt.js";
import { openAiEndpoint } from "../../mcp/openai-base-url.js";
import { checkLlmModel } from "./model-check.js";

export interface LlmOptions {
  /** e.g. https://api.openai.com/v1 or http://127.0.0.1:8000/v1 */
  baseUrl: string;
  model: string;
  /** resolved by the CLI from OPENAI_API_KEY; local servers accept any (default "not-needed") */
  apiKey?: string;
  n: number;
  /** default 1; also sent as the request's `seed` */
  seed?: number;
  /** default 0.25 */
  testFraction?: number;
  resources?: ResourceInfo[];
  /** tasks asked for per request; default min(n, 20) */
  batchSize?: number;
  /** requests allowed in all, failures included; default 2 × ceil(n / batch) + 4 */
  maxRequests?: number;
  /** first backoff after a transient failure, doubled each time; default 1000 ms */
  retryDelayMs?: number;
  /** per-request timeout; default 120 000 ms */
  timeoutMs?: number;
  /** default 0.8 */
  temperature?: number;
  /** Jaccard threshold for near-duplicates; default 0.8 */
  dedupeThreshold?: number;
  server?: string;
  /** default "llm" */
  idPrefix?: string;
  onProgress?: (done: number, total: number) => void;
  /**
   * Checks each task as it is accepted (replay on the server, verify.ts): the scenario to keep
   * (with its reference, once confirmed), or undefined when the server contradicts it; a
   * contradicted task does not count towards `n`, so the spare tasks of a reply, then more
   * requests, take its place. The drafts' ids and splits are provisional: both are set once
   * the `n` tasks are known.
   */
  vet?: (draft: Scenario, solution: LlmSolution | undefined) => Promise<Scenario | undefined>;
  /** one line per notable event (fallback, retry, rejected tasks); never includes the key */
  log?: (line: string) => void;
}

/** A task's solution as the model wrote it: calls to replay (verify.ts), or why they cannot be. */
export type LlmSolution = { calls: ReferenceCall[]; answer: string } | { problem: string };

export interface LlmResult {
  scenarios: Scenario[];
  /** by scenario id, for tasks that came with a solution: unverified until replayed (verify.ts) */
  solutions: Map<string, LlmSolution>;
  requests: number;
  /** true when the provider refused json_schema and JSON mode was used */
  usedJsonObjectFallback: boolean;
  rejected: { invalid: number; duplicate: number; namesTool: number; contradicted: number };
}

export async function generateWithLlm(tools: readonly ToolSpec[], options: LlmOptions): Promise<LlmResult> {
  const n = options.n;
  if (!Number.isInteger(n) || n < 1) throw new TrainMcpError("ConfigInvalid", `--n must be a positive integer, got ${n}`);
  if (!options.baseUrl) throw new TrainMcpError("ConfigInvalid", "--llm-base-url is required for --generator llm");
  if (!options.model) throw new TrainMcpError("ConfigInvalid", "--llm-model is required for --generator llm");
  if (tools.length === 0) throw new TrainMcpError("ConfigInvalid", "the server has no tools to write tasks for");
  const batch = Math.max(1, options.batchSize ?? Math.min(n, 20));
  const maxRequests = options.maxRequests ?? 2 * Math.ceil(n / batch) + 4;
  const log = options.log ?? (() => undefined);
  const client = new OpenAI({
    ...openAiEndpoint(options.baseUrl),
    apiKey: options.apiKey || "not-needed",
    maxRetries: 0, // retries are ours: bounded together with bad replies
    timeout: options.timeoutMs ?? 120_000,
  });
  await checkLlmModel(client, options.model, options.baseUrl);

  const accepted: Array<{ task: LlmTask; scenario: Scenario }> = [];
  const filter = new NearDuplicateFilter(options.dedupeThreshold ?? 0.8);
  const rejected = { invalid: 0, duplicate: 0, namesTool: 0, contradicted: 0 };
  const idPrefix = options.idPrefix ?? "llm";
  const width = Math.max(4, String(n).length);
  const idOf = (i: number) => `${idPrefix}-${String(i + 1).padStart(width, "0")}`;
  let jsonObject = false;
  let requests = 0;
  let transientFailures = 0;
  let lastError = "";
  let received = 0;
  let answered = false; // some request got a reply
  let lastInvalid = ""; // the zod issue of the last invalid task, for the final message
  let toldToolCall = false; // tasks read from a tool call's arguments: said once

  while (accepted.length < n) {
    if (requests >= maxRequests) {
      throw new TrainMcpError(
        "JudgeFailed",
        `LLM generator: only ${accepted.length} of ${n} valid, distinct tasks after ${requests} requests to ${redactUrlCredentials(options.baseUrl)} (${received} tasks received; rejected: ${rejected.invalid} invalid${lastInvalid ? ` [${lastInvalid}]` : ""}, ${rejected.duplicate} near-duplicate, ${rejected.namesTool} naming a tool${rejected.contradicted ? `, ${rejected.contradicted} contradicted by the server` : ""})${lastError ? ` (last error: ${lastError})` : ""}; nothing written`,
        false,
      );
    }
    requests++;
    const want = Math.min(batch, n - accepted.length + Math.ceil(batch / 4)); // a little slack for rejects
    let content: Answer;
    try {
      content = await ask(client, options, tools, want, accepted.map((a) => a.task.task), jsonObject, requests);
    } catch (e) {
      if (!jsonObject && isJsonSchemaUnsupported(e)) {
        jsonObject = true;
        requests--; // a capability probe, not a failed attempt
        log(`provider does not support response_format json_schema (${errorLine(e)}); using JSON mode`);
        continue;
      }
      // nothing ever answered there: a wrong URL or a server not started, not a blip to wait out
      if (status(e) !== undefined) answered = true; // an HTTP error is an answer: something is there
      if (e instanceof OpenAI.APIConnectionError && !(e instanceof OpenAI.APIConnectionTimeoutError) && !answered) {
        throw new TrainMcpError("ConfigInvalid", `--llm-base-url ${redactUrlCredentials(options.baseUrl)}: cannot connect (${rootCause(e)}); nothing written`, true, { cause: e });
      }
      if (isTransient(e)) {
        lastError = errorLine(e);
        if (requests >= maxRequests) continue; // no request left: the loop ends with the full story
        const delay = (options.retryDelayMs ?? 1000) * 2 ** Math.min(transientFailures++, 5);
        log(`request ${requests} failed (${lastError}); retrying in ${delay} ms`);
        await new Promise((r) => setTimeout(r, delay));
        continue;
      }
      // a model the endpoint does not serve, or a URL without /v1: the user's to fix, not a blip
      if (status(e) === 404)
        throw new TrainMcpError("ConfigInvalid", `--llm-model ${options.model} at --llm-base-url ${redactUrlCredentials(options.baseUrl)}: ${errorLine(e)} (is the model served there, and does the URL end in /v1?); nothing written`, true, { cause: e });
      // a prompt longer than the model's context (train-mcp serve of the built-in model: 2,048
      // tokens, where one server's tool descriptions can take more): no retry will fit it
      if (status(e) === 400 && contextExceeded(e))
        throw new TrainMcpError(
          "ConfigInvalid",
          `--llm-model ${options.model} at --llm-base-url ${redactUrlCredentials(options.baseUrl)}: the request does not fit the model's context (${errorLine(e)}); ` +
            `it holds the rules, the server's ${tools.length === 1 ? "1 tool with its description and schema" : `${tools.length} tools with their descriptions and schemas`} (${userPrompt(tools, options.resources ?? [], want, []).length + systemPrompt().length} characters) and up to 40 tasks already written: use a model with a longer context; nothing written`,
          true,
          { cause: e },
        );
      if (e instanceof NotAChatCompletion) throw new TrainMcpError("ConfigInvalid", `--llm-base-url ${redactUrlCredentials(options.baseUrl)}: ${e.message}; is it an OpenAI-compatible /v1 endpoint? nothing written`, true, { cause: e });
      throw new TrainMcpError("JudgeFailed", `LLM generator: ${redactUrlCredentials(options.baseUrl)} refused the request: ${errorLine(e)}`, false, { cause: e });
    }
    answered = true;
    const reply = parseAnswer(content);
    if ("toolCall" in reply && !toldToolCall) {
      toldToolCall = true;
      log(`request ${requests}: the model answered with a tool call (${reply.toolCall}) and no text; reading the tasks from its arguments`);
    }
    if ("why" in reply) {
      rejected.invalid++;
      lastError = `the reply was ${reply.why}`;
      log(`request ${requests}: ${lastError}`);
      continue;
    }
    const tasks = reply.tasks;
    received += tasks.length;
    if (tasks.length === 0) log(`request ${requests}: the reply held no tasks`);
    for (const raw of tasks) {
      const parsed = LlmTaskSchema.safeParse(raw);
      if (!parsed.success) {
        rejected.invalid++;
        const issue = parsed.error.issues[0];
        lastInvalid = `${issue.path.join(".") || "(task)"}: ${issue.message}`;
        log(`request ${requests}: task rejected (${lastInvalid})`);
        continue;
      }
      const task = parsed.data;
      if (namesTool(task.task, tools)) {
        rejected.namesTool++;
        log(`request ${requests}: task rejected (it names a tool)`);
        continue;
      }
      if (!filter.add(task.task)) {
        rejected.duplicate++;
        log(`request ${requests}: task rejected (near-duplicate)`);
        continue;
      }
      const draft = scenarioOf(task, idOf(accepted.length), "train", options.server);
      const scenario = options.vet ? await options.vet(draft, solutionOf(task)) : draft;
      if (!scenario) {
        rejected.contradicted++;
        log(`request ${requests}: task rejected (the server's results contradict its expected answer)`);
        continue;
      }
      accepted.push({ task, scenario });
      options.onProgress?.(Math.min(accepted.length, n), n);
      if (accepted.length >= n) break;
    }
  }

  const rng = new Rng(`${options.seed ?? 1}/llm-split`);
  const testIdx = new Set(rng.sample([...Array(n).keys()], testCount(n, options.testFraction ?? 0.25)));
  const scenarios = accepted.slice(0, n).map((a, i): Scenario => ({ ...a.scenario, id: idOf(i), split: testIdx.has(i) ? "test" : "train" }));
  const solutions = new Map<string, LlmSolution>();
  scenarios.forEach((sc, i) => {
    const solution = solutionOf(accepted[i].task);
    if (solution) solutions.set(sc.id, solution);
  });
  return { scenarios, solutions, requests, usedJsonObjectFallback: jsonObject, rejected };
}

/** How many of n tasks are held out: the fraction, rounded, but never all or none of two or more when it is strictly between 0 and 1. */
export function testCount(n: number, fraction: number): number {
  const k = Math.round(n * fraction);
  if (n < 2 || fraction <= 0 || fraction >= 1) return k;
  return Math.min(n - 1, Math.max(1, k));
}

function scenarioOf(t: LlmTask, id: string, split: "train" | "test", server: string | undefined): Scenario {
  const expected = expectedOf(t);
  return ScenarioSchema.parse({
    id,
    task: t.task,
    difficulty: t.difficulty,
    split,
    tags: ["generator:llm", ...(t.tags ?? []).slice(0, 5)],
    ...(server ? { server: redactTargetCredentials(server) } : {}),
    ...(expected ? { expected: [expected] } : {}),
  });
}

/** The model's solution calls with their arguments parsed; the answer is its expected_answer. */
function solutionOf(t: LlmTask): LlmSolution | undefined {
  if (!t.solution?.length) return undefined;
  const calls: ReferenceCall[] = [];
  for (const [i, c] of t.solution.entries()) {
    let args: unknown;
    try {
      args = c.arguments_json.trim() === "" ? {} : JSON.parse(c.arguments_json);
    } catch {
      return { problem: `call ${i + 1} (${c.tool}): arguments_json is not JSON` };
    }
    if (!args || typeof args !== "object" || Array.isArray(args)) return { problem: `call ${i + 1} (${c.tool}): arguments_json is not a JSON object` };
    calls.push({ name: c.tool, arguments: args as Record<string, unknown> });
  }
  return { calls, answer: t.expected_answer?.trim() ?? "" };
}

/** The assistant's text, and the tool calls it made instead (no tools are offered, but some models call one). */
interface Answer {
  content: string;
  toolCalls: Array<{ name: string; arguments: string }>;
}

async function ask(client: OpenAI, o: LlmOptions, tools: readonly ToolSpec[], count: number, avoid: string[], jsonObject: boolean, attempt: number): Promise<Answer> {
  const completion = await client.chat.completions.create({
    model: o.model,
    messages: [
      { role: "system", content: systemPrompt() },
      { role: "user", content: userPrompt(tools, o.resources ?? [], count, avoid) },
    ],
    temperature: o.temperature ?? 0.8,
    seed: (o.seed ?? 1) * 1000 + attempt,
    response_format: jsonObject
      ? { type: "json_object" }
      : { type: "json_schema", json_schema: { name: "scenarios", strict: true, schema: REPLY_JSON_SCHEMA as unknown as Record<string, unknown> } },
  });
  // an endpoint that is not OpenAI-compatible (an HTML page, a bare string) comes back as something
  // without `choices`: say what came, not "cannot read properties of undefined"
  const choices = (completion as { choices?: unknown }).choices;
  if (!Array.isArray(choices)) {
    const body = typeof completion === "string" ? (completion as string) : JSON.stringify(completion);
    throw new NotAChatCompletion(`the reply is not a chat completion (no "choices"): ${body.replace(/\s+/g, " ").slice(0, 120)}`);
  }
  if (choices.length === 0) throw new NotAChatCompletion(`the reply has an empty "choices" list`);
  const message = completion.choices[0]?.message;
  const toolCalls = (message?.tool_calls ?? []).flatMap((c) => (c.type === "function" ? [{ name: c.function.name, arguments: c.function.arguments ?? "" }] : []));
  return { content: message?.content ?? "", toolCalls };
}

class NotAChatCompletion extends Error {}

/**
 * The tasks of an answer. With no text but a tool call, the call's arguments are the payload when
 * they hold the JSON asked for; otherwise the reply is reported as the tool call it is, not as
 * "not JSON" (its empty text).
 */
function parseAnswer(a: Answer): { tasks: unknown[]; toolCall?: string } | { why: string } {
  if (a.content.trim() !== "" || a.toolCalls.length === 0) return parseReply(a.content);
  for (const call of a.toolCalls) {
    const r = parseReply(call.arguments);
    if ("tasks" in r) return { ...r, toolCall: call.name };
  }
  const first = a.toolCalls[0];
  const args = first.arguments.length > 60 ? `${first.arguments.slice(0, 60)}…` : first.arguments;
  return { why: `a tool call instead of the JSON asked for: ${a.toolCalls.map((c) => c.name).join(", ")}(${args.replace(/\s+/g, " ")}), no tasks in its arguments` };
}

/** The tasks array of a reply, tolerating code fences around the JSON; else why it is unusable. */
function parseReply(content: string): { tasks: unknown[] } | { why: string } {
  const body = content.trim().replace(/^```(?:json)?\s*/i, "").replace(/\s*```$/, "");
  const snippet = JSON.stringify(body.length > 60 ? `${body.slice(0, 60)}…` : body);
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (e) {
    return { why: `not JSON (${(e as Error).message}): ${snippet}` };
  }
  if (Array.isArray(value)) return { tasks: value };
  const r = LlmReplySchema.safeParse(value);
  if (r.success) return { tasks: r.data.scenarios };
  const keys = value && typeof value === "object" ? Object.keys(value) : [];
  return { why: keys.length ? `a JSON object without a "scenarios" array (keys: ${keys.slice(0, 5).join(", ")})` : `JSON, but not an object with a "scenarios" array: ${snippet}` };
}

function expectedOf(t: LlmTask): Expected | undefined {
  const answer = t.expected_answer?.trim();
  if (!answer || t.answer_kind === "none" || !t.answer_kind) return undefined;
  if (t.answer_kind === "numeric") {
    const v = extractNumbers(answer)[0];
    return v === undefined ? undefined : { kind: "numeric", value: v, tolerance: 1e-6, relTolerance: 1e-3 };
  }
  return { kind: "contains", value: answer, caseSensitive: false };
}

/** A tool name written in the task (snake_case or camelCase names only: "search" is a word). */
function namesTool(task: string, tools: readonly ToolSpec[]): boolean {
  return tools.some((t) => /[_A-Z-]/.test(t.name) && new RegExp(`\\b${t.name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`).test(task));
}

function status(e: unknown): number | undefined {
  return e instanceof OpenAI.APIError ? e.status : undefined;
}

/** OpenAI's and vLLM's answer to a prompt past the context (code context_length_exceeded). */
function contextExceeded(e: unknown): boolean {
  const code = e instanceof OpenAI.APIError ? e.code : undefined;
  return code === "context_length_exceeded" || /maximum context length|context_length_exceeded|context window/i.test(errorLine(e));
}

function isJsonSchemaUnsupported(e: unknown): boolean {
  return status(e) === 400 && /json_schema|response_format|structured|schema/i.test(errorLine(e));
}

/** openai-node's shouldRetry rule: connection errors, 408, 409, 429 and 5xx. */
function isTransient(e: unknown): boolean {
  if (e instanceof OpenAI.APIConnectionError) return true;
  const s = status(e);
  return s === 408 || s === 409 || s === 429 || (s !== undefined && s >= 500);
}

function errorLine(e: unknown): string {
  const s = status(e);
  const msg = e instanceof Error ? e.message : String(e);
  return `${s ? `HTTP ${s}: ` : ""}${msg}`.replace(/\s+/g, " ").slice(0, 300);
}
