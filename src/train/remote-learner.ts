/**
 * Training with a remote policy (`policy_url`): the server (vLLM, train-mcp serve) plays the
 * rollouts with the same base model; the trainer tokenizes them with its own chat template,
 * updates its LoRA adapters in-process, and after every update has the server load them, so the
 * next rollouts play the updated policy.
 */
import { createHash } from "node:crypto";
import OpenAI from "openai";
import fs from "node:fs";
import path from "node:path";
import type { ChatTokenizer } from "../policy/tokenizer.js";
import type { Transformer } from "../policy/model/transformer.js";
import { TrainMcpError } from "../errors.js";
import { redactUrlCredentials } from "../mcp/url-credentials.js";
import { saveAdapter } from "../policy/peft.js";
import { RemotePolicy } from "../rollout/remote-policy.js";
import { endOfTurnIds } from "./policy-setup.js";

export interface RemoteLearnerOptions {
  baseURL: string;
  /** the base model's name on the server; default: the first it lists */
  model?: string;
  apiKey?: string;
  /** the environment variable the key came from (--policy-api-key-env), for messages */
  apiKeyEnv?: string;
  tokenizer: ChatTokenizer;
  /** the trainer's model: its adapters are what the server loads */
  trainee: Transformer;
  /** the base model folder, named in adapter_config.json */
  baseModelDir: string;
  /** adapters are written under <runDir>/policy-adapters/ and named after the run: its folder's
   *  name and a hash of its path, so runs sharing a server tell their adapters apart */
  runDir: string;
  log?: (line: string) => void;
}

export class RemoteLearner {
  private readonly session = Date.now().toString(36);
  private pushes = 0;
  private constructor(
    readonly policy: RemotePolicy,
    private readonly o: RemoteLearnerOptions,
  ) {}

  static async connect(o: RemoteLearnerOptions): Promise<RemoteLearner> {
    const { tokenizer, trainee } = o;
    const policy = new RemotePolicy({
      baseURL: o.baseURL,
      model: o.model ?? "",
      apiKey: o.apiKey,
      // the ids that end a turn, as the local sampler's
      trainer: { codec: tokenizer, endTexts: endOfTurnIds(tokenizer, trainee.config).map((id) => tokenizer.decode([id])) },
    });
    // a wrong URL or model name would fail every rollout: find out now, and say which flag
    const where = redactUrlCredentials(o.baseURL);
    if (!URL.canParse(o.baseURL)) throw new TrainMcpError("ConfigInvalid", `--policy-url ${where}: not a URL (expected e.g. http://127.0.0.1:8000/v1)`);
    let served: string[];
    let entries: Array<{ id: string; root?: string }>;
    try {
      entries = await policy.listModelEntries();
      served = entries.map((m) => m.id);
    } catch (e) {
      keyRefusal(e, where, o.apiKeyEnv);
      // an endpoint that answers but has no GET /models (some proxies) can still play a named model
      if (o.model && e instanceof OpenAI.APIError && e.status !== undefined) {
        o.log?.(`warning: --policy-url ${where}: GET /models failed (${e.message}); asking for --policy-model ${o.model} unchecked`);
        policy.model = o.model;
        await firstTurn(policy, where, o.apiKeyEnv);
        return new RemoteLearner(policy, o);
      }
      throw new TrainMcpError("ConfigInvalid", `--policy-url ${where}: cannot list its models (GET /models: ${(e as Error).message}); is an OpenAI-compatible server running there?`, true, { cause: e });
    }
    if (served.length === 0 && !o.model) throw new TrainMcpError("ConfigInvalid", `--policy-url ${where}: GET /models lists no model; name one with --policy-model`);
    if (o.model && served.length > 0 && !served.includes(o.model)) throw new TrainMcpError("ConfigInvalid", `--policy-model ${o.model}: ${where} does not serve it (it serves ${served.join(", ")})`);
    policy.model = o.model ?? served[0];
    checkServedBase(entries.find((m) => m.id === policy.model)?.root, o.baseModelDir, where, o.log);
    await firstTurn(policy, where, o.apiKeyEnv);
    return new RemoteLearner(policy, o);
  }

