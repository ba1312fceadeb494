/**
 * The serve step loop: a batch of sequences, each from its prompt to EOS, a stop string or its
 * max_tokens, on any StepEngine; finished rows leave the batch and get their result at once, and
 * new ones can join it between steps (continuous batching, where the engine can add rows). Per
 * step and row it reads the logits, optionally masks them (JSON constraint), draws the token
 * with the shared sampler helpers (sampling.ts: temperature, top-k, top-p, a seeded per-choice
 * stream `Rng(seed, index)`), and records the token's log-probability and the top alternatives
 * under the model's own (raw, unmasked) distribution, as vLLM reports them.
 *
 * Conventions: the EOS token ends the sequence and is not part of the ids, text, logprobs or
 * usage; a stop string ends it and is cut from the text (OpenAI's `stop`); special tokens are
 * left out of the text (vLLM's skip_special_tokens default).
 */
import { logSumExp, pickToken, Rng, StopMatcher, type PickOptions } from "../policy/sampling.js";
import { ApiError } from "./api-error.js";
import type { BatchSession, StepEngine } from "./engine.js";

/** What the loop asks of a constraint (JsonConstraint, ToolCallConstraint). */
export interface DecodeConstraint {
  /** the next token; `remaining` counts the tokens left including this one */
  pick(logits: Float32Array, opts: PickOptions, rng: Rng, remaining: number): number;
  advance(id: number): void;
  /** the output is complete: the loop stops without sampling EOS */
  readonly done: boolean;
}

export interface GenerateParams {
  prompt: number[];
  maxTokens: number;
  temperature: number;
  topP: number;
  /** 0 disables */
  topK: number;
  seed: number;
  /** the choice index: selects the random stream */
  index: number;
  stop: string[];
  /** alternatives per token to report; null = no logprobs */
  topLogprobs: number | null;
  constraint?: DecodeConstraint;
  /** called after each kept token, with all kept ids so far and its logprob entry (streaming) */
  onToken?: (ids: readonly number[], logprob: TokenLogprob | null) => void;
  /** checked every step: a closed connection stops the work */
  aborted?: () => boolean;
}

export interface TokenLogprob {
  id: number;
  logprob: number;
  top: Array<{ id: number; logprob: number }>;
}

export interface GenerateResult {
  ids: number[];
  text: string;
  finish: "stop" | "length";
  logprobs: TokenLogprob[] | null;
  /** prompt tokens that came from the engine's prefix store */
  cachedTokens: number;
}

export interface TextCodec {
  decode(ids: readonly number[], opts?: { skipSpecial?: boolean }): string;
  eosTokenIds: readonly number[];
}

function topK(logits: Float32Array, k: number, lse: number): Array<{ id: number; logprob: number }> {
  const best: number[] = [];
  for (let i = 0; i < logits.length; i++) {
    const v = logits[i];
    if (!(v === v)) continue;
    if (best.length < k) {
      best.push(i);
      best.sort((a, b) => logits[b] - logits[a] || a - b);
    } else if (v > logits[best[k - 1]]) {
      best[k - 1] = i;
      best.sort((a, b) => logits[b] - logits[a] || a - b);
    }
  }
  return best.map((id) => ({ id, logprob: logits[id] - lse }));
}

/** One sequence of a batch and where its result goes (as soon as it finishes). */
export interface BatchMember {
  params: GenerateParams;
  done(result: GenerateResult): void;
  fail(error: unknown): void;
}

interface Row {
  m: BatchMember;
  p: GenerateParams;
  ids: number[];
  logprobs: TokenLogprob[] | null;
  rng: Rng;
  stop: StopMatcher;
  maxNew: number;
  cached: number;
}

/**
 * Runs `first` as one batch of the engine's rows until every row has finished. Between steps,
 * where the engine can add rows, `admit(room)` is asked for up to `room` more members (at most
 * `maxRows` rows in all), which join the running batch (continuous batching). Each member gets
 * its result when its row finishes; an engine error fails the rows still running. Never throws.
 */
