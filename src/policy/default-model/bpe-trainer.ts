/**
 * A small, deterministic byte-level BPE trainer that writes a Hugging Face `tokenizer.json`
 * (so the policy loads it through the same @huggingface/tokenizers path as any hub model;
 * that library only encodes, it cannot train). The algorithm is Sennrich et al.'s BPE over
 * GPT-2 byte-level symbols, as the Rust `tokenizers` BpeTrainer does: count the words the
 * pre-tokenizer produces, then repeatedly merge the most frequent adjacent pair (ties broken by
 * the pair's strings, so the output depends on the corpus alone), updating only the words that
 * hold the merged pair.
 *
 * The pre-tokenizer is the library's own (Digits with individual_digits, then ByteLevel with the
 * GPT-2 regex), run on the corpus here, so training sees exactly the words encoding will see.
 * Special tokens are added tokens: the corpus is split on them before counting.
 */
import { Tokenizer } from "@huggingface/tokenizers";

export interface SpecialToken {
  content: string;
  /** special tokens are dropped by decode(skipSpecial); tag tokens like <tool_call> are not */
  special: boolean;
}

export interface BpeTrainOptions {
  /** total vocabulary: added tokens + 256 bytes + merges (default 2048) */
  vocabSize?: number;
  /** stop merging when the best pair occurs fewer times than this (default 2) */
  minFrequency?: number;
  specialTokens: SpecialToken[];
}

/** GPT-2's byte → printable-character table (bytes_to_unicode), as ByteLevel uses it. */
export function byteLevelAlphabet(): string[] {
  const bs: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) bs.push(b);
  for (let b = 0xa1; b <= 0xac; b++) bs.push(b);
  for (let b = 0xae; b <= 0xff; b++) bs.push(b);
  const cs = [...bs];
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (!bs.includes(b)) {
      bs.push(b);
      cs.push(256 + n++);
    }
  }
  const table = new Array<string>(256);
  bs.forEach((b, i) => (table[b] = String.fromCharCode(cs[i])));
  return table;
}

/** The pre-tokenizer the default tokenizer uses: digits one by one, then GPT-2 byte-level words. */
export const PRE_TOKENIZER = {
  type: "Sequence",
  pretokenizers: [
    { type: "Digits", individual_digits: true },
    { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: true },
  ],
};

/** A tokenizer.json around a vocabulary and merges (the shape the Rust crate writes). */
export function tokenizerJson(specials: SpecialToken[], vocab: Map<string, number>, merges: Array<[string, string]>): Record<string, unknown> {
  return {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: specials.map((t, id) => ({
      id,
      content: t.content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: t.special,
    })),
    // no normalizer: every string must round-trip byte for byte
    normalizer: null,
    pre_tokenizer: PRE_TOKENIZER,
    post_processor: null,
    decoder: { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: true },
    model: {
      type: "BPE",
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab: Object.fromEntries(vocab),
      merges: merges.map(([a, b]) => `${a} ${b}`),
    },
  };
}

