/**
 * Near-duplicate detection for scenario tasks: two tasks are the same when the Jaccard
 * similarity of their normalized word sets is at least a threshold (default 0.8), as in the
 * dedup passes of instruction-data pipelines (Self-Instruct uses ROUGE-L ≥ 0.7; token Jaccard is
 * the cheaper cousin). Numbers are kept as tokens, so "17 * 23" and "17 * 24" stay distinct.
 */

/** lower-cased words and numbers, punctuation dropped */
export function taskTokens(task: string): Set<string> {
  return new Set(task.toLowerCase().match(/[\p{L}\p{N}]+(?:[.,]\d+)*/gu) ?? []);
}

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let inter = 0;
  for (const t of a) if (b.has(t)) inter++;
  return inter / (a.size + b.size - inter);
}

/** Keeps tasks that are not near-duplicates of any kept so far. */
export class NearDuplicateFilter {
  private readonly kept: Array<Set<string>> = [];
  constructor(private readonly threshold = 0.8) {}

  /** true (and remembered) when `task` is new; false for a near-duplicate */
  add(task: string): boolean {
    const t = taskTokens(task);
    if (this.kept.some((k) => jaccard(k, t) >= this.threshold)) return false;
    this.kept.push(t);
    return true;
  }

  get size(): number {
    return this.kept.length;
  }
}
