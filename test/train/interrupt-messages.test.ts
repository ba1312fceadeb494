/**
 * What a signal stopping a command says (QA21): a second Ctrl-C during train's checkpoint whether
 * that checkpoint was completed and what a resume finds; eval what it had finished; a step's
 * warnings count rollouts in the singular too.
 */
import { describe, expect, it } from "vitest";
import { secondSignalText } from "../../src/cli/commands/train.js";
import { evalInterruptText } from "../../src/cli/commands/eval.js";
import { lostServerWarning } from "../../src/train/loop.js";

describe("interrupted commands say what they kept", () => {
  it("train: a second signal says whether the announced checkpoint was completed", () => {
    expect(secondSignalText("SIGINT", { step: 3, runDir: "/r", afterStop: true })).toBe(
      "interrupted again (SIGINT): quit at once, after the checkpoint was completed (step 3): continue with: train-mcp train --resume /r",
    );
    expect(secondSignalText("SIGINT", { step: 2, runDir: "/r", afterStop: false })).toBe(
      "interrupted again (SIGINT): quit at once, before the checkpoint was completed: the run keeps its last checkpoint (step 2; later steps are lost): continue with: train-mcp train --resume /r",
    );
    expect(secondSignalText("SIGTERM", undefined)).toBe("interrupted again (SIGTERM): quit at once, before the checkpoint was completed: no checkpoint was saved, so nothing is kept to resume from");
  });

  it("eval: says which results were printed or written", () => {
    expect(evalInterruptText("SIGINT", { scored: 0, models: 2, trajectories: "t.jsonl" })).toBe("interrupted (SIGINT): eval stopped: 0 of 2 models scored, nothing printed");
    expect(evalInterruptText("SIGINT", { scored: 1, models: 3 })).toBe("interrupted (SIGINT): eval stopped: 1 of 3 models scored, in the table above; the other 2 were not evaluated");
    expect(evalInterruptText("SIGTERM", { json: true, trajectories: "t.jsonl", scored: 2, models: 3 })).toBe(
      "interrupted (SIGTERM): eval stopped: 2 of 3 models scored, each row above; the other one was not evaluated; t.jsonl holds the rollouts of the models scored",
    );
  });

  it("a step's lost-server warning counts one rollout in the singular", () => {
    expect(lostServerWarning(4, 1, "")).toBe("warning: step 4: 1 rollout lost the server mid-rollout; its group is left out of the update");
    expect(lostServerWarning(4, 2, "")).toMatch(/^warning: step 4: 2 rollouts lost/);
  });
});
