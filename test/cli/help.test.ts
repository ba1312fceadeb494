/**
 * `--help` states every default, read from the run config's schema (train) or the demo's preset
 * (demo), numbers bare; `help NAME` for no such command is a usage error, not the whole help.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { defaultModelDir } from "../../src/policy/default-model/index.js";
import { buildProgram, main } from "../../src/cli/main.js";
import { TrainConfigSchema } from "../../src/train/config.js";
import { DEMO_CONFIG } from "../../src/train/demo.js";

/** A command's help on one line (commander wraps it to the terminal's width). */
function help(name: string): string {
  const cmd = buildProgram().commands.find((c) => c.name() === name)!;
  return cmd.helpInformation().replace(/\s+/g, " ");
}

afterEach(() => vi.restoreAllMocks());

describe("--help", () => {
  it("train --help shows the schema's defaults, and the TRL aliases", () => {
    const d = TrainConfigSchema.parse({ server: ["fixture:calculator"] });
    const text = help("train");
    expect(text).toContain(`--steps <n> GRPO steps (max_steps; TRL's --max-steps is the same flag) (default: ${d.max_steps})`);
    expect(text).toContain(`--groups-per-step <n> scenarios per step (B) (default: ${d.groups_per_step})`);
    expect(text).toContain(`(default: ${d.num_generations})`);
    expect(text).toContain(`--epsilon <x> lower clip range (default: ${d.epsilon})`);
    // turn limits come from the model folder's train_mcp.json first, as a run takes them: the
    // built-in model's (train's default --model) are named
    const builtIn = JSON.parse(fs.readFileSync(path.join(defaultModelDir(), "train_mcp.json"), "utf8")) as { max_turns: number; max_tokens_per_turn: number };
    expect(text).toContain(`--max-turns <n> assistant turns per rollout (default: the model folder's train_mcp.json, ${builtIn.max_turns} for the built-in model; else ${d.max_turns})`);
    expect(text).toContain(`--max-tokens-per-turn <n> tokens per assistant turn (default: the model folder's train_mcp.json, ${builtIn.max_tokens_per_turn} for the built-in model; else ${d.max_tokens_per_turn})`);
    expect(text).toContain(`--temperature <x> rollout sampling temperature (default: ${d.temperature})`);
    expect(text).toContain(`--seed <n> random seed (default: ${d.seed})`);
    expect(text).toContain(`(default: ${d.save_steps})`);
    expect(text).toContain(`loss aggregation: grpo, bnpo, dr_grpo or dapo (default: ${d.loss_type})`);
    expect(text).toContain(`(default: ${d.learning_rate.toExponential()}`);
    expect(text).toContain("--learning-rate");
    expect(text).toContain("--num-generations");
    // the timeout's default with its unit
    expect(text).toContain("default 30s (30000 ms)");
  });

  it("demo --help shows the demo's settings", () => {
    const text = help("demo");
    expect(text).toContain(`(demo: ${DEMO_CONFIG.max_steps})`);
    expect(text).toContain(`rollout sampling temperature (demo: ${DEMO_CONFIG.temperature})`);
    expect(text).toContain(`assistant turns per rollout (demo: ${DEMO_CONFIG.max_turns})`);
    expect(text).toContain("(demo: 5e-5)");
    expect(text).toContain("(demo: fixture:calculator)");
    expect(text).not.toContain("(default: 20)");
  });

  it("prints numeric defaults bare, and says what eval --n defaults to", () => {
    const text = help("eval");
    expect(text).toContain("pass@k the share of scenarios with a success among them (default: 1)");
    expect(text).not.toContain('(default: "1")');
    expect(text).toContain("--n <n> scenarios at most (default: all of the split)");
  });

  it("help NAME for no such command is a usage error, with the nearest name", async () => {
    const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    expect(await main(["help", "tarin"])).toBe(2);
    expect(err.mock.calls.map((c) => String(c[0])).join("")).toBe("train-mcp: unknown command tarin (did you mean train?)\n");
    err.mockClear();
    expect(await main(["help", "bogus"])).toBe(2);
    expect(err.mock.calls.map((c) => String(c[0])).join("")).toMatch(/^train-mcp: unknown command bogus \(the commands: .*train.*\)\n$/);
  });
});
