/**
 * Constrained decoding for `response_format` json_schema / json_object: at each step the logits
 * of every token that would take the text out of the schema's language are masked, then the
 * usual sampler (sampling.ts `pickToken`: temperature, top-k, top-p, seeded) draws from what is
 * left. Each token's text is decoded once per tokenizer (`TokenTexts`); special tokens, empty
 * tokens and tokens holding a partial UTF-8 character are never allowed inside the document.
 *
 * Small vocabularies (the default model's 2,048) are checked token by token every step. Large
 * ones are checked lazily, in order of logit, until enough tokens pass (the first for greedy,
 * LAZY_KEEP for sampling: the masked distribution is renormalized over those), as llguidance
 * does for its slow path. When the remaining token budget comes down to the tokens needed to
 * write the shortest completion (with the longest tokens that fit), that completion is written,
 * so a document always closes within max_tokens when it can at all. Near that point a token is
 * allowed only if the document can still close after it. The check costs a completion per token,
 * so the full-scan path checks only the tokens it draws (one that cannot is dropped and another
 * drawn; after a few, the rest at once), and once no token can leave room it writes the
 * completion directly. When the document is whole, EOS is forced.
 */
import { pickToken, type PickOptions, type Rng } from "../policy/sampling.js";
import { ApiError } from "./api-error.js";
import { JsonState } from "./json-automaton.js";
import type { SchemaNode } from "./schema-node.js";

/** Below this vocabulary size every token is tested at every step. */
const FULL_SCAN_LIMIT = 8192;
/** Lazy path: how many accepted tokens to gather before sampling, and how many to test at most. */
const LAZY_KEEP = 64;
const LAZY_TEST = 2048;
/** Candidates are checked against the token budget when it is within this many tokens of the need. */
const BUDGET_WINDOW = 32;
/** Near the budget: tokens drawn and checked one by one before the rest are checked at once. */
const REDRAWS = 4;

/** Decoded text of every token id, or null for ids never allowed in constrained output. */
export class TokenTexts {
  /** an id for each distinct allowed text, and the longest text's length */
  private readonly byText = new Map<string, number>();
  private readonly maxLen: number;

  constructor(readonly texts: ReadonlyArray<string | null>) {
    let maxLen = 0;
    texts.forEach((t, id) => {
      if (t === null || this.byText.has(t)) return;
      this.byText.set(t, id);
      maxLen = Math.max(maxLen, t.length);
    });
    this.maxLen = maxLen;
  }

  /** The token with the longest text that starts `s` (null if none). */
  longestPrefix(s: string): number | null {
    for (let L = Math.min(this.maxLen, s.length); L > 0; L--) {
      const id = this.byText.get(s.slice(0, L));
      if (id !== undefined) return id;
    }
    return null;
  }

  /** Tokens needed to write `s` taking the longest matching token each time (null: impossible). */
  greedyCount(s: string): number | null {
    let n = 0;
    for (let i = 0; i < s.length; n++) {
      const id = this.longestPrefix(s.slice(i));
      if (id === null) return null;
      i += (this.texts[id] as string).length;
    }
    return n;
  }

  static build(vocabSize: number, decode: (id: number) => string, isSpecial: (id: number) => boolean): TokenTexts {
    const texts: Array<string | null> = new Array(vocabSize).fill(null);
    for (let id = 0; id < vocabSize; id++) {
      if (isSpecial(id)) continue;
      let t: string;
      try {
        t = decode(id);
      } catch {
        continue; // ids past the tokenizer's vocabulary (a padded embedding)
      }
      if (t.length > 0 && !t.includes("\uFFFD")) texts[id] = t;
    }
    return new TokenTexts(texts);
  }
}

/** What the constraint needs of a state: JsonState, or a document framed by fixed text. */
interface TextState {
  feed(text: string): TextState | null;
  readonly done: boolean;
  readonly canEnd: boolean;
  completion(): string | null;
  freeStringAccepts(text: string): boolean | null;
}

