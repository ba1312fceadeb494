/**
 * Splits sequences into micro-batches by count AND padded size (rows × longest row), so one
 * long tool output does not blow up a batch: attention memory grows with T², and the wasm
 * backend's heap is bounded. Sequences are taken in the given order (sort by length first for
 * less padding).
 */
export function chunkByBudget<T>(items: readonly T[], lengthOf: (x: T) => number, maxRows: number, maxTokens: number): T[][] {
  const out: T[][] = [];
  let cur: T[] = [];
  let longest = 0;
  for (const x of items) {
    const len = lengthOf(x);
    const nextLongest = Math.max(longest, len);
    if (cur.length > 0 && (cur.length + 1 > maxRows || (cur.length + 1) * nextLongest > maxTokens)) {
      out.push(cur);
      cur = [];
      longest = 0;
    }
    cur.push(x);
    longest = Math.max(longest, len);
  }
  if (cur.length) out.push(cur);
  return out;
}
