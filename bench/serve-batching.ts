/**
 * `npm run bench:serve-batching`: `train-mcp serve` under concurrent load, continuous batching
 * against static batches (or, with `--prefix`, prefix caching on against off, both continuous,
 * every request carrying the calculator fixture's tools: a shared prefix of ~400 tokens). One server per mode (the built-in model's shape with seeded random
 * weights, which write until max_tokens, so request lengths are the drawn ones; `--trained`: the
 * shipped weights, whose answers mostly end within ~25 tokens; onnxruntime, --max-batch 8) on
 * 127.0.0.1; CLIENTS clients each send REQUESTS chat completions one after another through the
 * `openai` client: bundled calculator tasks as the user turn, max_tokens drawn from 16 / 64 / 160,
 * temperature 1, a seed per request (the same requests in both modes). Reported: completion
 * tokens/s over the whole load, mean and p90 request latency. The modes take turns each round
 * (so they see the same background load); figures are medians over rounds, after a warm-up
 * request. The last line is one JSON object.
 *
 * Flags: --rounds N (default 3), --clients N (default 8), --requests N (per client, default 6),
 * --trained, --prefix.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import OpenAI from "openai";
import { connect } from "../src/mcp/connect.js";
import { mulberry32 } from "../src/policy/weights.js";
import { startServer } from "../src/serve/server.js";
import { untrainedDefaultModelDir } from "../test/train/helpers.js";

const args = process.argv.slice(2);
const flag = (name: string, dflt: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const ROUNDS = flag("--rounds", 3);
const CLIENTS = flag("--clients", 8);
const REQUESTS = flag("--requests", 6);
const model = args.includes("--trained") ? "default" : untrainedDefaultModelDir(0);
const PREFIX = args.includes("--prefix");
let tools: OpenAI.Chat.ChatCompletionTool[] | undefined;
if (PREFIX) {
  const toolbox = await connect("fixture:calculator");
  tools = toolbox.openAiTools() as OpenAI.Chat.ChatCompletionTool[];
  await toolbox.close();
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const tasks = fs
  .readFileSync(path.join(root, "scenarios", "calculator.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => (JSON.parse(line) as { task: string }).task);
const rand = mulberry32(7);
const plan = Array.from({ length: CLIENTS }, () =>
  Array.from({ length: REQUESTS }, () => ({
    task: tasks[Math.floor(rand() * tasks.length)],
    maxTokens: [16, 64, 160][Math.floor(rand() * 3)],
    seed: Math.floor(rand() * 1e9),
  })),
);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

interface Load {
  tokensPerS: number;
  meanLatencyS: number;
  p90LatencyS: number;
  tokens: number;
}

async function load(client: OpenAI): Promise<Load> {
  const latencies: number[] = [];
  let tokens = 0;
  const t0 = performance.now();
  await Promise.all(
    plan.map(async (requests) => {
      for (const r of requests) {
        const t = performance.now();
        const reply = await client.chat.completions.create({
          model: "default",
          messages: [{ role: "user", content: r.task }],
          max_tokens: r.maxTokens,
          temperature: 1,
          seed: r.seed,
          ...(tools ? { tools } : {}),
        });
        latencies.push((performance.now() - t) / 1000);
        tokens += reply.usage!.completion_tokens;
      }
    }),
  );
  const wall = (performance.now() - t0) / 1000;
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    tokensPerS: tokens / wall,
    meanLatencyS: latencies.reduce((s, x) => s + x, 0) / latencies.length,
    p90LatencyS: sorted[Math.floor(0.9 * (sorted.length - 1))],
    tokens,
  };
}

const modes: Record<string, { continuousBatching: boolean; prefixCacheBytes?: number }> = PREFIX
  ? { cached: { continuousBatching: true }, uncached: { continuousBatching: true, prefixCacheBytes: 0 } }
  : { continuous: { continuousBatching: true, prefixCacheBytes: 0 }, static: { continuousBatching: false, prefixCacheBytes: 0 } };
const [A, B] = Object.keys(modes);
const servers = Object.fromEntries(
  await Promise.all(
    Object.entries(modes).map(async ([name, mode]) => {
      const server = await startServer({ model, servedModelName: "default", port: 0, engine: "ort", maxBatch: 8, ...mode });
      const client = new OpenAI({ baseURL: server.url, apiKey: "unused", maxRetries: 0 });
      await client.chat.completions.create({ model: "default", messages: [{ role: "user", content: "warm up" }], max_tokens: 4 });
      return [name, { server, client }] as const;
    }),
  ),
);
const runs: Record<string, Load[]> = { [A]: [], [B]: [] };
for (let r = 0; r < ROUNDS; r++) {
  for (const name of Object.keys(modes)) {
    const result = await load(servers[name].client);
    runs[name].push(result);
    console.log(
      `round ${r + 1} ${name.padEnd(10)} ${result.tokens} tokens  ${round(result.tokensPerS)} tok/s  ` +
        `latency mean ${round(result.meanLatencyS, 2)} s, p90 ${round(result.p90LatencyS, 2)} s`,
    );
  }
}
for (const { server } of Object.values(servers)) await server.close();
const summary = Object.fromEntries(
  Object.entries(runs).map(([name, xs]) => [
    name,
    {
      tokens_per_s: round(median(xs.map((x) => x.tokensPerS))),
      mean_latency_s: round(median(xs.map((x) => x.meanLatencyS)), 2),
      p90_latency_s: round(median(xs.map((x) => x.p90LatencyS)), 2),
    },
  ]),
);
const ratio = summary[A].tokens_per_s / summary[B].tokens_per_s;
console.log(
  `median of ${ROUNDS}: ${A} ${summary[A].tokens_per_s} tok/s vs ${B} ${summary[B].tokens_per_s} tok/s ` +
    `(x${round(ratio, 2)}); mean latency ${summary[A].mean_latency_s} s vs ${summary[B].mean_latency_s} s`,
);
console.log(JSON.stringify({ weights: model === "default" ? "trained" : "random", tools: PREFIX, clients: CLIENTS, requests_per_client: REQUESTS, rounds: ROUNDS, ...summary, throughput_ratio: round(ratio, 2) }));
