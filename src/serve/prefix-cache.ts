/**
 * Automatic prefix caching (vLLM's idea, kept simple): the keys and values of prompts already
 * prefilled, so a prompt that starts like one of them (the same system turn and tools; the next
 * turn of a conversation, which re-sends everything before it) prefills only what is new.
 * Prefixes are matched on whole blocks of tokens; every block boundary of a stored prompt is
 * indexed by a hash of the tokens up to it, and a hit is checked token by token. Least recently
 * used prompts go first when the budget is spent. The keys and values depend on the weights, so
 * each engine (one per adapter) has its own store.
 */

/** One stored prompt: its ids and, per layer, keys and values [KVH, n, HD]. */
interface Entry {
  ids: number[];
  keys: Float32Array[];
  values: Float32Array[];
  hashes: string[];
}

export interface PrefixHit {
  /** per layer [1, KVH, capacity, HD]: the stored prompt's buffers, read in place */
  keys: Float32Array[];
  values: Float32Array[];
  /** slots in those buffers (the stored prompt's length) */
  capacity: number;
  /** how many leading tokens of the prompt they hold */
  length: number;
}

/** Hashes of ids[0 .. k*block) for k = 1, 2, ... (two 32-bit FNV-1a lanes). */
function blockHashes(ids: readonly number[], block: number, upTo: number): string[] {
  const out: string[] = [];
  let a = 0x811c9dc5, b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < upTo; i++) {
    a = Math.imul(a ^ ids[i], 0x01000193) >>> 0;
    b = Math.imul(b ^ (ids[i] + 0x9e3779b9), 0x85ebca6b) >>> 0;
    if ((i + 1) % block === 0) out.push(`${(i + 1) / block}:${a.toString(36)}:${b.toString(36)}`);
  }
  return out;
}

/** a[0 .. n) equals b[0 .. n) */
function startsWith(a: readonly number[], b: readonly number[], n: number): boolean {
  if (a.length < n || b.length < n) return false;
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class PrefixStore {
  /** stored prompts, least recently used first */
  private readonly entries = new Set<Entry>();
  /** block hash -> the stored prompts holding that block, oldest first */
  private readonly index = new Map<string, Entry[]>();
  private tokens = 0;

  constructor(
    readonly maxTokens: number,
    readonly block = 16,
  ) {}

  /** The longest stored prefix of `ids` that leaves at least one token to run (the logits of
   *  the last prompt token are needed), or null. */
  lookup(ids: readonly number[]): PrefixHit | null {
    const hashes = blockHashes(ids, this.block, ids.length - 1);
    for (let k = hashes.length; k >= 1; k--) {
      const length = k * this.block;
      // the newest holder whose tokens really match (a hash collision falls through)
      const e = this.holders(hashes[k - 1]).findLast((c) => startsWith(c.ids, ids, length));
      if (!e) continue;
      this.touch(e);
      return { keys: e.keys, values: e.values, capacity: e.ids.length, length };
    }
    return null;
  }

  /** Stores a prompt's keys and values (per layer [KVH, n, HD], n = ids.length). A stored prompt
   *  the new one extends (the previous turn of its conversation) is dropped: every block of it is
   *  now answered by the new one. */
  insert(ids: readonly number[], keys: Float32Array[], values: Float32Array[]): void {
    if (ids.length < this.block || ids.length > this.maxTokens) return;
    const hashes = blockHashes(ids, this.block, ids.length);
    // nothing new: a stored prompt already covers every token of this one
    const covering = this.holders(hashes[hashes.length - 1]).find((c) => c.ids.length >= ids.length && startsWith(c.ids, ids, ids.length));
    if (covering) {
      this.touch(covering);
      return;
    }
    for (const h of hashes) {
      for (const e of [...this.holders(h)]) if (e.ids.length <= ids.length && startsWith(ids, e.ids, e.ids.length)) this.drop(e);
    }
    const e: Entry = { ids: [...ids], keys, values, hashes };
    this.entries.add(e);
    for (const h of hashes) this.index.set(h, [...this.holders(h), e]);
    this.tokens += ids.length;
    for (const old of this.entries) {
      if (this.tokens <= this.maxTokens) break;
      this.drop(old);
    }
  }

  private touch(e: Entry): void {
    this.entries.delete(e);
    this.entries.add(e); // most recently used
  }

  private holders(hash: string): Entry[] {
    return this.index.get(hash) ?? [];
  }

  /** forgets a prompt; the blocks it shared stay findable through the others holding them */
  private drop(e: Entry): void {
    if (!this.entries.delete(e)) return;
    this.tokens -= e.ids.length;
    for (const h of e.hashes) {
      const left = this.holders(h).filter((x) => x !== e);
      if (left.length > 0) this.index.set(h, left);
      else this.index.delete(h);
    }
  }

  /** stored prompts and their tokens, for logs and tests */
  get size(): { prompts: number; tokens: number } {
    return { prompts: this.entries.size, tokens: this.tokens };
  }
}
