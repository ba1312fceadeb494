/**
 * The supervised warm start: a model that cannot yet write a tool call gets nothing from GRPO
 * (every rollout scores the same). So first imitate demonstrations — the scenarios' reference
 * solutions played by the teacher on the real servers — with the masked NLL of the assistant
 * tokens. (Imitating the policy's own best rollouts, STaR-style, happens inside the GRPO step:
 * `rft_coef`, src/rl/rejection-sampling.ts.)
 */
import * as tf from "@tensorflow/tfjs-core";
import type { Trainable } from "../policy/trainable.js";
import type { RewardComponent } from "../rewards/types.js";
import { clipToContext, lossBatch } from "../rl/batch.js";
import { sftLoss } from "../rl/sft-loss.js";
import type { Trajectory } from "../rollout/trajectory.js";
import type { Scenario } from "../scenarios/schema.js";
import type { ChatTokenizer } from "../policy/tokenizer.js";
import { playAndScore } from "./play.js";
import type { ServerSet } from "./servers.js";
import { TeacherPolicy } from "./teacher.js";
import { chunkByBudget } from "./micro-batches.js";

export interface DemoOptions {
  systemPrompt?: string;
  maxTurns: number;
  components: readonly RewardComponent[];
  seed: number;
  maxConcurrentRollouts: number;
  toolTimeoutMs: number;
}

/** Reference solutions played on the real servers; only those that verify are kept. */
export async function collectDemonstrations(
  scenarios: Scenario[],
  tokenizer: ChatTokenizer,
  servers: ServerSet,
  o: DemoOptions,
): Promise<{ demos: Trajectory[]; rejected: number; firstProblem?: string }> {
  const withRef = scenarios.filter((s) => s.reference);
  if (withRef.length === 0) return { demos: [], rejected: 0 };
  const teacher = new TeacherPolicy(tokenizer, withRef);
  const played = await playAndScore(withRef, teacher, servers, {
    groupSize: 1,
    seed: o.seed,
    maxTurns: Math.max(o.maxTurns, ...withRef.map((s) => (s.reference?.calls.length ?? 0) + 1)),
    maxTokensPerTurn: 4096,
    temperature: 0,
    systemPrompt: o.systemPrompt,
    maxConcurrentRollouts: o.maxConcurrentRollouts,
    toolTimeoutMs: o.toolTimeoutMs,
    components: o.components,
  });
  const all = played.scored.flatMap((g) => g.group.trajectories);
  // a demonstration must end in an answer and pass its checks (when it has any), each call
  // answering as its reference says (an error only where one is marked expected)
  const refOf = new Map(withRef.map((s) => [s.id, s.reference!]));
  const callsAsExpected = (t: Trajectory) => t.toolCalls.every((c, i) => !c.error && c.isError === !!refOf.get(t.scenarioId)?.calls[i]?.error);
  const problemOf = (t: Trajectory): string | undefined =>
    t.error ? t.error : t.finish !== "answer" ? `it ended with ${t.finish}, not an answer` : !(t.success || !("verifier" in t.rewards)) ? "its answer failed the scenario's checks" : !callsAsExpected(t) ? "a call did not answer as its reference says" : undefined;
  const demos = all.filter((t) => problemOf(t) === undefined);
  const firstDropped = all.find((t) => problemOf(t) !== undefined);
  return { demos, rejected: all.length - demos.length, ...(firstDropped ? { firstProblem: `${firstDropped.scenarioId}: ${problemOf(firstDropped)}` } : {}) };
}

export interface SftStepResult {
  loss: number;
  gradNorm: number;
  tokens: number;
}

/**
 * One optimizer step of imitation over `batch`, in micro-batches of `microBatchSize`: the NLL's
 * mean over all assistant tokens ("token"), or the mean of each sequence's token mean ("sequence").
 */
export function sftStep(
  trainable: Trainable,
  batch: readonly Trajectory[],
  microBatchSize: number,
  microBatchTokens: number,
  reduction: "token" | "sequence" = "token",
): SftStepResult {
  const micro: Array<{ ids: number[][]; mask: number[][] }> = [];
  let tokens = 0;
  // a reference solution longer than the context trains on the part that fits
  const sorted = batch.map((t) => clipToContext(t, trainable.model.config.maxPositions)).sort((a, b) => a.tokenIds.length - b.tokenIds.length);
  for (const chunk of chunkByBudget(sorted, (t) => t.tokenIds.length, microBatchSize, microBatchTokens)) {
    const lb = lossBatch(chunk);
    micro.push({ ids: lb.ids, mask: lb.mask });
    tokens += lb.tokens;
  }
  // Trainable.step averages the k micro-batch gradients, so each micro-batch divides by the
  // whole batch's count / k: its tokens, or its sequences
  const k = micro.length;
  const divisor = reduction === "token" ? { totalStepTokens: tokens / k } : { totalStepSequences: batch.length / k };
  const r = trainable.step(micro, (logp, mb) => sftLoss({ logp, mask: tf.tensor2d(mb.mask, logp.shape) }, { reduction, ...divisor }).loss);
  // the mean of the micro-batch losses is the batch's NLL under that reduction
  return { loss: r.loss, gradNorm: r.gradNorm, tokens };
}