/** Counts pre-tokenized words over the corpus, splitting out special tokens first. */
function countWords(texts: Iterable<string>, specials: SpecialToken[]): Map<string, number> {
  const alphabet = byteLevelAlphabet();
  const base = new Map<string, number>(alphabet.map((c, i) => [c, i]));
  const probe = new Tokenizer(tokenizerJson([], base, []), {});
  const pre = probe.pre_tokenizer;
  if (!pre) throw new Error("bpe-trainer: the pre-tokenizer did not load");
  const escaped = specials.map((s) => s.content.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const splitter = escaped.length > 0 ? new RegExp(escaped.join("|"), "g") : null;
  const counts = new Map<string, number>();
  for (const text of texts) {
    const pieces = splitter ? text.split(splitter) : [text];
    for (const piece of pieces) {
      if (piece.length === 0) continue;
      for (const w of pre.pre_tokenize_text(piece)) counts.set(w, (counts.get(w) ?? 0) + 1);
    }
  }
  return counts;
}

export interface BpeTrainResult {
  tokenizerJson: Record<string, unknown>;
  merges: number;
  vocabSize: number;
  words: number;
}

export function trainByteLevelBpe(texts: Iterable<string>, opts: BpeTrainOptions): BpeTrainResult {
  const vocabSize = opts.vocabSize ?? 2048;
  const minFrequency = opts.minFrequency ?? 2;
  const specials = opts.specialTokens;
  const alphabet = byteLevelAlphabet();
  // ids: added tokens first (as the Rust trainer does), then the 256 bytes, then merges
  const symbols: string[] = [...specials.map((s) => s.content), ...alphabet];
  const idOf = new Map<string, number>(symbols.map((s, i) => [s, i]));
  if (idOf.size !== symbols.length) throw new Error("bpe-trainer: a special token collides with a byte symbol or another special token");
  const budget = vocabSize - symbols.length;
  if (budget < 0) throw new Error(`bpe-trainer: vocabSize ${vocabSize} is smaller than ${symbols.length} (added tokens + 256 bytes)`);

  const wordCounts = countWords(texts, specials);
  // sort the words so that everything after depends on the corpus content only
  const entries = [...wordCounts.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const words: number[][] = entries.map(([w]) => [...w].map((ch) => idOf.get(ch) as number));
  const freq = entries.map(([, c]) => c);

  // pair key: left * 2^16 + right (vocab stays far below 65536)
  const key = (a: number, b: number) => a * 65536 + b;
  const pairCount = new Map<number, number>();
  const pairWords = new Map<number, Set<number>>();
  const addPairs = (wi: number, sign: 1 | -1) => {
    const w = words[wi];
    for (let j = 0; j + 1 < w.length; j++) {
      const k = key(w[j], w[j + 1]);
      pairCount.set(k, (pairCount.get(k) ?? 0) + sign * freq[wi]);
      if (sign === 1) {
        let set = pairWords.get(k);
        if (!set) pairWords.set(k, (set = new Set()));
        set.add(wi);
      }
    }
  };
  words.forEach((_, wi) => addPairs(wi, 1));

  const merges: Array<[string, string]> = [];
  // pairs whose merged string already exists under another pair (e.g. "ab"+"c" vs "a"+"bc"):
  // never picked again, so every merge adds one new token
  const banned = new Set<number>();
  while (merges.length < budget) {
    let best = -1;
    let bestCount = 0;
    for (const [k, c] of pairCount) {
      if (c < bestCount || c <= 0 || banned.has(k)) continue;
      if (c > bestCount || tieBefore(k, best)) {
        best = k;
        bestCount = c;
      }
    }
    if (best < 0 || bestCount < minFrequency) break;
    const a = Math.floor(best / 65536);
    const b = best % 65536;
    const merged = symbols[a] + symbols[b];
    if (idOf.has(merged)) {
      banned.add(best);
      continue;
    }
    const id = symbols.length;
    symbols.push(merged);
    idOf.set(merged, id);
    merges.push([symbols[a], symbols[b]]);
    const touched = [...(pairWords.get(best) ?? [])].sort((x, y) => x - y);
    for (const wi of touched) {
      const w = words[wi];
      addPairs(wi, -1);
      const out: number[] = [];
      for (let j = 0; j < w.length; j++) {
        if (j + 1 < w.length && w[j] === a && w[j + 1] === b) {
          out.push(id);
          j++;
        } else out.push(w[j]);
      }
      words[wi] = out;
      addPairs(wi, 1);
    }
    pairCount.delete(best);
    pairWords.delete(best);
  }

  function tieBefore(k: number, current: number): boolean {
    if (current < 0) return true;
    const ka = symbols[Math.floor(k / 65536)], kb = symbols[k % 65536];
    const ca = symbols[Math.floor(current / 65536)], cb = symbols[current % 65536];
    return ka < ca || (ka === ca && kb < cb);
  }

  // the model vocab holds bytes and merges; added tokens live in added_tokens (and the vocab,
  // as the Rust trainer writes them too)
  const vocab = new Map<string, number>(symbols.map((s, i) => [s, i]));
  return { tokenizerJson: tokenizerJson(specials, vocab, merges), merges: merges.length, vocabSize: symbols.length, words: entries.length };
}
