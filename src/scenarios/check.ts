/**
 * Expected-outcome checks, shared by the scenario generators (to prove a reference solution
 * replays) and the rewards stage (to score a rollout). One function per check family:
 * `checkAnswer` for text (the final answer, or a state-check tool's result) and `runStateCheck`
 * for a tool call made on the rollout's own server after it finished.
 *
 * Every check returns `{ pass, detail }`: detail is one human line saying what was expected
 * and what was found, so a failing reward can be read in the report. Checks never throw for
 * bad answers; a malformed check (an invalid regex) fails with a detail saying so.
 */
import type { CallOptions, Toolbox } from "../mcp/types.js";
import { extractNumbers, withinTolerance } from "./numbers.js";
import type { AnswerCheck, Expected, StateCheck } from "./schema.js";

export interface CheckResult {
  pass: boolean;
  /** one line: what was expected, what was found */
  detail: string;
}

const MAX_SHOWN = 80;
function show(s: string): string {
  const one = s.replace(/\s+/g, " ").trim();
  return JSON.stringify(one.length > MAX_SHOWN ? `${one.slice(0, MAX_SHOWN)}…` : one);
}

/** Collapses runs of whitespace so line breaks and double spaces never decide a check. */
function normalize(s: string, caseSensitive: boolean): string {
  // typography is no answer's substance: "Server – Architecture" is "Server - Architecture"
  const t = s
    .replace(/[\u2010-\u2015\u2212]/g, "-")
    .replace(/[\u2018\u2019\u201B]/g, "'")
    .replace(/[\u201C\u201D]/g, '"')
    .replace(/\s+/g, " ")
    .trim();
  return caseSensitive ? t : t.toLowerCase();
}