  /** the server-side names of this run's adapters start with it */
  private get runPrefix(): string {
    const runDir = path.resolve(this.o.runDir);
    return `${path.basename(runDir)}-${createHash("sha256").update(runDir).digest("hex").slice(0, 8)}-`;
  }

  /** Writes the trainee's adapters and has the server play with them from now on. Every push
   *  gets a name no earlier push (of this process, or of the one a resume continues) used. The
   *  first push of a process also unloads what an earlier process of this run left loaded (one
   *  that was interrupted, before a resume). */
  async push(step: number): Promise<void> {
    const root = path.join(this.o.runDir, "policy-adapters");
    const name = `step-${String(step).padStart(6, "0")}-${this.session}-${++this.pushes}`;
    saveAdapter(path.join(root, name), this.o.trainee, path.resolve(this.o.baseModelDir));
    await this.policy.useAdapter(`${this.runPrefix}${name}`, path.join(root, name));
    if (this.pushes === 1) await this.policy.unloadOthers(this.runPrefix);
    for (const old of fs.readdirSync(root)) if (old !== name) fs.rmSync(path.join(root, old), { recursive: true, force: true });
  }
}

/**
 * What the server says it serves (`root`, vLLM's and train-mcp serve's) against the trainer's
 * base, when `root` is a folder on this machine: a LoRA checkpoint folded into its base cannot
 * take the trainer's adapters (they are deltas on the base itself), and other weights would make
 * every rollout another model's. A root elsewhere (another machine, a hub id) is not judged.
 */
function checkServedBase(root: string | undefined, baseModelDir: string, where: string, log?: (line: string) => void): void {
  if (!root || !path.isAbsolute(root) || !fs.existsSync(root)) return;
  if (fs.existsSync(path.join(root, "adapter_config.json")))
    throw new TrainMcpError("ConfigInvalid", `--policy-url ${where} serves ${root}, a LoRA checkpoint folded into its base: the trainer's adapters need the base model itself there (serve --model ${baseModelDir})`);
  if (path.resolve(root) !== path.resolve(baseModelDir) && !sameFile(path.join(root, "config.json"), path.join(baseModelDir, "config.json")))
    log?.(`warning: --policy-url ${where} serves ${root}, whose config.json differs from the trainer's --model ${baseModelDir}: rollouts would play another model`);
}

function sameFile(a: string, b: string): boolean {
  try {
    return fs.readFileSync(a).equals(fs.readFileSync(b));
  } catch {
    return false;
  }
}

/** A key missing or wrong fails every request alike: the refusal names the setting that holds it. */
function keyRefusal(e: unknown, where: string, apiKeyEnv: string | undefined): void {
  if (e instanceof OpenAI.APIError && (e.status === 401 || e.status === 403))
    throw new TrainMcpError(
      "ConfigInvalid",
      `--policy-url ${where} refused the key (HTTP ${e.status}): ${apiKeyEnv ? `set $${apiKeyEnv} to its key` : "no key was sent; name the environment variable that holds it with --policy-api-key-env"}`,
      true,
      { cause: e },
    );
}

/** One token of chat before anything runs: a proxy may list models openly and guard chat with a
 *  key, or list a model it cannot play; either would otherwise fail every rollout, after the
 *  minutes a warm-start probe or evaluation takes. */
async function firstTurn(policy: RemotePolicy, where: string, apiKeyEnv: string | undefined): Promise<void> {
  try {
    await policy.ping();
  } catch (e) {
    keyRefusal(e, where, apiKeyEnv);
    throw new TrainMcpError("ConfigInvalid", `--policy-url ${where}: a one-token chat completion with model "${policy.model}" failed: ${(e as Error).message}`, true, { cause: e });
  }
}