export async function runBatch(
  engine: StepEngine,
  codec: TextCodec,
  first: BatchMember[],
  join: { admit?: (room: number) => BatchMember[]; maxRows?: number } = {},
): Promise<void> {
  const { admit } = join;
  const maxRows = Math.min(join.maxRows ?? engine.maxBatch, engine.maxBatch);
  const cfg = engine.config;
  const V = cfg.vocabSize;
  const eos = new Set(codec.eosTokenIds.length ? codec.eosTokenIds : cfg.eosTokenIds);
  const decode = (x: number[]) => codec.decode(x, { skipSpecial: true });
  const finish = (r: Row, reason: GenerateResult["finish"]) => {
    let text = decode(r.ids);
    if (r.stop.matched !== null) text = text.slice(0, text.indexOf(r.stop.matched));
    r.m.done({ ids: r.ids, text, finish: reason, logprobs: r.logprobs, cachedTokens: r.cached });
  };
  /** the members' rows that have tokens to generate: the others finish at once (max_tokens 0 or
   *  a full context, or the client already gone), and a member whose row cannot be built fails alone */
  const rowsOf = (members: BatchMember[]): Row[] =>
    members.flatMap((m) => {
      const p = m.params;
      let r: Row;
      try {
        r = {
          m,
          p,
          ids: [],
          logprobs: p.topLogprobs === null ? null : [],
          rng: new Rng(p.seed, p.index),
          stop: new StopMatcher(p.stop, decode),
          maxNew: Math.max(0, Math.min(p.maxTokens, cfg.maxPositions - p.prompt.length)),
          cached: 0,
        };
      } catch (e) {
        m.fail(e);
        return [];
      }
      if (r.maxNew > 0 && !p.aborted?.()) return [r];
      finish(r, "length");
      return [];
    });
  if (engine.closed) {
    const gone = new ApiError(404, "the model was unloaded while this request waited", "invalid_request_error", "model", "model_not_found");
    for (const m of first) m.fail(gone);
    return;
  }
  let live = rowsOf(first);
  if (live.length === 0) return;
  let session: BatchSession | null = null;
  try {
    session = await engine.start(live.map((r) => r.p.prompt));
    live.forEach((r, i) => (r.cached = session?.cached?.[i] ?? 0));
    for (;;) {
      const logits = session.logits; // [rows, V]
      const tokens: number[] = [];
      const keep: number[] = [];
      live.forEach((r, i) => {
        // a row whose constraint or stream callback fails leaves the batch alone: the others go on
        try {
          const step = r.ids.length;
          if (r.p.aborted?.()) return finish(r, "length");
          const row = logits.subarray(i * V, (i + 1) * V); // [V]
          const c = r.p.constraint;
          const opts = { temperature: r.p.temperature, topK: r.p.topK, topP: r.p.topP };
          const token = c ? c.pick(row, opts, r.rng, r.maxNew - step) : pickToken(row, opts, r.rng).token;
          if (eos.has(token)) return finish(r, "stop");
          c?.advance(token);
          r.ids.push(token);
          if (r.logprobs) {
            const lse = logSumExp(row);
            r.logprobs.push({ id: token, logprob: Math.min(0, row[token] - lse), top: r.p.topLogprobs ? topK(row, r.p.topLogprobs, lse) : [] });
          }
          r.p.onToken?.(r.ids, r.logprobs ? r.logprobs[r.logprobs.length - 1] : null);
          // a stop string, a whole JSON document (its forced EOS would cost one more forward), or the budget
          if (r.stop.push(token) !== null || c?.done) return finish(r, "stop");
          if (r.ids.length >= r.maxNew) return finish(r, "length");
          keep.push(i);
          tokens.push(token);
        } catch (e) {
          r.m.fail(e);
        }
      });
      live = keep.map((i) => live[i]);
      if (live.length === 0) break;
      await session.step(keep, tokens);
      if (admit && session.join) {
        const joining = live.length < maxRows ? rowsOf(admit(maxRows - live.length)) : [];
        if (joining.length > 0) {
          live = [...live, ...joining]; // before the await: a failed join fails them too
          await session.join(joining.map((r) => r.p.prompt));
          joining.forEach((r, i) => (r.cached = session?.cached?.[i] ?? 0));
        }
      }
    }
  } catch (e) {
    for (const r of live) r.m.fail(e);
  } finally {
    session?.dispose();
  }
}
