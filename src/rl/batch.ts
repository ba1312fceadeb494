/**
 * From trajectories to the [B, T−1] arrays the losses take, with the one-token shift in one
 * place: the policy's `tokenLogprobs(ids)` returns, at column t, log p(ids[t+1] | ids[≤t]), so
 * the assistant mask and the sampler's log-probs (both per token of `tokenIds`) drop their
 * first element. Rows are right-padded with 0 (mask 0) to the longest. Plain arrays: the caller
 * turns them into tensors inside its own tidy.
 */
import type { Trajectory } from "../rollout/trajectory.js";

export interface LossBatch {
  /** token ids per row, unpadded (what tokenLogprobs takes) */
  ids: number[][];
  /** [B, T−1] 1 where the policy sampled token t+1 */
  mask: number[][];
  /** [B, T−1] sampler log-prob of token t+1 (0 where the mask is 0) */
  samplerLogp: number[][];
  /** [B] the completion hit the token limit (for mask_truncated_completions) */
  truncated: boolean[];
  /** Σ mask, counted before any truncation masking (TRL's num_items_in_batch share) */
  tokens: number;
}

/** rows of different lengths right-padded with 0 to `width` (the losses' [B, T−1]) */
export function padRows(rows: readonly (readonly number[])[], width: number): number[][] {
  return rows.map((r) => [...r, ...new Array<number>(Math.max(0, width - r.length)).fill(0)]);
}

type Sequence = Pick<Trajectory, "tokenIds" | "assistantMask" | "sampleLogprobs" | "finish">;

/** `t` cut to the model's context (`maxTokens` positions): a tool result longer than the context
 *  leaves a rollout the trainer cannot run whole. What is cut was never the policy's to predict
 *  within the context, so the rest trains as sampled; the row counts as truncated. */
export function clipToContext<T extends Sequence>(t: T, maxTokens: number): T {
  if (t.tokenIds.length <= maxTokens) return t;
  return { ...t, tokenIds: t.tokenIds.slice(0, maxTokens), assistantMask: t.assistantMask.slice(0, maxTokens), sampleLogprobs: t.sampleLogprobs.slice(0, maxTokens), finish: "max_tokens" };
}

export function lossBatch(trajectories: readonly Pick<Trajectory, "tokenIds" | "assistantMask" | "sampleLogprobs" | "finish">[]): LossBatch {
  if (trajectories.length === 0) throw new RangeError("lossBatch: no trajectories");
  const width = Math.max(...trajectories.map((t) => t.tokenIds.length)) - 1;
  if (width < 1) throw new RangeError("lossBatch: trajectories need at least 2 tokens");
  const pad = (xs: readonly number[]) => padRows([xs], width)[0];
  let tokens = 0;
  const mask = trajectories.map((t, i) => {
    if (t.assistantMask.length !== t.tokenIds.length || t.sampleLogprobs.length !== t.tokenIds.length)
      throw new RangeError(
        `lossBatch: trajectory ${i} has ${t.tokenIds.length} tokens, ${t.assistantMask.length} mask entries and ${t.sampleLogprobs.length} log-probs; expected equal lengths`,
      );
    const m = pad(t.assistantMask.slice(1));
    for (const x of m) tokens += x;
    return m;
  });
  return {
    ids: trajectories.map((t) => [...t.tokenIds]),
    mask,
    samplerLogp: trajectories.map((t) => pad(t.sampleLogprobs.slice(1).map((lp, j) => (t.assistantMask[j + 1] ? lp : 0)))),
    truncated: trajectories.map((t) => t.finish === "max_tokens"),
    tokens,
  };
}
