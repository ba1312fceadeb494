/**
 * Engine-agnostic sampling helpers over plain Float32Array logits: a seedable random source
 * whose state can be saved with a checkpoint, one-token selection (greedy, temperature, top-k,
 * top-p), and a stop-string matcher. Every engine (tfjs, onnxruntime) hands its last-position
 * logits here, so the same seed gives the same tokens whatever computed the logits.
 *
 * The order of the filters follows Hugging Face transformers' logits warpers (temperature, then
 * top-k, then top-p on the renormalized distribution; at least one token kept). The log-prob
 * returned is log softmax of the RAW logits at the chosen token, the quantity the trainer
 * recomputes from the same weights (see sampler.ts), not the probability under the warped
 * distribution. The random source is xoshiro128** (Blackman and Vigna), seeded through
 * splitmix32 so that nearby seeds give unrelated streams.
 */
import type { SampleOptions, SampleResult } from "./sampler.js";

/** Defaults for every SampleOptions field: plain sampling at temperature 1, no filtering. */
export const DEFAULT_SAMPLE_OPTIONS: Readonly<SampleOptions> = Object.freeze({
  maxTokens: 512,
  temperature: 1,
  topP: 1,
  topK: 0,
  stop: [] as string[],
  seed: 0,
});

/** Fills in missing fields with the defaults and checks the ranges, with messages. */
export function resolveSampleOptions(partial: Partial<SampleOptions> = {}): SampleOptions {
  const o: SampleOptions = { ...DEFAULT_SAMPLE_OPTIONS, stop: [...DEFAULT_SAMPLE_OPTIONS.stop], ...partial };
  const bad = (what: string, got: unknown) => {
    throw new RangeError(`sample options: ${what} (got ${JSON.stringify(got)})`);
  };
  if (!Number.isInteger(o.maxTokens) || o.maxTokens < 0) bad("maxTokens must be an integer >= 0", o.maxTokens);
  if (!Number.isFinite(o.temperature) || o.temperature < 0) bad("temperature must be a finite number >= 0", o.temperature);
  if (!(o.topP > 0 && o.topP <= 1)) bad("topP must be in (0, 1]", o.topP);
  if (!Number.isInteger(o.topK) || o.topK < 0) bad("topK must be an integer >= 0 (0 disables it)", o.topK);
  if (!Array.isArray(o.stop) || o.stop.some((s) => typeof s !== "string" || s.length === 0)) bad("stop must be non-empty strings", o.stop);
  if (!Number.isInteger(o.seed)) bad("seed must be an integer", o.seed);
  return o;
}

// ---------------------------------------------------------------------------------------------
// Random source

