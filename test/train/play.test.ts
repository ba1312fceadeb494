/**
 * playAndScore keeps one group per scenario *position*: a step that draws the same scenario twice
 * (a small set wrapping around) gets two groups with their own rollouts and ids, and a step that
 * samples more groups continues the numbering instead of repeating ids.
 */
import { describe, expect, it } from "vitest";
import { defaultRewards } from "../../src/rewards/defaults.js";
import { readScenarioFile } from "../../src/scenarios/io.js";
import { playAndScore } from "../../src/train/play.js";
import { ServerSet } from "../../src/train/servers.js";
import { call, ScriptedPolicy } from "../rollout/scripted-policy.js";

describe("playAndScore", () => {
  it("plays a repeated scenario as separate groups with unique ids", async () => {
    const [a, b] = readScenarioFile("scenarios/calculator.jsonl").filter((s) => s.reference?.calls.length === 1);
    const servers = await ServerSet.connect(["fixture:calculator"], "auto");
    try {
      // member 0 of each group plays the reference call and answers; member 1 answers "0" at once
      let n = 0;
      const policy = new ScriptedPolicy((c, turn) => {
        const scenario = [a, b].find((s) => c.messages.some((m) => m.role === "user" && m.content === s.task))!;
        if (turn === 0) return n++ % 2 === 0 ? call(scenario.reference!.calls[0].name, scenario.reference!.calls[0].arguments) : "0";
        return scenario.reference!.answer;
      });
      const played = await playAndScore([a, a, b], policy, servers, {
        groupSize: 2,
        seed: 1,
        step: 3,
        firstGroupIndex: 4,
        maxTurns: 2,
        maxConcurrentRollouts: 1,
        components: defaultRewards({ hasExpectations: true }),
      });
      expect(played.scored.map((s) => s.group.groupId)).toEqual([`3-4-${a.id}`, `3-5-${a.id}`, `3-6-${b.id}`]);
      expect(played.scored[0]).not.toBe(played.scored[1]);
      // each group holds its own two rollouts: one that called the tool and answered, one that did not
      for (const s of played.scored) expect(s.group.trajectories.map((t) => t.toolCalls.length).sort()).toEqual([0, 1]);
      const ids = played.scored.flatMap((s) => s.group.trajectories.map((t) => t.id));
      expect(new Set(ids).size).toBe(6);
      for (const s of played.scored) expect(s.group.trajectories.every((t) => t.groupId === s.group.groupId)).toBe(true);
    } finally {
      await servers.close();
    }
  });
});
