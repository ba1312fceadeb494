/**
 * Held-out evaluation: every test scenario played k times (k = 1: greedy), scored by the same
 * rewards as training. Success rate, mean reward and mean turns are over every rollout: with
 * k = 1 the greedy one per scenario, with k > 1 all k samples at the temperature (success rate
 * is then the pass@1 estimate from k samples, not one sample chosen by chance); pass@k = the
 * share of scenarios with at least one passing rollout among k.
 */
import { TrainMcpError } from "../errors.js";
import type { RewardComponent } from "../rewards/types.js";
import type { Policy } from "../rollout/policy.js";
import type { Trajectory } from "../rollout/trajectory.js";
import { toolUse, wasSent, type ToolUse } from "../rollout/tool-use.js";

export { wasSent };
import type { Scenario } from "../scenarios/schema.js";
import { sleep } from "../sleep.js";
import { playAndScore } from "./play.js";
import type { ServerSet } from "./servers.js";

export interface EvalOptions {
  k: number;
  /** used when k > 1 (with topP / topK); k = 1 decodes greedily */
  temperature: number;
  topP?: number;
  topK?: number;
  seed: number;
  maxTurns: number;
  maxTokensPerTurn: number;
  /** new tokens at most per rollout (a run's binding max_completion_length) */
  maxCompletionTokens?: number;
  systemPrompt?: string;
  maxConcurrentRollouts: number;
  toolTimeoutMs: number;
  components: readonly RewardComponent[];
  /** scale the weighted reward to [0, 1] as training does (default true) */
  normalizeRewards?: boolean;
  onProgress?: (done: number, total: number) => void;
  /**
   * A scenario whose rollout lost its server (it crashed mid-rollout) is played again after a
   * wait (doubled each try), up to `tries` times: a crash is no evidence about the model. What is
   * still lost after that counts as a failure.
   */
  outageReplay?: { tries: number; waitS: number; signal?: AbortSignal; log?: (line: string) => void };
}

export interface EvalResult {
  n: number;
  success_rate: number;
  mean_reward: number;
  mean_turns: number;
  pass_at_k?: number;
  k?: number;
  per_tag: Record<string, number>;
  /** how the rollouts used the tools (absent for an evaluation not played again) */
  tool_use?: ToolUse;
  trajectories: Trajectory[];
  /** rollouts that lost their server and were played again (the caller keeps them, phase "outage") */
  replaced?: Trajectory[];
}

export async function evaluate(scenarios: Scenario[], policy: Policy, servers: ServerSet, o: EvalOptions): Promise<EvalResult> {
  if (scenarios.length === 0) return { n: 0, success_rate: 0, mean_reward: 0, mean_turns: 0, per_tag: {}, trajectories: [] };
  const playOptions = {
    groupSize: o.k,
    seed: o.seed,
    temperature: o.k === 1 ? 0 : o.temperature,
    topP: o.topP,
    topK: o.topK,
    maxTurns: o.maxTurns,
    maxTokensPerTurn: o.maxTokensPerTurn,
    maxCompletionTokens: o.maxCompletionTokens,
    systemPrompt: o.systemPrompt,
    maxConcurrentRollouts: o.maxConcurrentRollouts,
    toolTimeoutMs: o.toolTimeoutMs,
    components: o.components,
    normalizeRewards: o.normalizeRewards,
  };
  const played = await playAndScore(scenarios, policy, servers, { ...playOptions, onProgress: o.onProgress });
  const groups = played.scored.map((s) => s.group.trajectories);
  const replaced: Trajectory[] = [];
  const replay = o.outageReplay;
  for (let attempt = 1; replay && attempt <= replay.tries; attempt++) {
    const lost = groups.flatMap((g, i) => (g.some(metServerOutage) ? [i] : []));
    if (lost.length === 0) break;
    const waitS = replay.waitS * 2 ** (attempt - 1);
    replay.log?.(`${lost.length} of ${scenarios.length} scenarios lost the server mid-rollout: played again${waitS > 0 ? ` in ${waitS} s` : ""} (try ${attempt} of ${replay.tries})`);
    if (waitS > 0) await sleep(waitS * 1000, replay.signal).catch(() => undefined);
    if (replay.signal?.aborted) break;
    // group indices past every earlier try's: each rollout keeps an id of its own
    const again = await playAndScore(lost.map((i) => scenarios[i]), policy, servers, { ...playOptions, firstGroupIndex: scenarios.length * attempt });
    again.scored.forEach((s, j) => {
      replaced.push(...groups[lost[j]]);
      groups[lost[j]] = s.group.trajectories;
    });
  }
  // a policy or server that fails every rollout would read as a 0% model: say what failed instead
  const all = groups.flat();
  // (the rollouts travel with the error: the run keeps them, they show what failed)
  if (all.every((t) => t.finish === "error")) {
    throw new EvaluationFailed(`evaluation: every rollout failed (${all.length} of ${all.length}), the first with: ${all[0]?.error ?? "no message"}`, all, replaced);
  }
  // a server that fails every call (crashing, hanging) would read as a 0% model too
  const calls = all.flatMap((t) => t.toolCalls).filter(wasSent);
  if (calls.length > 0 && calls.every(isServerFault)) {
    throw new EvaluationFailed(`evaluation: every tool call failed on the server's side (${calls.length} of ${calls.length}), the first with: ${faultText(calls[0].result)}`, all, replaced);
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  // a scenario's success: the share of its k rollouts that passed (0 or 1 when k = 1)
  const solved = groups.map((g) => mean(g.map((t) => (t.success ? 1 : 0))));
  const tagHits = new Map<string, number[]>();
  scenarios.forEach((s, i) => {
    for (const tag of s.tags.filter((t) => t.startsWith("tool:") || t.startsWith("server:") || t.startsWith("template:")))
      tagHits.set(tag, [...(tagHits.get(tag) ?? []), solved[i]]);
  });
  const result: EvalResult = {
    n: scenarios.length,
    success_rate: mean(solved),
    mean_reward: mean(all.map((t) => t.reward)),
    mean_turns: mean(all.map((t) => t.turns)),
    per_tag: Object.fromEntries([...tagHits].map(([k, v]) => [k, mean(v)])),
    tool_use: toolUse(all),
    trajectories: all,
    ...(replaced.length > 0 ? { replaced } : {}),
  };
  if (o.k > 1) {
    result.k = o.k;
    result.pass_at_k = mean(groups.map((g) => (g.some((t) => t.success) ? 1 : 0)));
  }
  return result;
}


/** A call that failed for the server's sake, not the model's: the connection was lost or it timed out. */
export function isServerFault(call: { error?: string }): boolean {
  return call.error === "connection" || call.error === "timeout";
}

/** A rollout that lost its server (crashed, unreachable) is no evidence about the model. */
export function metServerOutage(t: Pick<Trajectory, "toolCalls">): boolean {
  return t.toolCalls.some((c) => c.error === "connection");
}

/** A fault as a person reads it: what the toolbox tells the model about retrying is not for them. */
export function faultText(result: string): string {
  return result.replace(/;?\s*the next call reconnects\.?/, "").slice(0, 300);
}

/** An evaluation that measured nothing (every rollout or every tool call failed), with its rollouts. */
export class EvaluationFailed extends TrainMcpError {
  constructor(
    message: string,
    readonly trajectories: Trajectory[],
    /** rollouts that lost their server and were played again before it gave up */
    readonly replaced: Trajectory[] = [],
  ) {
    super("RolloutFailed", message, true);
  }
}
