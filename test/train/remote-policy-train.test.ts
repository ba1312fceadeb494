/**
 * Training with a remote policy (`--policy-url`): train-mcp's own `serve`, over real HTTP, plays
 * the rollouts with the same weights the trainer holds; the trainer tokenizes them with its chat
 * template, updates its LoRA adapters (warm start and GRPO), and has the server load them after
 * every update and on resume.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TrainMcpError } from "../../src/errors.js";
import { startServer, type RunningServer } from "../../src/serve/server.js";
import { resolveTrainConfig } from "../../src/train/config.js";
import { train } from "../../src/train/loop.js";
import { readModelConfig } from "../../src/policy/weights.js";
import { makeAdapter } from "../serve/adapter.js";
import { startChatServer } from "../helpers/chat-server.js";
import { calculatorScenarios, readJsonl, tempDir, tinyModelDir } from "./helpers.js";

describe("train with a remote policy", () => {
  const modelDir = tinyModelDir(4);
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ model: modelDir, servedModelName: "tiny-base", port: 0, engine: "tfjs" });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("trains on rollouts played over HTTP and serves each step's adapters", async () => {
    const out = path.join(tempDir("remote"), "run");
    const config = resolveTrainConfig({
      server: ["fixture:calculator"],
      model: modelDir,
      scenarios: [calculatorScenarios(8, 2)],
      out,
      seed: 5,
      // the warm start trains the adapters too, and pushes them twice at step 0
      sft: "on",
      sft_steps: 2,
      sft_batch_size: 4,
      max_steps: 2,
      groups_per_step: 2,
      num_generations: 2,
      max_turns: 2,
      max_tokens_per_turn: 16,
      learning_rate: 1e-2,
      lora_rank: 2,
      policy_url: server.url,
    });
    const summary = await train({ config, hooks: { log: () => undefined } });
    expect(summary.steps).toBe(2);

    const steps = readJsonl(path.join(out, "metrics.jsonl")).filter((r) => r.phase === "grpo");
    expect(steps).toHaveLength(2);
    for (const s of steps) {
      expect(s["update/skipped"]).toBeUndefined(); // the rollouts carried tokens to train on
      expect(s["tokens/completion"]).toBeGreaterThan(0);
    }
    const rollouts = readJsonl(path.join(out, "trajectories.jsonl")).filter((r) => r.phase === "grpo");
    expect(rollouts).toHaveLength(8);
    for (const t of rollouts) {
      const mask = t.assistantMask as number[];
      expect((t.tokenIds as number[]).length).toBe(mask.length);
      expect(mask.filter((m) => m === 1).length).toBeGreaterThan(0);
    }
    // the server plays the newest adapter (the base model's name was found from /v1/models)
    const models = ((await (await fetch(`${server.url}/models`)).json()) as { data: Array<{ id: string }> }).data.map((m) => m.id);
    // named after the run folder and a hash of its path
    const prefix = `run-${createHash("sha256").update(path.resolve(out)).digest("hex").slice(0, 8)}-`;
    const ours = (step: number) => new RegExp(`^${prefix}step-00000${step}-`);
    expect(models.filter((m) => ours(2).test(m))).toHaveLength(1);
    expect(models.filter((m) => ours(1).test(m))).toHaveLength(0);
    const kept = fs.readdirSync(path.join(out, "policy-adapters"));
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatch(/^step-000002-/);
    expect(steps.every((s) => s["rollout/untokenized"] === 0)).toBe(true);

    // another run of the same folder name on the same server: its adapter is not this run's
    const other = path.join(tempDir("remote-other"), "run");
    fs.mkdirSync(other, { recursive: true });
    fs.cpSync(path.join(out, "policy-adapters", kept[0]), path.join(other, "adapter"), { recursive: true });
    const post = (route: string, body: object) => fetch(`${server.url}/${route}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    expect((await post("load_lora_adapter", { lora_name: "run-0000beef-step-000002-other-1", lora_path: path.join(other, "adapter") })).ok).toBe(true);

    // resumed: the restored adapters are pushed before the next step plays, and what the first
    // process left loaded is unloaded
    const resumed = await train({ config: { ...config, max_steps: 3 }, resume: true, hooks: { log: () => undefined } });
    expect(resumed.steps).toBe(3);
    const after = ((await (await fetch(`${server.url}/models`)).json()) as { data: Array<{ id: string }> }).data.map((m) => m.id);
    expect(after.filter((m) => ours(3).test(m))).toHaveLength(1);
    expect(after.filter((m) => ours(2).test(m))).toHaveLength(0);
    expect(after).toContain("run-0000beef-step-000002-other-1");
    expect(after).toContain("tiny-base");
  });

  /** one LoRA step on a few calculator scenarios, no warm start */
  const oneStep = () => ({ server: ["fixture:calculator"], model: modelDir, scenarios: [calculatorScenarios(4, 2)], sft: "off" as const, max_steps: 1, lora_rank: 2 });

  it("refuses a model the endpoint does not serve, an endpoint that does not answer, and no URL, before any rollout, naming the flag", async () => {
    const base = oneStep();
    const attempt = async (over: { policy_url: string; policy_model?: string }) => {
      const out = path.join(tempDir("remote-bad"), "run");
      const e = await train({ config: resolveTrainConfig({ ...base, ...over, out }), hooks: { log: () => undefined } }).then(
        () => new Error("trained"),
        (x: Error) => x,
      );
      expect(fs.existsSync(out)).toBe(false); // nothing half-made is left behind
      return e;
    };
    const wrong = await attempt({ policy_url: server.url, policy_model: "no-such-model" });
    // (the adapters the first test left loaded are listed too)
    expect(wrong.message).toMatch(new RegExp(`^--policy-model no-such-model: ${server.url.replace(/[.]/g, "\\.")} does not serve it \\(it serves tiny-base`));
    expect((wrong as TrainMcpError).usage).toBe(true);
    const down = await attempt({ policy_url: "http://127.0.0.1:9/v1" });
    expect(down.message).toMatch(/^--policy-url http:\/\/127\.0\.0\.1:9\/v1: cannot list its models \(GET \/models: Connection error\.\)/);
    const notUrl = await attempt({ policy_url: "localhost-8000" });
    expect(notUrl.message).toBe("--policy-url localhost-8000: not a URL (expected e.g. http://127.0.0.1:8000/v1)");
  });

  it("names the key setting when the endpoint refuses the key (HTTP 401), named model or not", async () => {
    const keyed = await startServer({ model: modelDir, servedModelName: "tiny-base", port: 0, engine: "tfjs", apiKey: "sk-policy-key" });
    try {
      for (const over of [{}, { policy_model: "tiny-base" }, { policy_api_key_env: "TEST_POLICY_KEY_UNSET" }]) {
        const out = path.join(tempDir("remote-401"), "run");
        const e = await train({ config: resolveTrainConfig({ ...oneStep(), policy_url: keyed.url, ...over, out }), hooks: { log: () => undefined } }).then(
          () => new Error("trained"),
          (x: Error) => x,
        );
        expect((e as TrainMcpError).usage).toBe(true);
        expect(e.message).toBe(
          `--policy-url ${keyed.url} refused the key (HTTP 401): ${"policy_api_key_env" in over ? "set $TEST_POLICY_KEY_UNSET to its key" : "no key was sent; name the environment variable that holds it with --policy-api-key-env"}`,
        );
        expect(fs.existsSync(out)).toBe(false);
      }
    } finally {
      await keyed.close();
    }
  });

  it("finds a key that only chat needs, and a listed model that cannot chat, before any rollout", async () => {
    // a proxy that lists models openly and guards chat completions with a key
    for (const [reply, want] of [
      [{ status: 401, error: "missing bearer token" }, `--policy-url URL refused the key (HTTP 401): no key was sent; name the environment variable that holds it with --policy-api-key-env`],
      [{ status: 404, error: "The model `tiny-base` does not exist." }, `--policy-url URL: a one-token chat completion with model "tiny-base" failed: 404 The model \`tiny-base\` does not exist.`],
    ] as const) {
      const proxy = await startChatServer(() => reply, { models: ["tiny-base"] });
      try {
        const out = path.join(tempDir("remote-chat-key"), "run");
        const e = await train({ config: resolveTrainConfig({ ...oneStep(), policy_url: proxy.url, out }), hooks: { log: () => undefined } }).then(
          () => new Error("trained"),
          (x: Error) => x,
        );
        expect(e.message).toBe(want.replace("URL", proxy.url));
        expect((e as TrainMcpError).usage).toBe(true);
        expect(proxy.requests).toHaveLength(1); // the one-token turn, and nothing after it
        expect(proxy.requests[0].max_tokens).toBe(1);
        expect(fs.existsSync(out)).toBe(false);
      } finally {
        await proxy.close();
      }
    }
  });

  it("refuses an endpoint that serves a LoRA checkpoint folded into its base: the trainer's adapters need the base itself", async () => {
    const lora = tempDir("served-lora");
    await makeAdapter(lora, readModelConfig(modelDir));
    const cfg = JSON.parse(fs.readFileSync(path.join(lora, "adapter_config.json"), "utf8")) as Record<string, unknown>;
    fs.writeFileSync(path.join(lora, "adapter_config.json"), JSON.stringify({ ...cfg, base_model_name_or_path: modelDir }));
    const folded = await startServer({ model: lora, servedModelName: "tiny-base", port: 0, engine: "tfjs" });
    try {
      const out = path.join(tempDir("remote-lora"), "run");
      const e = await train({ config: resolveTrainConfig({ ...oneStep(), policy_url: folded.url, out }), hooks: { log: () => undefined } }).then(
        () => new Error("trained"),
        (x: Error) => x,
      );
      expect(e.message).toBe(`--policy-url ${folded.url} serves ${lora}, a LoRA checkpoint folded into its base: the trainer's adapters need the base model itself there (serve --model ${modelDir})`);
      expect(fs.existsSync(out)).toBe(false);
    } finally {
      await folded.close();
    }
  });

  it("plays a named --policy-model, with a warning, behind a proxy whose GET /models fails; without the name it refuses", async () => {
    // a real proxy in front of serve that answers 404 to GET /models and forwards the rest
    const upstream = new URL(server.url);
    const proxy = http.createServer((req, res) => {
      if (req.method === "GET" && req.url?.endsWith("/models")) {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "no such route", type: "not_found" } }));
        return;
      }
      const forward = http.request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      req.pipe(forward);
    });
    await new Promise<void>((ok) => proxy.listen(0, "127.0.0.1", ok));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`;
    try {
      const base = {
        ...oneStep(),
        groups_per_step: 1,
        num_generations: 2,
        max_turns: 1,
        max_tokens_per_turn: 8,
        eval_n: 1,
        policy_url: proxyUrl,
      };
      const logs: string[] = [];
      const out = path.join(tempDir("remote-proxy"), "run");
      const summary = await train({ config: resolveTrainConfig({ ...base, policy_model: "tiny-base", out }), hooks: { log: (l) => logs.push(l) } });
      expect(summary.steps).toBe(1);
      expect(logs).toContain(`warning: --policy-url ${proxyUrl}: GET /models failed (404 no such route); asking for --policy-model tiny-base unchecked`);
      const played = readJsonl(path.join(out, "trajectories.jsonl")).filter((r) => r.phase === "grpo");
      expect(played).toHaveLength(2);
      for (const t of played) expect(t.finish).not.toBe("error");

      const unnamed = path.join(tempDir("remote-proxy"), "run");
      const e = await train({ config: resolveTrainConfig({ ...base, out: unnamed }), hooks: { log: () => undefined } }).then(
        () => new Error("trained"),
        (x: Error) => x,
      );
      expect(e.message).toMatch(/^--policy-url http:\/\/127\.0\.0\.1:\d+\/v1: cannot list its models \(GET \/models: 404 no such route\)/);
      expect(fs.existsSync(unnamed)).toBe(false);
    } finally {
      await new Promise((ok) => proxy.close(ok));
    }
  });

  it("refuses full fine-tuning with a remote policy, which could not take the updates", () => {
    expect(() => resolveTrainConfig({ server: ["fixture:calculator"], policy_url: server.url, max_steps: 3 })).toThrow(/field "policy_url": training with a remote policy needs lora_rank > 0/);
    expect(resolveTrainConfig({ server: ["fixture:calculator"], policy_url: server.url, max_steps: 0 }).policy_url).toBe(server.url);
  });
});
