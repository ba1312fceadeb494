/**
 * Finding the numbers a piece of free text states, for the numeric answer check.
 *
 * Models and tools write numbers many ways: "1,234,567.5", "-3", "−3" (Unicode minus),
 * "1.5e-7", "2.5E+10", "1.2 × 10^5", "45%", "$1,200", "34.4 million". We read every number we can, in order of
 * appearance. A comma run is read as thousands separators only when every group after the first
 * has exactly three digits ("12,345"); otherwise ("1,2,3") the commas separate numbers.
 * Following the habit of math-verify style graders: lenient in what is read, strict in the value.
 */

// sign? then either thousands-grouped or plain digits, optional fraction, optional exponent,
// optional "× 10^k" scientific notation as people write it.
const NUMBER = new RegExp(
  [
    "(?<sign>[-−+])?",
    "(?<int>\\d{1,3}(?:,\\d{3})+(?!\\d)|\\d+)?",
    "(?<frac>\\.\\d+)?",
    "(?<exp>[eE][-+]?\\d+)?",
    "(?<sci>\\s*(?:[x×*]|\\\\times)\\s*10\\s*\\^\\s*\\{?(?<sciexp>[-−+]?\\d+)\\}?)?",
    "(?<scale>\\s+(?:thousand|million|billion|trillion)\\b)?",
  ].join(""),
  "g",
);

const SCALE: Record<string, number> = { thousand: 1e3, million: 1e6, billion: 1e9, trillion: 1e12 };

/** Every number stated in `text`, in order. Digits right after a letter belong to a name, not a
 *  number: "SKU A100", "H2O", "Q3" state no 100, 2 or 3 (a wrong answer naming an item passed a
 *  check for 100). */
export function extractNumbers(text: string): number[] {
  const out: number[] = [];
  for (const m of text.matchAll(NUMBER)) {
    const g = m.groups ?? {};
    if (g.int === undefined && g.frac === undefined) continue; // a lone sign or empty match
    // "-" directly after a letter or digit is a hyphen or a subtraction, not a sign: "COVID-19".
    const start = m.index ?? 0;
    const before = start > 0 ? text[start - 1] : "";
    // (only in scripts that space their words: "答案是42" states 42)
    if (!g.sign && /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}]/u.test(before) && !(/[xX]/.test(before) && /\d/.test(text[start - 2] ?? ""))) continue; // "2x3" is a product
    let sign = g.sign === "-" || g.sign === "−" ? -1 : 1;
    if (sign === -1 && /[\p{L}\p{N}]/u.test(before)) sign = 1;
    // One decimal string, parsed once, so "6.02 × 10^23" is exactly 6.02e23 (no float product).
    const exponent = (g.exp ? Number(g.exp.slice(1)) : 0) + (g.sciexp ? Number(g.sciexp.replace("−", "-")) : 0);
    const value = Number(`${(g.int ?? "0").replace(/,/g, "")}${g.frac ?? ""}e${exponent}`);
    if (Number.isFinite(value)) out.push(sign * value);
    // "34.4 million" states 34,400,000; the bare 34.4 is kept too (a table may list millions).
    if (g.scale !== undefined && Number.isFinite(value)) out.push(sign * value * (SCALE[g.scale.trim().toLowerCase()] ?? 1));
  }
  return out;
}

/** True when `got` is within the absolute or the relative tolerance of `want`. */
export function withinTolerance(got: number, want: number, tolerance: number, relTolerance: number): boolean {
  const diff = Math.abs(got - want);
  // A tiny epsilon absorbs float noise in the expected value itself (0.1 + 0.2).
  return diff <= tolerance + 1e-12 || diff <= relTolerance * Math.abs(want);
}
