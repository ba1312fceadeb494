/**
 * Before a run trains with a RULER judge: is the endpoint there, does it take the key, does it
 * serve the model? A wrong URL, key or model name would otherwise fail every group quietly (each
 * scored by the other rewards, the run "succeeding" without its judge). Checked with GET /models,
 * as --policy-url is. Some OpenAI-compatible servers have no /models route (or list nothing):
 * then one chat completion of one token with the judge model decides, so a server without the
 * route still trains, and a wrong URL or model still stops the run before it starts.
 */
import OpenAI from "openai";
import { rootCause, TrainMcpError } from "../errors.js";
import { closestName } from "../closest-name.js";
import { isAzureEndpoint, listsModel } from "../mcp/openai-base-url.js";
import { redactUrlCredentials } from "../mcp/url-credentials.js";
import { JudgeClientSchema, makeJudgeClient, scrub, type JudgeConfig } from "./judge.js";

/** Where the user set the judge, for the messages: the flags, or a config file's fields. */
export interface JudgeSettingNames {
  model: string;
  baseUrl: string;
}

const FLAG_NAMES: JudgeSettingNames = { model: "--judge-model", baseUrl: "--judge-base-url" };

/** Throws a usage error naming the setting; returns a warning line when the endpoint could not tell. */
export async function checkJudge(judge: JudgeConfig, keyEnv?: string, names: JudgeSettingNames = FLAG_NAMES): Promise<string | undefined> {
  const url = redactUrlCredentials(judge.baseURL);
  const where = `${names.baseUrl} ${url}`;
  const client = makeJudgeClient({ ...judge, timeoutMs: 15_000 });
  const served: string[] = [];
  let listFailed: string | undefined;
  // Azure lists base models, not the deployment names it is called with: the test completion decides
  if (isAzureEndpoint(judge.baseURL)) listFailed = "an Azure endpoint's GET /models does not list deployments";
  else
    try {
      for await (const m of client.models.list()) served.push(m.id);
    } catch (e) {
      refuseUnreachable(e, where, keyEnv);
      listFailed = `GET /models failed (${scrub((e as Error).message, judge.apiKey)})`;
    }
  if (served.length > 0) {
    if (!listsModel(served, judge.model)) {
      const near = closestName(judge.model, served);
      throw new TrainMcpError("ConfigInvalid", `${names.model} ${judge.model}: ${url} does not serve it${near ? ` (did you mean ${near}?)` : ""} (it serves ${served.slice(0, 10).join(", ")}${served.length > 10 ? ", …" : ""})`);
    }
    return undefined;
  }
  // nothing listed to check the name against: ask the model itself, as a judgement would
  const why = listFailed ?? "GET /models lists no model";
  try {
    await makeJudgeClient(judge).chat.completions.create({ model: judge.model, messages: [{ role: "user", content: "Reply with OK." }], max_tokens: 1 }, { timeout: JudgeClientSchema.parse(judge).timeoutMs });
    return undefined;
  } catch (e) {
    refuseUnreachable(e, where, keyEnv);
    const reason = scrub(e instanceof OpenAI.APIConnectionTimeoutError ? "it timed out" : (e as Error).message, judge.apiKey);
    // rate-limited: the endpoint and model are there, and judgements retry on 429
    if (e instanceof OpenAI.APIError && e.status === 429) return `warning: ${where}: ${why}, and a test completion with ${judge.model} was rate-limited (${reason}); using it unchecked`;
    throw new TrainMcpError(
      "ConfigInvalid",
      `${names.model} ${judge.model} at ${where}: ${why}, and a one-token chat completion with it failed too (${reason}), so every judgement would fail: check the URL (most servers' end in /v1) and the model's name`,
    );
  }
}

/** A judge that cannot be reached or refuses the key fails the same whatever was asked. */
function refuseUnreachable(e: unknown, where: string, keyEnv: string | undefined): void {
  if (e instanceof OpenAI.APIConnectionError && !(e instanceof OpenAI.APIConnectionTimeoutError))
    throw new TrainMcpError("ConfigInvalid", `${where}: cannot connect (${rootCause(e)}); is the judge's server running?`);
  if (e instanceof OpenAI.APIError && (e.status === 401 || e.status === 403))
    throw new TrainMcpError("ConfigInvalid", `${where} refused the key (HTTP ${e.status})${keyEnv ? `: set $${keyEnv} to the judge's key` : ""}`);
}
