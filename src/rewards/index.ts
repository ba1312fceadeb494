/**
 * The rewards stage's public surface: components (rubric, verifier, RULER), the group scorer
 * that combines them, and the defaults/config the training loop builds them from.
 */
export * from "./types.js";
export { scoreGroup, rewardMetrics, type ScoredGroup, type ScoreGroupOptions, type RewardBreakdown, type RewardStats } from "./combine.js";
export * from "./rubric.js";
export * from "./dangerous.js";
export { referenceCallsReward, argumentMatch, type ReferenceCallsOptions } from "./reference-calls.js";
export { verifierReward, type VerifierOptions } from "./verifier.js";
export { rulerScore, rulerReward, DEFAULT_RUBRIC, type RulerOptions, type RulerResult, type RulerScore, type RulerRewardOptions } from "./ruler.js";
export { JudgeClientSchema, callJudge, makeJudgeClient, type JudgeConfig, type JudgeClientOptions } from "./judge.js";
export * from "./defaults.js";