/** Checks free text against one answer check. Never throws. */
export function checkAnswer(check: AnswerCheck, text: string): CheckResult {
  switch (check.kind) {
    case "exact": {
      const cs = check.caseSensitive ?? false;
      // A trailing full stop or surrounding quotes are how people end an answer, not content.
      const got = normalize(text, cs).replace(/^["'`]+|["'`]+$/g, "").replace(/\.$/, "");
      const want = normalize(check.value, cs).replace(/\.$/, "");
      const pass = got === want;
      return { pass, detail: pass ? `exact match ${show(check.value)}` : `expected exactly ${show(check.value)}, got ${show(text)}` };
    }
    case "numeric": {
      const tol = check.tolerance ?? 1e-6;
      const rel = check.relTolerance ?? 0;
      const numbers = extractNumbers(text);
      const hit = numbers.find((n) => withinTolerance(n, check.value, tol, rel));
      if (hit !== undefined) return { pass: true, detail: `found ${hit} ≈ ${check.value}` };
      const found = numbers.length === 0 ? "no number" : `numbers ${numbers.slice(0, 6).join(", ")}${numbers.length > 6 ? ", …" : ""}`;
      // 10% of 81.5 is 8.150000000000001 in floating point: six significant digits say it
      const shownTol = Number(Math.max(tol, rel * Math.abs(check.value)).toPrecision(6));
      return { pass: false, detail: `expected ${check.value} (±${shownTol}), found ${found}` };
    }
    case "contains": {
      const cs = check.caseSensitive ?? false;
      const pass = containsWhole(normalize(text, cs), normalize(check.value, cs));
      return { pass, detail: pass ? `contains ${show(check.value)}` : `expected to contain ${show(check.value)}, got ${show(text)}` };
    }
    case "not_contains": {
      const cs = check.caseSensitive ?? false;
      const norm = normalize(text, cs);
      const at = wholeIndex(norm, normalize(check.value, cs));
      if (at < 0) return { pass: true, detail: `does not contain ${show(check.value)}` };
      // where it is, not the text's first 80 characters: a listing may show it far down
      const from = Math.max(0, at - 30);
      const around = `${from > 0 ? "…" : ""}${normalize(text, true).slice(from, at + check.value.length + 30)}`;
      return { pass: false, detail: `expected not to contain ${show(check.value)}, found it in ${show(around)}` };
    }
    case "regex": {
      let re: RegExp;
      try {
        re = new RegExp(check.pattern, check.flags ?? "i");
      } catch (e) {
        return { pass: false, detail: `invalid regex /${check.pattern}/: ${(e as Error).message}` };
      }
      const pass = re.test(text);
      return { pass, detail: pass ? `matches /${check.pattern}/` : `expected to match /${check.pattern}/, got ${show(text)}` };
    }
    case "json_subset": {
      const parsed = parseJsonLoose(text);
      if (parsed === undefined) return { pass: false, detail: `expected JSON containing ${show(JSON.stringify(check.value))}, found no JSON in ${show(text)}` };
      return checkJsonSubset(check.value, parsed.value);
    }
  }
}

/**
 * `value` occurs in `text` not as part of a longer word or number: "total 7" is not in "total 73",
 * "Paris" is not in "Parisian", "3" is not in "3.5"; "Paris." and "(Paris)" contain "Paris". An
 * edge of the value that is not a letter or digit may touch anything.
 */
function containsWhole(text: string, value: string): boolean {
  return wholeIndex(text, value) >= 0;
}

/** Where `value` first occurs whole in `text` (containsWhole's rule), or -1. */
function wholeIndex(text: string, value: string): number {
  if (value.length === 0) return 0;
  const word = /[\p{L}\p{N}]/u;
  const startsWord = word.test(value[0]);
  const endsWord = word.test(value[value.length - 1]);
  const endsDigit = /\p{N}/u.test(value[value.length - 1]);
  for (let i = text.indexOf(value); i >= 0; i = text.indexOf(value, i + 1)) {
    const before = text[i - 1];
    const after = text.slice(i + value.length, i + value.length + 2);
    if (startsWord && before !== undefined && word.test(before)) continue;
    if (endsWord && after.length > 0 && word.test(after[0])) continue;
    // a number continues past a decimal point or separator followed by a digit ("7" in "7.5", "1,250")
    if (endsDigit && /^[.,]\p{N}/u.test(after)) continue;
    return i;
  }
  return -1;
}

/** Subset test with a path to the first mismatch, for json_subset. */
export function checkJsonSubset(want: unknown, got: unknown): CheckResult {
  const miss = subsetMismatch(want, got, "$");
  return miss === undefined
    ? { pass: true, detail: `JSON contains ${show(JSON.stringify(want))}` }
    : { pass: false, detail: miss };
}

/**
 * Where `want` is not contained in `got`: objects by key (extra keys allowed), arrays by
 * membership (each wanted element matches some element, order free), numbers within 1e-9,
 * everything else by equality. Undefined when contained.
 */
function subsetMismatch(want: unknown, got: unknown, path: string): string | undefined {
  if (Array.isArray(want)) {
    if (!Array.isArray(got)) return `${path}: expected an array, got ${typeName(got)}`;
    for (let i = 0; i < want.length; i++) {
      if (!got.some((g) => subsetMismatch(want[i], g, path) === undefined)) {
        return `${path}: no element matches ${show(JSON.stringify(want[i]))}`;
      }
    }
    return undefined;
  }
  if (want !== null && typeof want === "object") {
    if (got === null || typeof got !== "object" || Array.isArray(got)) return `${path}: expected an object, got ${typeName(got)}`;
    const g = got as Record<string, unknown>;
    for (const [k, v] of Object.entries(want as Record<string, unknown>)) {
      if (!(k in g)) return `${path}.${k}: missing`;
      const m = subsetMismatch(v, g[k], `${path}.${k}`);
      if (m !== undefined) return m;
    }
    return undefined;
  }
  if (typeof want === "number" && typeof got === "number") {
    return Math.abs(want - got) <= 1e-9 * Math.max(1, Math.abs(want)) ? undefined : `${path}: expected ${want}, got ${got}`;
  }
  return Object.is(want, got) || want === got ? undefined : `${path}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`;
}

function typeName(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "an array" : typeof v;
}

/**
 * The JSON value in a piece of text: the whole text, else a ```json fenced block, else the first
 * balanced {...} or [...] that parses. Undefined when there is none.
 */
export function parseJsonLoose(text: string): { value: unknown } | undefined {
  const attempts: string[] = [text.trim()];
  const fence = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  if (fence) attempts.push(fence[1].trim());
  for (const a of attempts) {
    try {
      return { value: JSON.parse(a) as unknown };
    } catch {
      // try the next form
    }
  }
  for (let i = 0; i < text.length; i++) {
    const open = text[i];
    if (open !== "{" && open !== "[") continue;
    const end = balancedEnd(text, i);
    if (end < 0) continue;
    try {
      return { value: JSON.parse(text.slice(i, end + 1)) as unknown };
    } catch {
      // keep scanning
    }
  }
  return undefined;
}

/** Index of the bracket closing the one at `start`, skipping strings; -1 when unbalanced. */
export function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

export function isStateCheck(e: Expected): e is StateCheck {
  return e.kind === "state";
}

/**
 * Runs a state check: calls `check.tool` with `check.arguments` on the given toolbox (the
 * rollout's own instance) and checks the result. A json_subset check reads the tool's
 * structuredContent when it has one (the text may wrap it in prose). A tool error fails, unless
 * the check says one is expected (`error: true`): then only an error passes, read by its text. A
 * fault (no connection, a timeout, a call refused before sending) always fails.
 */
export async function runStateCheck(
  toolbox: Pick<Toolbox, "call">,
  check: StateCheck,
  options?: CallOptions,
): Promise<CheckResult> {
  const result = await toolbox.call(check.tool, check.arguments ?? {}, options);
  const where = `state ${check.tool}(${JSON.stringify(check.arguments ?? {})})`;
  // a server may say "no such item" as a JSON-RPC error (fault "protocol"): with error: true, the tool's own answer
  const ownError = result.isError && (!result.fault || (check.error === true && result.fault === "protocol"));
  if (result.isError && !(ownError && check.error)) return { pass: false, detail: `${where} failed: ${show(result.text)}` };
  if (!result.isError && check.error) return { pass: false, detail: `${where} answered without the error expected: ${show(result.text)}` };
  // past the cut, anything would read as gone: padding a read out to the limit would pass
  if (check.expect.kind === "not_contains" && result.truncated)
    return { pass: false, detail: `${where}: the result was cut at the output limit, so "${check.expect.value}" cannot be shown to be gone` };
  let r: CheckResult;
  if (check.expect.kind === "json_subset" && result.structuredContent !== undefined) {
    r = checkJsonSubset(check.expect.value, result.structuredContent);
    if (!r.pass) {
      const fromText = checkAnswer(check.expect, result.text);
      if (fromText.pass) r = fromText;
    }
  } else {
    r = checkAnswer(check.expect, result.text);
  }
  return { pass: r.pass, detail: `${where}: ${r.detail}` };
}

/**
 * Checks every expected outcome of a scenario: answer checks against `answer`, state checks on
 * `toolbox` (required when there are any). Pass when all pass; details joined with "; ".
 */
export async function checkExpected(
  expected: readonly Expected[],
  answer: string,
  toolbox?: Pick<Toolbox, "call">,
  options?: CallOptions,
): Promise<CheckResult & { results: CheckResult[] }> {
  const results: CheckResult[] = [];
  for (const e of expected) {
    if (isStateCheck(e)) {
      results.push(toolbox ? await runStateCheck(toolbox, e, options) : { pass: false, detail: `state check ${e.tool} needs a toolbox` });
    } else {
      results.push(checkAnswer(e, answer));
    }
  }
  return { pass: results.every((r) => r.pass), detail: results.map((r) => r.detail).join("; "), results };
}
