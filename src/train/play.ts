/**
 * Play and score: groups of rollouts for a list of scenarios, on each scenario's own server,
 * scored by the reward components (state checks run on each rollout's own server instance
 * before it is released). Used by training steps and by evaluation alike.
 */
import type { RewardComponent } from "../rewards/types.js";
import { scoreGroup, type ScoredGroup } from "../rewards/combine.js";
import type { Policy } from "../rollout/policy.js";
import { playGroups, type PlayOptions } from "../rollout/group.js";
import type { Scenario } from "../scenarios/schema.js";
import type { ServerSet } from "./servers.js";

export interface PlayAndScoreOptions extends Omit<PlayOptions, "isolate" | "onProgress" | "groupIndices"> {
  /** the index in the step of this call's first group (a step that samples more plays again) */
  firstGroupIndex?: number;
  components: readonly RewardComponent[];
  normalizeRewards?: boolean;
  onProgress?: (done: number, total: number) => void;
  log?: (line: string) => void;
}

export interface Played {
  scored: ScoredGroup[];
  scenarios: Scenario[];
  ms: { rollout: number; reward: number };
}

export async function playAndScore(scenarios: Scenario[], policy: Policy, servers: ServerSet, o: PlayAndScoreOptions): Promise<Played> {
  // one playGroups call per server, in the order the scenarios came; positions, not scenarios,
  // identify groups (a small set can hand one step the same scenario twice)
  const byServer = new Map<string, number[]>();
  scenarios.forEach((s, i) => {
    const key = servers.entryFor(s).target;
    byServer.set(key, [...(byServer.get(key) ?? []), i]);
  });
  const scoredAt: ScoredGroup[] = [];
  let rolloutMs = 0;
  let rewardMs = 0;
  let done = 0;
  for (const [target, positions] of byServer) {
    const entry = servers.entries.find((e) => e.target === target)!;
    const list = positions.map((i) => scenarios[i]);
    const t0 = performance.now();
    const { groups, release } = await playGroups(list, policy, entry.toolbox, {
      ...o,
      isolate: entry.isolate,
      groupIndices: positions.map((i) => (o.firstGroupIndex ?? 0) + i),
      onProgress: (d) => o.onProgress?.(done + d, scenarios.length * o.groupSize),
    });
    done += list.length * o.groupSize;
    rolloutMs += performance.now() - t0;
    const t1 = performance.now();
    try {
      const scored = await Promise.all(
        groups.map((g, i) =>
          scoreGroup(g, list[i], o.components, {
            stateTarget: (k) => g.toolboxes[k],
            secrets: [...new Set(g.toolboxes.flatMap((tb) => tb.secrets ?? []))],
            normalize: o.normalizeRewards,
            log: o.log ? (ev) => o.log!(`reward ${ev.component}: ${ev.message}`) : undefined,
          }),
        ),
      );
      scored.forEach((s, i) => (scoredAt[positions[i]] = s));
    } finally {
      await release();
    }
    rewardMs += performance.now() - t1;
  }
  return { scored: scoredAt, scenarios, ms: { rollout: rolloutMs, reward: rewardMs } };
}
