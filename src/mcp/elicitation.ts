/**
 * MCP elicitation (`elicitation/create`, form mode): a server's tool stops mid-call to ask the
 * user for input — confirm a deletion, pick an option, fill in a name. In a training run no
 * person is there, so the user chooses who answers (`--elicitation MODE`):
 *
 *   decline   the user says no to every form: the tool carries on as it does without the input
 *   cancel    the user dismisses every form
 *   defaults  the user accepts the form as the server pre-filled it: every field that has a
 *             `default` gets it; a form with a required field without one is declined
 *   model     the client's model (--sampling-model's endpoint) fills the form in as a plausible,
 *             cooperative user who wants the task the call works on (the caller's
 *             `CallOptions.task`, see call-tasks.ts), with the schema as the reply's
 *             response_format; a reply that does not match the schema is a decline
 *
 * Unset, the capability is not declared (servers may then hide such tools). URL-mode elicitation
 * (open this web page) is never declared: no one is there to open it. The form is the server's
 * doing, not the policy's, so the policy never sees it; what it sees is the tool's result.
 */
import type { ElicitRequestFormParams, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { requestError, type ClientModel } from "./client-model.js";
import { scrubKey } from "./command-credentials.js";
import { ArgumentValidator } from "./validate.js";

export const ELICITATION_MODES = ["decline", "cancel", "defaults", "model"] as const;
export type ElicitationMode = (typeof ELICITATION_MODES)[number];

/** What the client knows when a form arrives: the request's abort signal, and the user's task
 *  when the calls in flight agree on one (call-tasks.ts). */
export interface ElicitationContext {
  signal?: AbortSignal;
  task?: string;
}

export type ElicitationHandler = (params: ElicitRequestFormParams, context?: ElicitationContext) => Promise<ElicitResult>;

type FormContent = NonNullable<ElicitResult["content"]>;

/** `model` mode needs the client's model; the others answer on their own. */
export function elicitationHandler(mode: ElicitationMode, model?: ClientModel): ElicitationHandler {
  switch (mode) {
    case "decline":
    case "cancel":
      return async () => ({ action: mode });
    case "defaults":
      return async (params) => {
        const content = formDefaults(params.requestedSchema);
        return content ? { action: "accept", content } : { action: "decline" };
      };
    case "model":
      if (!model) throw new Error("elicitation mode `model` needs the client's model (--sampling-model, --sampling-base-url)");
      return (params, context) => answerWithModel(model, params, context);
  }
}

/** The form as the server pre-filled it, or undefined when a required field has no default. */
export function formDefaults(schema: ElicitRequestFormParams["requestedSchema"]): FormContent | undefined {
  const content: FormContent = {};
  for (const [name, field] of Object.entries(schema.properties)) {
    const value = (field as { default?: unknown }).default;
    if (value !== undefined) content[name] = value as FormContent[string];
    else if (schema.required?.includes(name)) return undefined;
  }
  return content;
}

const USER_STAND_IN =
  "You stand in for the user of an AI assistant. While working on the user's request, one of the assistant's tools has asked the user to fill in a form. " +
  "When the request is given, the answers it states or implies are the user's: use them. " +
  "Answer as a cooperative user would: fill every required field with a plausible value that fits the request and the field's description, and leave out optional fields you have no reason to fill. " +
  "Reply with the form's JSON object only.";

async function answerWithModel(model: ClientModel, params: ElicitRequestFormParams, { signal, task }: ElicitationContext = {}): Promise<ElicitResult> {
  const { model: name, apiKey, maxTokens = 1024 } = model.endpoint;
  const schema = params.requestedSchema as Record<string, unknown>;
  // without the task the stand-in can only invent plausible values; with it, the user's own
  const request = task ? `The user's request to the assistant:\n${task}\n\n` : "";
  let reply: string;
  try {
    const completion = await model.complete(
      {
        messages: [
          { role: "system", content: USER_STAND_IN },
          { role: "user", content: `${request}The tool asks: ${params.message}\n\nThe form (JSON Schema):\n${JSON.stringify(schema)}` },
        ],
        max_tokens: Math.min(512, maxTokens),
        response_format: { type: "json_schema", json_schema: { name: "form", schema, strict: false } },
      },
      signal,
    );
    reply = completion.choices?.[0]?.message?.content ?? "";
  } catch (e) {
    const text = e instanceof Error ? e.message : String(e);
    throw requestError(ErrorCode.InternalError, `the client's model (${name}) failed to answer the form: ${scrubKey(text, apiKey)}`);
  }
  const content = parseForm(reply, schema);
  return content ? { action: "accept", content } : { action: "decline" };
}

/** The reply as form content when it is one JSON object that matches the form's schema. */
export function parseForm(reply: string, schema: Record<string, unknown>): FormContent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(reply.trim().replace(/^```(?:json)?\s*|\s*```$/g, ""));
  } catch {
    return undefined;
  }
  const check = new ArgumentValidator().check("form", schema, value);
  if (!check.ok) return undefined;
  // form fields are strings, numbers, booleans and string lists; anything else is not an answer
  const fields = Object.values(check.args).every(
    (v) => ["string", "number", "boolean"].includes(typeof v) || (Array.isArray(v) && v.every((x) => typeof x === "string")),
  );
  return fields ? (check.args as FormContent) : undefined;
}