/** splitmix32: turns one 32-bit seed into well-mixed words for the xoshiro state. */
function splitmix32(state: { s: number }): number {
  state.s = (state.s + 0x9e3779b9) | 0;
  let z = state.s;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

/** The saved form of an Rng: four unsigned 32-bit words. */
export type RngState = [number, number, number, number];

/** xoshiro128**: small, fast, good statistical quality, state saveable for resume. */
export class Rng {
  private s = new Uint32Array(4);

  /** `stream` selects an independent stream for the same seed (e.g. one per sequence). */
  constructor(seed = 0, stream = 0) {
    if (!Number.isFinite(seed) || !Number.isFinite(stream)) throw new RangeError(`Rng: seed and stream must be finite numbers (got ${seed}, ${stream})`);
    // fold both numbers (possibly > 2^32) into the mixer so (seed, stream) pairs do not collide
    const st = { s: (Math.trunc(seed) | 0) ^ Math.imul(Math.trunc(seed / 2 ** 32) | 0, 0x27d4eb2d) };
    splitmix32(st);
    st.s = (st.s ^ Math.imul((Math.trunc(stream) | 0) + 1, 0x632be5ab)) | 0;
    for (let i = 0; i < 4; i++) this.s[i] = splitmix32(st);
    // the all-zero state is the one fixed point of xoshiro; splitmix makes it practically
    // impossible, but be certain
    if ((this.s[0] | this.s[1] | this.s[2] | this.s[3]) === 0) this.s[0] = 1;
  }

  /** Next unsigned 32-bit word. */
  nextUint32(): number {
    const s = this.s;
    const x = Math.imul(s[1], 5);
    const result = Math.imul((x << 7) | (x >>> 25), 9) >>> 0;
    const t = s[1] << 9;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 11) | (s[3] >>> 21);
    return result;
  }

  /** Uniform in [0, 1) with 53 random bits. */
  next(): number {
    const hi = this.nextUint32() >>> 5; // 27 bits
    const lo = this.nextUint32() >>> 6; // 26 bits
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  getState(): RngState {
    return [this.s[0], this.s[1], this.s[2], this.s[3]];
  }

  setState(state: readonly number[]): void {
    if (state.length !== 4 || state.some((w) => !Number.isInteger(w) || w < 0 || w > 0xffffffff)) {
      throw new RangeError(`Rng.setState: expected 4 unsigned 32-bit integers, got ${JSON.stringify(state)}`);
    }
    if (state.every((w) => w === 0)) throw new RangeError("Rng.setState: the all-zero state is invalid for xoshiro128**");
    for (let i = 0; i < 4; i++) this.s[i] = state[i];
  }

  static fromState(state: readonly number[]): Rng {
    const r = new Rng(0);
    r.setState(state);
    return r;
  }
}

// ---------------------------------------------------------------------------------------------
// Token selection

/** The filters of one draw; SampleOptions carries the same fields. */
export interface PickOptions {
  /** 0 means greedy argmax (ties go to the lowest id) */
  temperature: number;
  /** 0 disables top-k */
  topK: number;
  /** 1 disables nucleus filtering */
  topP: number;
}

export interface PickedToken {
  token: number;
  /** log softmax of the raw logits at `token` (before temperature and filtering) */
  logprob: number;
}

/** A NaN logit is treated as -Infinity: it can never be chosen. */
function clean(x: number): number {
  return x === x ? x : -Infinity;
}

/** Index of the largest logit; ties go to the lowest id; NaN never wins. Throws when none is finite-or-+Inf. */
export function argmax(logits: Float32Array): number {
  let best = -1;
  let bestV = -Infinity;
  for (let i = 0; i < logits.length; i++) {
    const v = logits[i];
    if (v > bestV) {
      bestV = v;
      best = i;
    }
  }
  if (best < 0) throw new RangeError(`argmax: all ${logits.length} logits are -Infinity or NaN`);
  return best;
}

/** log(sum(exp(logits))), stable (shifted by the max); NaN entries are ignored. */
export function logSumExp(logits: Float32Array): number {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) if (logits[i] > max) max = logits[i];
  if (max === -Infinity) return -Infinity;
  if (max === Infinity) return Infinity;
  let sum = 0;
  for (let i = 0; i < logits.length; i++) {
    const v = logits[i];
    if (v === v) sum += Math.exp(v - max);
  }
  return max + Math.log(sum);
}

/** log softmax of the logits at one id. */
export function logSoftmaxAt(logits: Float32Array, id: number): number {
  const lse = logSumExp(logits);
  const v = clean(logits[id]);
  if (lse === Infinity) return v === Infinity ? 0 : -Infinity; // degenerate: +Inf logits
  return v - lse;
}

/**
 * Chooses one token. `logits` is one row (use `subarray` for a row of a batch: no copy).
 * Cost: one pass of exp over the vocabulary (two at temperature != 1), plus O(V log k) for
 * top-k or a sort of the few nucleus candidates for top-p; greedy allocates nothing.
 */
