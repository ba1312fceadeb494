/**
 * The reward contract: a reward is a weighted list of named components (after verifiers'
 * `rubric.py`). Each component scores one trajectory ("trajectory" kind: rubric, verifier) or a
 * whole group at once ("group" kind: the RULER judge, which ranks trajectories against each
 * other). Every raw score is logged under the component's name; weight 0 means "metric only".
 *
 * A component may also say it has no score ("missing": a judge that failed after its retries, a
 * verifier for a scenario without expectations). A missing score is left out of the weighted
 * sum rather than counted as 0; see combine.ts for how the weights are then handled.
 */
import type { Toolbox } from "../mcp/types.js";
import type { Scenario } from "../scenarios/schema.js";
import type { Trajectory, TrajectoryGroup } from "../rollout/trajectory.js";

/** What a state check needs of the rollout's own server instance: one tool call. */
export type StateCheckTarget = Pick<Toolbox, "call">;

/** A component that has no score for this trajectory or group, with the reason why. */
export interface MissingScore {
  missing: string;
  /** counters to add to the stats even so (a failed judge's attempts) */
  counters?: Record<string, number>;
}

/** A per-trajectory score with an optional one-line detail for the report. */
export interface TrajectoryScore {
  score: number;
  /** why: what was expected and found (kept in the breakdown, not in the trajectory) */
  detail?: string;
  /** set by verifiers: all expected outcomes passed. `success` is the AND of all such values. */
  success?: boolean;
}

/** A whole group's scores, index-aligned with `group.trajectories`. */
export interface GroupScore {
  scores: number[];
  details?: string[];
  /** a judge's explanations, copied to `trajectory.judgeExplanation` */
  explanations?: string[];
  success?: boolean[];
  /** extra counters summed into the stats, e.g. `ruler/retries` */
  counters?: Record<string, number>;
}

export type Awaitable<T> = T | Promise<T>;

interface ComponentBase {
  /** unique within a reward list; logged as `reward/<name>` */
  name: string;
  /** weight in the total; 0 = metric only; negative allowed but unusual (penalties score ≤ 0 instead) */
  weight: number;
  /** true for LLM judges: a missing score counts as a judge fallback in the stats */
  judge?: boolean;
  /** scores in [-1, 0] (safety): kept out of the normalizer Σ|w|, so turning a penalty on
   *  leaves a clean trajectory's total where it was */
  penalty?: boolean;
}

export interface TrajectoryComponent extends ComponentBase {
  kind: "trajectory";
  score(trajectory: Trajectory, ctx: TrajectoryRewardContext): Awaitable<number | TrajectoryScore | MissingScore>;
}

export interface GroupComponent extends ComponentBase {
  kind: "group";
  score(ctx: RewardContext): Awaitable<number[] | GroupScore | MissingScore>;
}

export type RewardComponent = TrajectoryComponent | GroupComponent;

/** One line for the run log. Never carries secrets: components must not put keys in messages. */
export interface RewardLogEvent {
  level: "info" | "warn" | "error";
  component: string;
  /** index of the trajectory in the group, when the event is about one */
  index?: number;
  message: string;
}
export type RewardLogger = (event: RewardLogEvent) => void;

export interface RewardContext {
  scenario: Scenario;
  group: TrajectoryGroup;
  /**
   * The server instance a trajectory ran against, for state checks after the rollout. The loop
   * keeps each rollout's isolated toolbox open until scoring and closes it afterwards.
   */
  stateTarget?: (index: number, trajectory: Trajectory) => StateCheckTarget | undefined;
  /** credentials the group's servers were given (Toolbox.secrets): a tool may have printed them,
   *  and a judge (a third party) is sent the conversation without them */
  secrets?: readonly string[];
  signal?: AbortSignal;
  log?: RewardLogger;
}

export interface TrajectoryRewardContext extends RewardContext {
  index: number;
}

export function isMissing(v: unknown): v is MissingScore {
  return typeof v === "object" && v !== null && typeof (v as MissingScore).missing === "string";
}
