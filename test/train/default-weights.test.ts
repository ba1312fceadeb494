/**
 * The built-in model's shipped weights, through `train-mcp eval --model default`: loaded like any
 * checkpoint and played with the rollout settings they were trained with (train_mcp.json), they
 * call the calculator's tools and solve a share of its held-out scenarios greedily (a random init
 * of the same config solves none). They were also taught to answer some easy-looking tasks at once,
 * without a tool (scripts/base-model/README.md): the behaviour the demo's RL is there to unlearn.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { defaultModelDir } from "../../src/policy/default-model/index.js";
import { cli, readJsonl, tempDir } from "./helpers.js";

describe("built-in model weights", () => {
  it("solve calculator held-out scenarios with well-formed tool calls", async () => {
    expect(fs.existsSync(path.join(defaultModelDir(), "model.safetensors"))).toBe(true);
    const dump = path.join(tempDir("weights"), "rollouts.jsonl");
    const r = await cli(["eval", "--model", "default", "--server", "fixture:calculator", "--seed", "1", "--json", "--trajectories", dump]);
    expect(r.code).toBe(0);
    const row = JSON.parse(r.stdout.trim()) as { n: number; success_rate: number };
    expect(row.n).toBe(100);
    // measured 40% (README); a loading or tokenizer fault drops it to 0
    expect(row.success_rate).toBeGreaterThanOrEqual(0.3);
    const rollouts = readJsonl(dump) as Array<{ messages: Array<{ content: string }>; toolCalls: Array<{ name: string; error?: string }> }>;
    expect(rollouts.every((t) => t.messages[0].content === "Use the tools to answer.")).toBe(true);
    const firstCalls = rollouts.map((t) => t.toolCalls[0]).filter((c) => c !== undefined);
    const wellFormed = firstCalls.filter((c) => !c.error && ["calculate", "percentage", "compound_interest", "statistics"].includes(c.name));
    // measured: 67 of 100 call a tool, every first call well-formed; the rest answer at once
    expect(firstCalls.length).toBeGreaterThanOrEqual(50);
    expect(firstCalls.length).toBeLessThan(100);
    expect(wellFormed.length).toBeGreaterThanOrEqual(firstCalls.length - 3);
  }, 120_000);
});
