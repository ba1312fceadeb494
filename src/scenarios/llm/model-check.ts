/**
 * Before the LLM generator's first request: does the endpoint serve --llm-model? A typo'd name
 * otherwise fails later and less clearly (a 404 some providers word oddly, or a 400 about
 * something else), so GET /models is asked first, as the judge check does
 * (src/rewards/judge-check.ts). A list without the name is a usage error with the nearest served
 * name; an endpoint without that route, or one that refuses it, is given the benefit of the
 * doubt: the chat request then says what is wrong. Azure OpenAI is not asked: its model names are
 * deployment names, which GET /models does not list.
 */
import OpenAI from "openai";
import { closestName } from "../../closest-name.js";
import { rootCause, TrainMcpError } from "../../errors.js";
import { isAzureEndpoint, listsModel } from "../../mcp/openai-base-url.js";
import { redactUrlCredentials } from "../../mcp/url-credentials.js";

/** GET /models gets this long (default); a slow listing is no reason to wait a chat timeout. */
const LIST_TIMEOUT_MS = 15_000;

/** Throws a usage error when the endpoint lists its models and `model` is not one of them. */
export async function checkLlmModel(client: OpenAI, model: string, baseUrl: string): Promise<void> {
  if (isAzureEndpoint(baseUrl)) return;
  const where = redactUrlCredentials(baseUrl);
  let served: string[];
  try {
    const page = await client.models.list({ timeout: LIST_TIMEOUT_MS });
    // a body that is not a model list (a web page, `{}`) tells nothing
    served = Array.isArray(page.data) ? page.data.map((m) => (m as { id?: unknown }).id).filter((id): id is string => typeof id === "string") : [];
  } catch (e) {
    // nothing listening: the same usage error the first chat request would give, said at once
    if (e instanceof OpenAI.APIConnectionError && !(e instanceof OpenAI.APIConnectionTimeoutError))
      throw new TrainMcpError("ConfigInvalid", `--llm-base-url ${where}: cannot connect (${rootCause(e)}); nothing written`, true, { cause: e });
    return; // no /models route (404), a key it refuses, a timeout: the chat request will tell
  }
  if (served.length === 0 || listsModel(served, model)) return;
  const near = closestName(model, served);
  throw new TrainMcpError(
    "ConfigInvalid",
    `--llm-model ${model}: ${where} does not serve it${near ? ` (did you mean ${near}?)` : ""}; it serves ${served.slice(0, 10).join(", ")}${served.length > 10 ? ", …" : ""}; nothing written`,
  );
}