/** A JSON document between a fixed prefix and suffix (e.g. `<tool_call>\n` ... `\n</tool_call>`). */
class FramedState implements TextState {
  constructor(
    private readonly prefix: string, // still to write before the document
    private readonly json: JsonState,
    private readonly suffix: string, // still to write after it
  ) {}

  feed(text: string): FramedState | null {
    let { prefix, json, suffix } = this;
    for (const c of text) {
      if (prefix.length > 0) {
        if (!prefix.startsWith(c)) return null;
        prefix = prefix.slice(c.length);
      } else if (!json.done) {
        const next = json.feed(c);
        if (!next) return null;
        json = next;
      } else {
        if (!suffix.startsWith(c)) return null;
        suffix = suffix.slice(c.length);
      }
    }
    return new FramedState(prefix, json, suffix);
  }

  get done(): boolean {
    return this.prefix === "" && this.json.done && this.suffix === "";
  }

  get canEnd(): boolean {
    return this.done;
  }

  completion(): string | null {
    const c = this.json.completion();
    return c === null ? null : this.prefix + c + this.suffix;
  }

  freeStringAccepts(text: string): boolean | null {
    return this.prefix === "" && !this.json.done ? this.json.freeStringAccepts(text) : null;
  }
}

export interface ConstraintFrame {
  prefix: string;
  suffix: string;
}

export class JsonConstraint {
  private state: TextState;
  /** the text written so far, for error messages */
  private written = "";

  constructor(
    node: SchemaNode,
    private readonly tokens: TokenTexts,
    private readonly eosIds: readonly number[],
    /** fixed text around the document (default none) */
    frame?: ConstraintFrame,
  ) {
    this.state = frame ? new FramedState(frame.prefix, JsonState.start(node), frame.suffix) : JsonState.start(node);
  }

  get done(): boolean {
    return this.state.done;
  }

