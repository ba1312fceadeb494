/**
 * JSON numbers under a schema's bounds, one character at a time: whether a prefix can still
 * become a number that satisfies type and bounds (so decoding never walks into a dead end such as
 * "7" for a score in [0, 1]), whether it is complete, and its shortest valid completion.
 *
 * The key idea: a decimal prefix fixes an interval of reachable values. "12" reaches [12, 13)
 * (by a fraction) and [120, 130), [1200, 1300)... (by more digits); "12.3" reaches [12.3, 12.4);
 * "-12" mirrors them. Decimals are dense, so the prefix is viable iff one such interval meets the
 * allowed range. Exponents are allowed only for unbounded numbers, where every prefix is viable.
 * Grammar: RFC 8259 section 6.
 */
import type { Bound, SchemaNode } from "./schema-node.js";

export type NumberNode = Extract<SchemaNode, { kind: "number" }>;

/** Longest number text accepted (digits beyond this help no one and waste tokens). */
const MAX_LEN = 24;

const PREFIX_EXP = /^-?(?:(?:0|[1-9]\d*)(?:\.|\.\d+(?:[eE][+-]?\d*)?|[eE][+-]?\d*)?)?$/;
const PREFIX_DEC = /^-?(?:(?:0|[1-9]\d*)(?:\.\d*)?)?$/;
const PREFIX_INT = /^-?(?:0|[1-9]\d*)?$/;
const COMPLETE = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

interface Interval {
  lo: number;
  hi: number;
  loClosed: boolean;
  hiClosed: boolean;
}

function bounded(n: NumberNode): boolean {
  return n.min !== null || n.max !== null;
}

/** Does [lo, hi] (with closedness) meet the node's range? */
function meets(iv: Interval, n: NumberNode): boolean {
  let lo = iv.lo, loC = iv.loClosed, hi = iv.hi, hiC = iv.hiClosed;
  if (n.min && (n.min.value > lo || (n.min.value === lo && n.min.exclusive))) [lo, loC] = [n.min.value, !n.min.exclusive];
  if (n.max && (n.max.value < hi || (n.max.value === hi && n.max.exclusive))) [hi, hiC] = [n.max.value, !n.max.exclusive];
  if (lo < hi) {
    // an integer must fit inside: some integer k with lo <= k <= hi (respecting open ends)
    if (!n.integer) return true;
    const k = loC ? Math.ceil(lo) : Math.floor(lo) + 1;
    return k < hi || (k === hi && hiC);
  }
  return lo === hi && loC && hiC && (!n.integer || Number.isInteger(lo));
}

function mirror(iv: Interval): Interval {
  return { lo: -iv.hi, hi: -iv.lo, loClosed: iv.hiClosed, hiClosed: iv.loClosed };
}

function inRange(v: number, b: { min: Bound | null; max: Bound | null }): boolean {
  if (b.min && (v < b.min.value || (v === b.min.value && b.min.exclusive))) return false;
  if (b.max && (v > b.max.value || (v === b.max.value && b.max.exclusive))) return false;
  return true;
}

/** Significant digits a double holds: more fraction digits do not change the value parsed. */
const MAX_SIGNIFICANT = 17;

/** The value `text` parses to is one the node accepts (type, bounds, finite). */
function valueOk(text: string, n: NumberNode): boolean {
  const v = Number(text);
  return Number.isFinite(v) && (!n.integer || Number.isInteger(v)) && inRange(v, n);
}

/** A decimal fraction at a double's precision: one more digit would not change its value. */
function atPrecision(text: string): boolean {
  return text.includes(".") && text.replace(/^-/, "").replace(".", "").replace(/^0+/, "").length >= MAX_SIGNIFICANT;
}

/** Can `text` (a prefix) still become a number the node accepts? */
export function numberPrefixOk(text: string, n: NumberNode): boolean {
  if (text.length > MAX_LEN) return false;
  const grammar = n.integer ? PREFIX_INT : bounded(n) ? PREFIX_DEC : PREFIX_EXP;
  if (!grammar.test(text)) return false;
  // no room left to extend it (the length limit, or a bounded fraction at a double's precision,
  // where "0.5000000000000000" parses to 0.5 however it goes on): it must be valid as it stands
  if (text.length === MAX_LEN || (bounded(n) && atPrecision(text))) return COMPLETE.test(text) && valueOk(text, n);
  if (!bounded(n)) return true;
  const neg = text.startsWith("-");
  const body = neg ? text.slice(1) : text;
  const side = (iv: Interval) => meets(neg ? mirror(iv) : iv, n);
  if (body === "") {
    // "" or "-": any value on that side
    return neg ? side({ lo: 0, hi: Infinity, loClosed: true, hiClosed: false }) : true;
  }
  const dot = body.indexOf(".");
  if (dot >= 0) {
    const frac = body.length - dot - 1;
    const v = Number(frac === 0 ? body.slice(0, dot) : body);
    return side({ lo: v, hi: v + 10 ** -frac, loClosed: true, hiClosed: false });
  }
  const p = Number(body);
  if (body === "0") return side({ lo: 0, hi: n.integer ? 0 : 1, loClosed: true, hiClosed: n.integer });
  // more digits: [p·10^k, (p+1)·10^k) for k = 0, 1, ... (integers: the closed integer range)
  for (let k = 0, scale = 1; k <= MAX_LEN - body.length; k++, scale *= 10) {
    const iv: Interval = n.integer
      ? { lo: p * scale, hi: (p + 1) * scale - 1, loClosed: true, hiClosed: true }
      : { lo: p * scale, hi: (p + 1) * scale, loClosed: true, hiClosed: false };
    if (side(iv)) return true;
    // intervals only move away from zero: past the far bound nothing more can meet
    const far = neg ? n.min : n.max;
    if (far && p * scale > Math.abs(far.value)) break;
  }
  return false;
}

/** Is `text` a whole number the node accepts (type and bounds)? */
export function numberComplete(text: string, n: NumberNode): boolean {
  return COMPLETE.test(text) && numberPrefixOk(text, n) && valueOk(text, n);
}

const ALPHABET = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", ".", "-"];

/** The shortest suffix that makes `text` a complete accepted number (breadth-first, pruned by
 *  viability); null when there is none within the length limit. */
export function numberCompletion(text: string, n: NumberNode): string | null {
  if (numberComplete(text, n)) return "";
  let frontier = [""];
  for (let depth = 1; depth <= MAX_LEN - text.length && frontier.length > 0; depth++) {
    const next: string[] = [];
    for (const s of frontier) {
      for (const c of ALPHABET) {
        const t = s + c;
        if (!numberPrefixOk(text + t, n)) continue;
        if (numberComplete(text + t, n)) return t;
        next.push(t);
      }
    }
    // viable prefixes can be many for wide ranges; the shortest answer is among the first ones
    frontier = next.slice(0, 2000);
  }
  return null;
}
