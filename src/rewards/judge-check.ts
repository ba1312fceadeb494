/**
 * Before a run trains with a RULER judge: is the endpoint there, does it take the key, does it
 * serve the model? A wrong URL, key or model name would otherwise fail every group quietly (each
 * scored by the other rewards, the run "succeeding" without its judge). Checked with GET /models,
 * as --policy-url is; an endpoint without that route is given the benefit of the doubt.
 */
import OpenAI from "openai";
import { rootCause, TrainMcpError } from "../errors.js";
import { redactUrlCredentials } from "../mcp/url-credentials.js";
import { makeJudgeClient, type JudgeConfig } from "./judge.js";

/** Throws a usage error naming the flag; returns a warning line when /models could not tell. */
export async function checkJudge(judge: JudgeConfig, keyEnv?: string): Promise<string | undefined> {
  const where = redactUrlCredentials(judge.baseURL);
  const client = makeJudgeClient({ ...judge, timeoutMs: 15_000 });
  let served: string[];
  try {
    served = [];
    for await (const m of client.models.list()) served.push(m.id);
  } catch (e) {
    if (e instanceof OpenAI.APIConnectionError && !(e instanceof OpenAI.APIConnectionTimeoutError)) {
      throw new TrainMcpError("ConfigInvalid", `--judge-base-url ${where}: cannot connect (${rootCause(e)}); is the judge's server running?`);
    }
    if (e instanceof OpenAI.APIError && (e.status === 401 || e.status === 403))
      throw new TrainMcpError("ConfigInvalid", `--judge-base-url ${where} refused the key (HTTP ${e.status})${keyEnv ? `: set $${keyEnv} to the judge's key` : ""}`);
    return `warning: --judge-base-url ${where}: GET /models failed (${(e as Error).message}); using judge model ${judge.model} unchecked`;
  }
  if (served.length > 0 && !served.includes(judge.model))
    throw new TrainMcpError("ConfigInvalid", `--judge-model ${judge.model}: ${where} does not serve it (it serves ${served.slice(0, 10).join(", ")}${served.length > 10 ? ", …" : ""})`);
  return undefined;
}
