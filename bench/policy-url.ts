/**
 * `npm run bench:policy-url`: GRPO with a remote policy (`--policy-url`) against `train-mcp serve`,
 * the rollout phase timed, with the server's batching as it is now (continuous batching, prefix
 * caching) and as it was (static batches, every prompt prefilled whole). The built-in model
 * (shipped weights, onnxruntime; each server in its own process) plays the bundled calculator fixture with its tools, LoRA rank 4,
 * STEPS steps of 4 groups x 8 rollouts, up to 3 turns each, the same seed for both; each server
 * loads each step's adapters. Reported: the median seconds of a step's rollouts (`time/rollout`,
 * all turns of the 32 conversations) over the steps after the first, and the ratio. The servers
 * take turns, one whole run each per round. The last line is one JSON object.
 *
 * Flags: --steps N (default 4), --rounds N (default 2).
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { resolveTrainConfig } from "../src/train/config.js";
import { train } from "../src/train/loop.js";
import { readJsonl, tempDir } from "../test/train/helpers.js";

const args = process.argv.slice(2);
const flag = (name: string, dflt: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const STEPS = flag("--steps", 4);
const ROUNDS = flag("--rounds", 2);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

const modes = {
  now: { continuousBatching: true },
  before: { continuousBatching: false, prefixCacheBytes: 0 },
} as const;
// each server in its own process, as a real policy server is: the trainer's updates would
// otherwise block its event loop
const children = Object.entries(modes).map(([name, mode]) => {
  const options = { model: "default", port: 0, engine: "ort", maxBatch: 32, ...mode };
  const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "bench/serve-process.ts"), JSON.stringify(options)], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
  const url = new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /^url (\S+)$/m.exec(out);
      if (m) resolve(m[1]);
    });
    child.once("exit", (code) => reject(new Error(`server (${name}) exited with ${code}`)));
  });
  return { name, child, url };
});
const servers = Object.fromEntries(await Promise.all(children.map(async (c) => [c.name, await c.url] as const)));
const rolloutSeconds: Record<string, number[]> = { now: [], before: [] };
for (let r = 0; r < ROUNDS; r++) {
  for (const name of Object.keys(modes)) {
    const out = path.join(tempDir(`bench-policy-url-${name}`), "run");
    const config = resolveTrainConfig({
      server: ["fixture:calculator"],
      out,
      seed: 3,
      max_steps: STEPS,
      groups_per_step: 4,
      num_generations: 8,
      max_turns: 3,
      max_tokens_per_turn: 64,
      lora_rank: 4,
      sft: "off",
      policy_url: servers[name],
      eval_n: 4, // the before/after evaluation is not what is timed
    });
    await train({ config, hooks: { log: () => undefined } });
    const steps = readJsonl(path.join(out, "metrics.jsonl")).filter((m) => m.phase === "grpo");
    const times = steps.slice(1).map((m) => m["time/rollout"] as number);
    rolloutSeconds[name].push(...times);
    console.log(`round ${r + 1} ${name.padEnd(6)} rollout s per step: ${times.map((t) => round(t)).join(", ")}`);
  }
}
for (const c of children) c.child.kill("SIGTERM");
const now = median(rolloutSeconds.now), before = median(rolloutSeconds.before);
console.log(`median rollout time per step: ${round(now)} s now vs ${round(before)} s before (x${round(before / now)} faster)`);
console.log(JSON.stringify({ steps: STEPS, rounds: ROUNDS, rollout_s_now: round(now), rollout_s_before: round(before), speedup: round(before / now) }));
