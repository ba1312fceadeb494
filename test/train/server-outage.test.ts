/**
 * A server that dies on every call during training: no step trains on the outage (the update is
 * skipped, the weights stay those of the last sound step), each such step says so, and after
 * three in a row the run stops with a usage error naming what failed and how to resume, its
 * rollouts kept.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { TrainMcpError } from "../../src/errors.js";
import { resolveTrainConfig } from "../../src/train/config.js";
import { train } from "../../src/train/loop.js";
import { stdioTarget } from "../servers/launch.js";
import { readJsonl, tempDir } from "./helpers.js";

describe("a server outage during training", () => {
  it("trains nothing on it and stops after three steps of it, exit 2, rollouts kept", async () => {
    // compound-interest tasks: the built-in model calls a tool on every one
    const lines = fs
      .readFileSync(path.resolve("scenarios/calculator.jsonl"), "utf8")
      .split("\n")
      .filter((l) => l.includes('"template:calculator.compound"') && l.includes('"split":"train"'))
      .slice(0, 8);
    const scenarios = path.join(tempDir("outage-scenarios"), "train-only.jsonl");
    fs.writeFileSync(scenarios, lines.join("\n") + "\n");
    const out = path.join(tempDir("outage"), "run");
    const config = resolveTrainConfig({
      server: [stdioTarget("crash-calc")], model: "default", scenarios: [scenarios], out, seed: 2, sft: "off",
      max_steps: 10, groups_per_step: 2, num_generations: 4, max_turns: 2, max_tokens_per_turn: 64, save_steps: 1, tool_timeout_ms: 10_000,
    });
    const logs: string[] = [];
    const e = await train({ config, hooks: { log: (l) => logs.push(l) } }).then(() => undefined, (x: unknown) => x as TrainMcpError);
    expect(e).toBeInstanceOf(TrainMcpError);
    expect(e!.usage).toBe(true);
    expect(e!.message).toMatch(/^the MCP server failed every tool call for 3 steps in a row, so the run stopped \(the first failure: connection to the server lost during \w+: .*outage: crashing on purpose.*\); those steps trained nothing .*resume with --resume /);
    const outageSteps = logs.flatMap((l) => /^warning: step (\d+): every tool call \(\d+\) failed on the server's side, so nothing was trained/.exec(l)?.[1] ?? []).map(Number);
    const metrics = readJsonl(path.join(out, "metrics.jsonl")).filter((m) => m.phase === "grpo");
    const last = metrics[metrics.length - 1].step as number;
    // the run stopped at the third outage step in a row; none of them trained
    expect(outageSteps.slice(-3)).toEqual([last - 2, last - 1, last]);
    for (const m of metrics) expect(m["update/skipped"] === 1).toBe(outageSteps.includes(m.step as number));
    // every rollout of every step played is kept
    expect(readJsonl(path.join(out, "trajectories.jsonl")).filter((t) => t.phase === "grpo")).toHaveLength(8 * last);
  });
});