export function pickToken(logits: Float32Array, opts: PickOptions, rng: Rng): PickedToken {
  const V = logits.length;
  if (V === 0) throw new RangeError("pickToken: empty logits");
  const best = argmax(logits); // throws when nothing can be chosen
  const max = logits[best];
  const greedy = opts.temperature === 0 || opts.topK === 1;
  if (!greedy && (!(opts.temperature > 0) || !Number.isFinite(opts.temperature))) {
    throw new RangeError(`pickToken: temperature must be >= 0 and finite (got ${opts.temperature})`);
  }
  if (max === Infinity) {
    // degenerate logits: the +Inf entries share all the mass; take the first one
    return { token: best, logprob: logSoftmaxAt(logits, best) };
  }
  // log softmax of the raw logits needs sum(exp(l - max)); at temperature 1 the sampling
  // weights are the same numbers, so one pass of exp serves both
  const invT = greedy ? 1 : 1 / opts.temperature;
  const needWeights = !greedy;
  const w = needWeights ? new Float64Array(V) : null;
  let zRaw = 0;
  let z = 0;
  for (let i = 0; i < V; i++) {
    const v = logits[i];
    if (v !== v) continue; // NaN: weight 0
    const d = v - max;
    const e = Math.exp(d);
    zRaw += e;
    if (w) {
      const ew = invT === 1 ? e : Math.exp(d * invT);
      w[i] = ew;
      z += ew;
    }
  }
  const lse = max + Math.log(zRaw);
  const logprobOf = (id: number) => clean(logits[id]) - lse;
  if (!w) return { token: best, logprob: logprobOf(best) };

  const topK = opts.topK > 0 && opts.topK < V ? opts.topK : 0;
  const topP = opts.topP;
  if (topK === 0 && !(topP < 1)) {
    // unfiltered: walk to the draw over the ids in order (no sorting)
    const token = walk(w, null, V, z, rng.next());
    return { token, logprob: logprobOf(token) };
  }

  // candidate set, sorted by weight (descending, ties by id): the top k, or for top-p alone
  // only the tokens that can belong to the nucleus
  let cand: number[];
  if (topK > 0) {
    cand = topKIndices(w, topK);
  } else {
    // Any token whose weight is below eps*z can be left out if the tokens above it already hold
    // at least topP of the mass: the nucleus is a prefix of the sorted order, and that prefix
    // reaches topP before reaching them. Otherwise fall back to every nonzero token.
    const eps = 1e-7;
    cand = [];
    let above = 0;
    for (let i = 0; i < V; i++) {
      if (w[i] >= eps * z) {
        cand.push(i);
        above += w[i];
      }
    }
    if (above < topP * z) {
      cand = [];
      for (let i = 0; i < V; i++) if (w[i] > 0) cand.push(i);
    }
    cand.sort((a, b) => w[b] - w[a] || a - b);
  }
  // renormalize over the top-k set (as HF does before top-p), then cut the nucleus
  let zk = 0;
  for (const i of cand) zk += w[i];
  let n = cand.length;
  if (topP < 1) {
    let cum = 0;
    n = 0;
    const target = topP * zk;
    while (n < cand.length) {
      cum += w[cand[n]];
      n++;
      if (cum >= target) break;
    }
    n = Math.max(1, n);
  }
  let zn = 0;
  for (let j = 0; j < n; j++) zn += w[cand[j]];
  const token = walk(w, cand, n, zn, rng.next());
  return { token, logprob: logprobOf(token) };
}

/** Inverse-CDF draw over `count` entries (ids from `order` or 0..count-1). */
function walk(w: Float64Array, order: number[] | null, count: number, z: number, u: number): number {
  const target = u * z;
  let cum = 0;
  let last = -1;
  for (let j = 0; j < count; j++) {
    const id = order ? order[j] : j;
    if (w[id] <= 0) continue;
    last = id;
    cum += w[id];
    if (target < cum) return id;
  }
  // rounding left `target` a hair above the summed mass: the last positive entry
  if (last < 0) throw new RangeError("pickToken: no token has positive probability");
  return last;
}

/** Indices of the k largest weights, sorted descending (ties by lower id), via a min-heap. */
function topKIndices(w: Float64Array, k: number): number[] {
  // "a is worse than b": smaller weight, or equal weight and larger id
  const worse = (a: number, b: number) => w[a] < w[b] || (w[a] === w[b] && a > b);
  const heap: number[] = [];
  const siftUp = (i: number) => {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!worse(heap[i], heap[p])) break;
      [heap[i], heap[p]] = [heap[p], heap[i]];
      i = p;
    }
  };
  const siftDown = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && worse(heap[l], heap[m])) m = l;
      if (r < heap.length && worse(heap[r], heap[m])) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  };
  for (let i = 0; i < w.length; i++) {
    if (heap.length < k) {
      heap.push(i);
      siftUp(heap.length - 1);
    } else if (worse(heap[0], i)) {
      heap[0] = i;
      siftDown(0);
    }
  }
  return heap.sort((a, b) => w[b] - w[a] || a - b);
}