  /** Chooses the next token; `remaining` counts the tokens left including this one. */
  pick(logits: Float32Array, opts: PickOptions, rng: Rng, remaining: number): number {
    const V = logits.length;
    if (this.state.done) return this.eosIds[0] ?? 0;
    // budget: after this token, the shortest completion (written with the longest tokens that
    // fit) must still fit in what is left, one token kept for the EOS. Checked per candidate only
    // near the end, where one token can make the difference.
    const completion = this.state.completion();
    const need = completion === null ? null : this.tokens.greedyCount(completion);
    const tight = need !== null && remaining <= need + BUDGET_WINDOW;
    // past saving (a token moves the shortest completion on by about one of its tokens): no token
    // can leave room to close, so write that completion as fast as possible without checking each
    if (need !== null && need >= remaining && completion) {
      const id = this.tokens.longestPrefix(completion);
      if (id !== null) return id;
    }
    const fits = (next: TextState): boolean => {
      if (next.done) return true;
      const c = next.completion();
      const n = c === null ? null : this.tokens.greedyCount(c);
      return n !== null && n + 1 <= remaining - 1;
    };
    // a token whose first character is refused is refused: test each first character once
    const firstOk = new Map<number, boolean>();
    const accept = (id: number, budget: boolean): boolean => {
      const t = id < this.tokens.texts.length ? this.tokens.texts[id] : null;
      if (t === null) return false;
      const cp = t.codePointAt(0) as number;
      let ok = firstOk.get(cp);
      if (ok === undefined) firstOk.set(cp, (ok = this.state.feed(String.fromCodePoint(cp)) !== null));
      if (!ok) return false;
      const fast = this.state.freeStringAccepts(t);
      if (fast !== null) return fast && (!budget || (need as number) + 1 <= remaining - 1);
      const next = this.state.feed(t);
      return next !== null && (!budget || fits(next));
    };
    const eosOk = this.state.canEnd;
    const masked = new Float32Array(V).fill(-Infinity);
    let any = false;
    const allow = (id: number) => {
      masked[id] = logits[id];
      any = true;
    };
    if (eosOk) for (const e of this.eosIds) if (e < V) allow(e);
    const greedy = opts.temperature === 0 || opts.topK === 1;
    if (V <= FULL_SCAN_LIMIT) {
      for (let id = 0; id < V; id++) if (accept(id, false)) allow(id);
      if (tight && any) {
        // the budget check costs a completion per token: check only the tokens drawn, dropping
        // each that does not fit and drawing again (the same as drawing from those that fit);
        // after a few misses, check the rest all at once
        const eos = new Set(this.eosIds);
        let left = masked.reduce((k, x) => (x === -Infinity ? k : k + 1), 0);
        for (let draw = 0; draw < REDRAWS && left > 0; draw++, left--) {
          const id = pickToken(masked, opts, rng).token;
          if (eos.has(id) || accept(id, true)) return id;
          masked[id] = -Infinity;
        }
        any = false;
        for (let id = 0; id < V; id++) {
          if (masked[id] === -Infinity) continue;
          if (eos.has(id) || accept(id, true)) any = true;
          else masked[id] = -Infinity;
        }
      }
    } else {
      const want = greedy ? 1 : Math.max(LAZY_KEEP, opts.topK);
      let kept = 0;
      // the best LAZY_TEST ids first; the whole sorted vocabulary only if none of them fits
      for (const order of [topIds(logits, LAZY_TEST), null]) {
        const ids = order ?? Array.from({ length: V }, (_, i) => i).sort((a, b) => logits[b] - logits[a] || a - b);
        for (let j = 0; j < ids.length && kept < want; j++) {
          if (accept(ids[j], tight)) {
            allow(ids[j]);
            kept++;
          }
        }
        if (kept > 0) break;
      }
    }
    if (!any) {
      // nothing fits the budget: write the shortest completion as fast as possible
      const id = completion ? this.tokens.longestPrefix(completion) : null;
      if (id !== null) return id;
      // no token continues the document at all: an error, never an unfinished document reported as "stop"
      throw new ApiError(
        500,
        `constrained decoding: no token of this model's vocabulary continues the JSON document here (${JSON.stringify(this.written.slice(-40))}); ` +
          "the schema asks for text the vocabulary cannot write",
        "server_error",
        "response_format",
      );
    }
    return pickToken(masked, opts, rng).token;
  }

  /** Moves the state past text already written (false, and no change, when it does not fit). */
  feedText(text: string): boolean {
    const next = this.state.feed(text);
    if (next) [this.state, this.written] = [next, this.written + text];
    return next !== null;
  }

  /** Moves the state past the chosen token (EOS leaves it unchanged). */
  advance(id: number): void {
    if (this.eosIds.includes(id)) return;
    const t = this.tokens.texts[id];
    const next = t == null ? null : this.state.feed(t);
    if (!next) throw new Error(`constrained decoding: token ${id} (${JSON.stringify(t)}) does not fit the schema`);
    this.state = next;
    this.written += t;
  }
}

/** The ids of the k largest logits, best first (a bounded min-heap: O(V log k)). */
function topIds(logits: Float32Array, k: number): number[] {
  const heap: number[] = [];
  const less = (a: number, b: number) => logits[a] < logits[b] || (logits[a] === logits[b] && a > b);
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1, r = l + 1;
      let m = i;
      if (l < heap.length && less(heap[l], heap[m])) m = l;
      if (r < heap.length && less(heap[r], heap[m])) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  };
  for (let id = 0; id < logits.length; id++) {
    if (heap.length < k) {
      heap.push(id);
      for (let i = heap.length - 1; i > 0; ) {
        const p = (i - 1) >> 1;
        if (!less(heap[i], heap[p])) break;
        [heap[i], heap[p]] = [heap[p], heap[i]];
        i = p;
      }
    } else if (less(heap[0], id)) {
      heap[0] = id;
      down(0);
    }
  }
  return heap.sort((a, b) => logits[b] - logits[a] || a - b);
}
