/**
 * The default reward list and the reward section of the training config.
 *
 * Defaults (the rule): the verifier and the rule rubric when scenarios carry expected
 * outcomes; the rubric alone otherwise (a weak signal: format and tool hygiene only); RULER
 * added whenever a judge is configured. Default weights, chosen so that task success dominates
 * and a dangerous call costs about as much as a failed task:
 *
 *   verifier 4 · ruler 4 · format 0.5 · tool_validity 0.5 · tool_errors 0.5 · efficiency 0.5 · safety 2
 *   reference_calls 0 (logged: argument accuracy against the reference solution, where there is one)
 *
 * With the default normalization (combine.ts) the total is Σ w·r / Σ|w| (safety, a penalty, left
 * out of Σ|w|), so success with clean tool use scores 1 whether or not safety is on, and a
 * dangerous call costs half of what failing the task does (2 against 4, over the same Σ|w|).
 */
import { z } from "zod";
import { DangerousPatternsSchema, type DangerousPatterns } from "./dangerous.js";
import { JudgeClientSchema, type JudgeConfig } from "./judge.js";
import { rubricRewards } from "./rubric.js";
import { rulerReward } from "./ruler.js";
import type { RewardComponent } from "./types.js";
import { referenceCallsReward } from "./reference-calls.js";
import { verifierReward } from "./verifier.js";

export const COMPONENT_NAMES = ["verifier", "ruler", "format", "tool_validity", "tool_errors", "efficiency", "safety", "reference_calls"] as const;
export type ComponentName = (typeof COMPONENT_NAMES)[number];

export const DEFAULT_WEIGHTS: Readonly<Record<ComponentName, number>> = {
  verifier: 4,
  ruler: 4,
  format: 0.5,
  tool_validity: 0.5,
  tool_errors: 0.5,
  efficiency: 0.5,
  safety: 2,
  reference_calls: 0,
};

const weight = z.number().finite().min(-100).max(100);

export const RewardWeightsSchema = z
  .object({
    verifier: weight.optional(),
    ruler: weight.optional(),
    format: weight.optional(),
    tool_validity: weight.optional(),
    tool_errors: weight.optional(),
    efficiency: weight.optional(),
    safety: weight.optional(),
    reference_calls: weight.optional(),
  })
  .strict()
  .describe("weight per component; unspecified keep DEFAULT_WEIGHTS; 0 = computed and logged, not rewarded");

export const JudgeSettingsSchema = JudgeClientSchema.extend({
  rubric: z.string().min(1).optional().describe("grading standards replacing the default RULER rubric"),
  maxMessageChars: z.number().int().min(200).optional().describe("clip longer message contents for the judge; default 6000"),
  apiKeyEnv: z
    .string()
    .default("OPENAI_API_KEY")
    .describe("environment variable the CLI reads the judge's key from (the key itself is never in the config)"),
}).strict();
export type JudgeSettings = z.infer<typeof JudgeSettingsSchema>;

export const RewardConfigSchema = z
  .object({
    weights: RewardWeightsSchema.default({}),
    normalize: z.boolean().default(true).describe("total = Σw·r/Σ|w| over the components that scored (true) or Σw·r"),
    verifierMode: z.enum(["all", "fraction"]).default("all").describe("all: 1 only when every check passes; fraction: share passed"),
    rubric: z.boolean().default(true).describe("include the rule rubric components"),
    dangerous: DangerousPatternsSchema.default({ tools: [], args: [] }).describe("patterns for the safety penalty"),
    judge: JudgeSettingsSchema.optional().describe("RULER judge; absent = no RULER"),
  })
  .strict();
export type RewardConfig = z.infer<typeof RewardConfigSchema>;
export type RewardConfigInput = z.input<typeof RewardConfigSchema>;

export interface DefaultRewardsOptions {
  /** any scenario of the run has `expected` outcomes */
  hasExpectations: boolean;
  /** any scenario of the run has a reference solution with calls (default true); reference_calls is added when so */
  hasReferences?: boolean;
  /** the judge endpoint with its key; RULER is added when present */
  judge?: JudgeConfig & { rubric?: string; maxMessageChars?: number };
  weights?: Partial<Record<ComponentName, number>>;
  dangerous?: Partial<DangerousPatterns>;
  verifierMode?: "all" | "fraction";
  /** include the rule rubric; default true */
  rubric?: boolean;
  /** the rollout's turn limit (efficiency's budget without a reference solution); default 10 */
  maxTurns?: number;
  /** the server's tool names, for the unknown-tool count */
  knownTools?: Iterable<string>;
  /** limit of each state-check call (the run's tool timeout); default 30 000 ms */
  stateTimeoutMs?: number;
}

export function defaultRewards(o: DefaultRewardsOptions): RewardComponent[] {
  const w = { ...DEFAULT_WEIGHTS, ...stripUndefined(o.weights ?? {}) };
  const out: RewardComponent[] = [];
  if (o.hasExpectations) out.push(verifierReward({ mode: o.verifierMode, weight: w.verifier, stateTimeoutMs: o.stateTimeoutMs }));
  if (o.judge) {
    const { rubric, maxMessageChars, ...judge } = o.judge;
    out.push(rulerReward({ judge, rubric, maxMessageChars, weight: w.ruler }));
  }
  if (o.rubric ?? true) {
    out.push(...rubricRewards({ weights: w, dangerous: o.dangerous, maxTurns: o.maxTurns, knownTools: o.knownTools }));
    if (o.hasReferences ?? true) out.push(referenceCallsReward({ weight: w.reference_calls }));
  } else if (o.dangerous && ((o.dangerous.tools?.length ?? 0) > 0 || (o.dangerous.args?.length ?? 0) > 0)) {
    // The safety penalty is asked for explicitly by listing patterns; keep it without the rubric.
    out.push(...rubricRewards({ weights: w, dangerous: o.dangerous }).filter((c) => c.name === "safety"));
  }
  return out;
}

/**
 * Components from a parsed config section. The caller (the CLI) resolves the judge's key from
 * `judge.apiKeyEnv` and passes it here; nothing in src/rewards reads the environment.
 */
export function rewardsFromConfig(
  config: RewardConfig,
  run: { hasExpectations: boolean; hasReferences?: boolean; judgeApiKey?: string; maxTurns?: number; knownTools?: Iterable<string>; stateTimeoutMs?: number },
): RewardComponent[] {
  let judge: DefaultRewardsOptions["judge"];
  if (config.judge) {
    const { apiKeyEnv: _env, ...settings } = config.judge;
    judge = { ...settings, apiKey: run.judgeApiKey };
  }
  return defaultRewards({
    hasExpectations: run.hasExpectations,
    hasReferences: run.hasReferences,
    judge,
    weights: config.weights,
    dangerous: config.dangerous,
    verifierMode: config.verifierMode,
    rubric: config.rubric,
    maxTurns: run.maxTurns,
    knownTools: run.knownTools,
    stateTimeoutMs: run.stateTimeoutMs,
  });
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
