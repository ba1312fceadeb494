/**
 * A stop asked for during the last step (Ctrl-C, SIGTERM) ends the run like one asked for earlier:
 * the step finishes and is checkpointed, "after RL" is not measured (the run is interrupted), and
 * a resume measures it from that checkpoint without training again. Before, the final evaluation
 * ran anyway and the run read as complete while the CLI exited 130.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveTrainConfig } from "../../src/train/config.js";
import { train } from "../../src/train/loop.js";
import { calculatorScenarios, readJsonl, tempDir } from "./helpers.js";

describe("a stop during the last step", () => {
  it("checkpoints it, leaves 'after RL' to the resume, and the resume measures it without training again", async () => {
    const out = path.join(tempDir("stop-last"), "run");
    const config = resolveTrainConfig({
      server: ["fixture:calculator"], model: "default", scenarios: [calculatorScenarios(8, 3)], out, seed: 3, sft: "off",
      max_steps: 2, groups_per_step: 1, num_generations: 2, max_turns: 2, max_tokens_per_turn: 48, eval_n: 3, save_steps: 100,
    });
    const stop = new AbortController();
    const logs: string[] = [];
    const log = (l: string) => {
      logs.push(l);
      if (l.startsWith("step 1/2:")) stop.abort(); // between the steps: step 2 is not played
    };
    const first = await train({ config, signal: stop.signal, hooks: { log } });
    expect(first).toMatchObject({ interrupted: true, steps: 1, heldout_after: null });
    expect(readJsonl(path.join(out, "eval.jsonl")).map((e) => e.label)).toEqual(["before"]);

    // now a stop during the last step itself: it finishes, is checkpointed, and nothing is measured after it
    const last = new AbortController();
    let playing = false;
    const second = await train({
      config, resume: true, signal: last.signal,
      hooks: {
        log: () => undefined,
        progress: (label) => {
          if (!playing && label.startsWith("step 2")) ((playing = true), last.abort());
        },
      },
    });
    expect(second).toMatchObject({ interrupted: true, steps: 2, heldout_after: null });
    expect(readJsonl(path.join(out, "metrics.jsonl")).filter((m) => m.phase === "grpo").map((m) => m.step)).toEqual([1, 2]);
    expect(readJsonl(path.join(out, "eval.jsonl")).map((e) => e.label)).toEqual(["before"]);

    const third = await train({ config, resume: true, hooks: { log: () => undefined } });
    expect(third).toMatchObject({ interrupted: false, steps: 2 });
    expect(typeof third.heldout_after).toBe("number");
    expect(readJsonl(path.join(out, "metrics.jsonl")).filter((m) => m.phase === "grpo").map((m) => m.step)).toEqual([1, 2]);
    expect(readJsonl(path.join(out, "eval.jsonl")).map((e) => e.label)).toEqual(["before", "after"]);
  }, 180_000);
});
