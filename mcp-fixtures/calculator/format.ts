/**
 * Number cleaning and display for the calculator's results, kept free of mathjs so the server
 * can answer tools/list before the (heavy) mathjs instance is built.
 */

/** Longest expression accepted; longer input is almost certainly not arithmetic. */
export const MAX_EXPRESSION_LENGTH = 500;

/** Rounds away float noise (0.1 + 0.2 -> 0.3) by keeping 12 significant digits. */
export function clean(x: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  return Number(x.toPrecision(12));
}

/** Human-readable number: up to 10 significant digits, exponent form only when very large/small. */
export function formatNumber(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const abs = Math.abs(x);
  if (Number.isInteger(x) && abs < 1e15) return String(x);
  if (abs >= 1e15 || (abs !== 0 && abs < 1e-7)) {
    // 1.500000000e+20 -> 1.5e+20
    return x.toPrecision(10).replace(/\.?0+e/, "e");
  }
  return String(Number(x.toPrecision(10)));
}
