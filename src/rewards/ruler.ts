/**
 * RULER (Relative Universal LLM-Elicited Rewards), after OpenPipe ART's `rewards/ruler.py`: a
 * judge model sees a whole group of trajectories for the same task and scores them against each
 * other. GRPO only uses scores relative to the group, and ranking is easier for a judge than
 * absolute grading, so no labels or hand-written reward are needed.
 *
 * Two layers, as in ART: `rulerScore` works on raw message lists and throws when the judge fails;
 * `rulerReward` is the thin adapter for groups, a reward component that never throws: when the
 * judge fails after its retries it reports the group's score as missing, combine.ts counts a
 * judge fallback and the other components carry the reward. Explanations go to
 * `trajectory.judgeExplanation` for the report.
 *
 * Identical trajectories (same canonical messages, tool-call ids ignored) are judged once and
 * the score is fanned back out to each copy.
 */
import type { ChatMessage } from "../rollout/trajectory.js";
import { TrainMcpError } from "../errors.js";
import { JudgeClientSchema, callJudge, scrub, type JudgeConfig } from "./judge.js";
import { redactedJson } from "../mcp/command-credentials.js";
import {
  DEFAULT_RUBRIC,
  dedupe,
  judgeReplyJsonSchema,
  judgeSystemPrompt,
  judgeUserPrompt,
  parseJudgeReply,
} from "./ruler-prompt.js";
import type { GroupComponent, GroupScore, MissingScore } from "./types.js";

export { DEFAULT_RUBRIC } from "./ruler-prompt.js";

export interface RulerOptions {
  judge: JudgeConfig;
  /** grading standards; default DEFAULT_RUBRIC */
  rubric?: string;
  /** message contents longer than this are clipped in the middle for the judge; default 6000 */
  maxMessageChars?: number;
  signal?: AbortSignal;
  /** one line per retried attempt (never contains the key) */
  log?: (message: string) => void;
}

export interface RulerScore {
  /** the id the judge saw this trajectory (or its identical twin) under */
  trajectoryId: string;
  score: number;
  explanation: string;
}

export interface RulerResult {
  /** aligned with the input lists */
  scores: RulerScore[];
  /** distinct trajectories sent to the judge */
  judged: number;
  /** HTTP attempts made (1 when the first succeeded) */
  attempts: number;
}

/**
 * Scores message lists with the judge. Throws TrainMcpError "JudgeFailed" once its retries are
 * spent. An empty input makes no call.
 */
export async function rulerScore(messageLists: readonly (readonly ChatMessage[])[], options: RulerOptions): Promise<RulerResult> {
  if (messageLists.length === 0) return { scores: [], judged: 0, attempts: 0 };
  const { unique, indexOf } = dedupe(messageLists);
  const { text, ids } = judgeUserPrompt(unique, options.maxMessageChars);
  const { value, stats } = await callJudge(options.judge, {
    system: judgeSystemPrompt(options.rubric ?? DEFAULT_RUBRIC),
    user: text,
    schemaName: "ruler_scores",
    schema: judgeReplyJsonSchema(ids),
    parse: (content) => parseJudgeReply(content, ids),
    signal: options.signal,
    onRetry: options.log,
  });
  const scores = indexOf.map((u) => ({ trajectoryId: ids[u], score: value[u].score, explanation: value[u].explanation }));
  return { scores, judged: unique.length, attempts: stats.attempts };
}

export interface RulerRewardOptions extends Omit<RulerOptions, "signal" | "log"> {
  /** default 4, as the verifier: the judge's view of task success */
  weight?: number;
  /** component name; default "ruler" */
  name?: string;
}

/** The RULER group component: scores the group with the judge, or reports it missing. */
export function rulerReward(o: RulerRewardOptions): GroupComponent {
  const name = o.name ?? "ruler";
  // A wrong setting must stop the run at start-up, not turn into a fallback on every group.
  const checked = JudgeClientSchema.safeParse(o.judge);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new TrainMcpError("ConfigInvalid", `judge.${issue.path.join(".")}: ${issue.message}`);
  }
  return {
    name,
    weight: o.weight ?? 4,
    kind: "group",
    judge: true,
    async score(ctx): Promise<GroupScore | MissingScore> {
      // the judge is a third party: what the tools printed goes to it without the servers' credentials
      // (key-shaped values too, whether or not the servers were given any)
      const lists = ctx.group.trajectories.map((t) => JSON.parse(redactedJson(t.messages, ctx.secrets ?? []).text) as ChatMessage[]);
      let retries = 0;
      try {
        const r = await rulerScore(lists, {
          judge: o.judge,
          rubric: o.rubric,
          maxMessageChars: o.maxMessageChars,
          signal: ctx.signal,
          log: (message) => {
            retries++;
            ctx.log?.({ level: "warn", component: name, message });
          },
        });
        return {
          scores: r.scores.map((s) => s.score),
          explanations: r.scores.map((s) => s.explanation),
          details: r.scores.map((s) => `judge id ${s.trajectoryId}`),
          counters: {
            [`${name}/judge_calls`]: 1,
            [`${name}/attempts`]: r.attempts,
            [`${name}/retries`]: r.attempts - 1,
            [`${name}/deduped`]: lists.length - r.judged,
          },
        };
      } catch (e) {
        const message = scrub(e instanceof Error ? e.message : String(e), o.judge.apiKey);
        return {
          missing: message,
          counters: { [`${name}/judge_calls`]: 1, [`${name}/attempts`]: retries + 1, [`${name}/retries`]: retries },
        };
      }
    },
  };
}