// ---------------------------------------------------------------------------------------------
// Stop strings

/**
 * Tells, after each new token, whether the decoded completion now contains one of the stop
 * strings. Only a tail window is decoded: a stop string that appeared earlier would have stopped
 * generation then, so any new match must overlap the newest token's text, and the window holds
 * that token plus enough tokens before it for the longest stop string (4 tokens per character:
 * a byte-level token may carry a single byte of a 4-byte character).
 */
export class StopMatcher {
  private readonly stops: string[];
  private readonly window: number;
  private readonly tokens: number[] = [];
  /** the stop string that matched, once one has */
  matched: string | null = null;

  constructor(stops: readonly string[], private readonly decode: (ids: number[]) => string) {
    this.stops = stops.filter((s) => s.length > 0);
    const longest = this.stops.reduce((m, s) => Math.max(m, s.length), 0);
    this.window = 4 * longest + 1;
  }

  /** Adds one generated token; returns the stop string it completed, or null. */
  push(id: number): string | null {
    this.tokens.push(id);
    if (this.matched !== null || this.stops.length === 0) return this.matched;
    const tail = this.decode(this.tokens.slice(-this.window));
    for (const s of this.stops) {
      if (tail.includes(s)) {
        this.matched = s;
        break;
      }
    }
    return this.matched;
  }

  /** The tokens pushed so far. */
  get ids(): readonly number[] {
    return this.tokens;
  }

  reset(): void {
    this.tokens.length = 0;
    this.matched = null;
  }
}

// ---------------------------------------------------------------------------------------------
// One sequence's generation bookkeeping

/**
 * What every engine does per sequence between forward passes: draw the token from the logits,
 * record its log-prob, and decide whether the sequence is finished (an EOS id, a stop string,
 * or maxTokens), so the tfjs and onnxruntime samplers share one definition of SampleResult.
 * Each sequence owns its random stream (`new Rng(seed, index)`): the tokens of sequence i do not
 * depend on what else is in the batch. The EOS token, when drawn, is kept in `ids` (the trainer
 * must learn to end the turn) but left out of `text`.
 */
export class SequenceSampler {
  readonly ids: number[] = [];
  readonly logprobs: number[] = [];
  finish: SampleResult["finish"] | null = null;
  private readonly rng: Rng;
  private readonly stop: StopMatcher;
  private readonly eos: Set<number>;

  constructor(
    private readonly opts: SampleOptions,
    eosTokenIds: readonly number[],
    private readonly decode: (ids: number[]) => string,
    /** the sequence's index in the request, selecting its random stream */
    index: number,
  ) {
    this.rng = new Rng(opts.seed, index);
    this.stop = new StopMatcher(opts.stop, decode);
    this.eos = new Set(eosTokenIds);
    if (opts.maxTokens === 0) this.finish = "length";
  }

  get done(): boolean {
    return this.finish !== null;
  }

  /** Draws the next token from this sequence's last-position logits; returns it. */
  step(logits: Float32Array): number {
    if (this.finish !== null) throw new Error("SequenceSampler.step: the sequence is already finished");
    const { token, logprob } = pickToken(logits, this.opts, this.rng);
    this.ids.push(token);
    this.logprobs.push(logprob);
    if (this.eos.has(token)) this.finish = "eos";
    else if (this.stop.push(token) !== null) this.finish = "stop";
    else if (this.ids.length >= this.opts.maxTokens) this.finish = "length";
    return token;
  }

  /** The random stream's state, to save with a checkpoint mid-generation. */
  rngState(): RngState {
    return this.rng.getState();
  }

  result(): SampleResult {
    const body = this.finish === "eos" ? this.ids.slice(0, -1) : this.ids;
    return { ids: [...this.ids], text: this.decode(body), logprobs: [...this.logprobs], finish: this.finish ?? "length" };
  }
}
