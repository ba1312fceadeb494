/**
 * The serve step loop: a batch of sequences, each from its prompt to EOS, a stop string or its
 * max_tokens, on any StepEngine; finished rows leave the batch. Per step and row it reads the
 * logits, optionally masks them (JSON constraint), draws the
 * token with the shared sampler helpers (sampling.ts: temperature, top-k, top-p, a seeded
 * per-choice stream `Rng(seed, index)`), and records the token's log-probability and the top
 * alternatives under the model's own (raw, unmasked) distribution, as vLLM reports them.
 *
 * Conventions: the EOS token ends the sequence and is not part of the ids, text, logprobs or
 * usage; a stop string ends it and is cut from the text (OpenAI's `stop`); special tokens are
 * left out of the text (vLLM's skip_special_tokens default).
 */
import { logSumExp, pickToken, Rng, StopMatcher, type PickOptions } from "../policy/sampling.js";
import { ApiError } from "./api-error.js";
import type { StepEngine } from "./engine.js";

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

interface Row {
  p: GenerateParams;
  ids: number[];
  logprobs: TokenLogprob[] | null;
  rng: Rng;
  stop: StopMatcher;
  maxNew: number;
  finish: GenerateResult["finish"] | null;
}

/** Generates every sequence in `params` as one batch (the engine's batch rows). */
export async function generateBatch(engine: StepEngine, codec: TextCodec, params: GenerateParams[]): Promise<GenerateResult[]> {
  if (engine.closed) throw new ApiError(404, "the model was unloaded while this request waited", "invalid_request_error", "model", "model_not_found");
  const cfg = engine.config;
  const V = cfg.vocabSize;
  const eos = new Set(codec.eosTokenIds.length ? codec.eosTokenIds : cfg.eosTokenIds);
  const decode = (x: number[]) => codec.decode(x, { skipSpecial: true });
  const rows: Row[] = params.map((p) => ({
    p,
    ids: [],
    logprobs: p.topLogprobs === null ? null : [],
    rng: new Rng(p.seed, p.index),
    stop: new StopMatcher(p.stop, decode),
    maxNew: Math.max(0, Math.min(p.maxTokens, cfg.maxPositions - p.prompt.length)),
    finish: null,
  }));
  for (const r of rows) if (r.maxNew === 0) r.finish = "length";
  let live = rows.filter((r) => r.finish === null);
  if (live.length > 0) {
    const session = await engine.start(live.map((r) => r.p.prompt));
    try {
      for (;;) {
        const logits = session.logits; // [rows, V]
        const tokens: number[] = [];
        const keep: number[] = [];
        live.forEach((r, i) => {
          const step = r.ids.length;
          if (r.p.aborted?.()) return void (r.finish = "length");
          const row = logits.subarray(i * V, (i + 1) * V); // [V]
          const c = r.p.constraint;
          const opts = { temperature: r.p.temperature, topK: r.p.topK, topP: r.p.topP };
          const token = c ? c.pick(row, opts, r.rng, r.maxNew - step) : pickToken(row, opts, r.rng).token;
          if (eos.has(token)) return void (r.finish = "stop");
          c?.advance(token);
          r.ids.push(token);
          if (r.logprobs) {
            const lse = logSumExp(row);
            r.logprobs.push({ id: token, logprob: Math.min(0, row[token] - lse), top: r.p.topLogprobs ? topK(row, r.p.topLogprobs, lse) : [] });
          }
          r.p.onToken?.(r.ids, r.logprobs ? r.logprobs[r.logprobs.length - 1] : null);
          // a stop string, a whole JSON document (its forced EOS would cost one more forward), or the budget
          if (r.stop.push(token) !== null || c?.done) return void (r.finish = "stop");
          if (r.ids.length >= r.maxNew) return void (r.finish = "length");
          keep.push(i);
          tokens.push(token);
        });
        if (keep.length === 0) break;
        live = keep.map((i) => live[i]);
        await session.step(keep, tokens);
      }
    } finally {
      session.dispose();
    }
  }
  return rows.map((r) => {
    let text = decode(r.ids);
    if (r.stop.matched !== null) text = text.slice(0, text.indexOf(r.stop.matched));
    return { ids: r.ids, text, finish: r.finish ?? "length", logprobs: r.logprobs };
  });
}
