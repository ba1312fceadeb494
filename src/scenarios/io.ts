/**
 * Scenario files: JSONL, one scenario per line, validated line by line against ScenarioSchema.
 *
 * Reading reports EVERY bad line at once, each as `file:LINE: field "x": expected …, got …`,
 * the way a compiler lists all its errors rather than the first (a user fixing a generated
 * file wants the whole list). Writing is atomic: a temp file in the same folder, fsync'd, then
 * renamed over the target, so a crash or a failed generation never leaves a partial file.
 */
import { randomBytes } from "node:crypto";
import { openSync, closeSync, writeSync, fsyncSync, renameSync, rmSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { z } from "zod";
import { TrainMcpError } from "../errors.js";
import { checkAnswer } from "./check.js";
import { ScenarioSchema, type Scenario, type ScenarioInput } from "./schema.js";
import { makeDirs } from "../fs-dirs.js";

export interface ScenarioProblem {
  /** 1-based line number in the file */
  line: number;
  /** dotted path of the field at fault ("difficulty", "expected[0].kind"); "" for the line */
  field: string;
  message: string;
}

export interface ParsedScenarios {
  scenarios: Scenario[];
  problems: ScenarioProblem[];
  /** line number of each scenario, parallel to `scenarios` */
  lines: number[];
}

/** problems a refusal lists before it counts the rest (`scenarios check` lists every one) */
const LISTED_PROBLEMS = 10;

/** The error thrown by readScenarioFile: its message lists the first problems, one per line,
 *  with `lead` (what they have in common, when that says more) before them. */
export class ScenarioFileError extends TrainMcpError {
  constructor(
    readonly file: string,
    readonly problems: ScenarioProblem[],
    lead?: string,
  ) {
    super("ScenarioInvalid", problemsMessage(file, problems, lead));
  }
}

function problemsMessage(file: string, problems: readonly ScenarioProblem[], lead?: string): string {
  // one problem is one line, "FILE:LINE: what": the usage error's one line
  if (problems.length === 1 && !lead) return formatProblem(file, problems[0]);
  const lines = new Set(problems.map((p) => p.line)).size;
  const shown = problems.slice(0, LISTED_PROBLEMS).map((p) => formatProblem(file, p));
  const rest = problems.length - shown.length;
  if (rest > 0) shown.push(`… and ${rest} more (\`train-mcp scenarios check ${file} [--server …]\` lists every one)`);
  return `${file}: ${problems.length} problem${problems.length === 1 ? "" : "s"} in ${lines} line${lines === 1 ? "" : "s"}${lead ? ` (${lead})` : ""}:\n${shown.join("\n")}`;
}

export function formatProblem(file: string, p: ScenarioProblem): string {
  return p.field ? `${file}:${p.line}: field "${p.field}": ${p.message}` : `${file}:${p.line}: ${p.message}`;
}

const KNOWN_KEYS = new Set(Object.keys(ScenarioSchema.shape));

/** Validates JSONL text; never throws. Blank lines are skipped. */
export function parseScenarioText(text: string): ParsedScenarios {
  const scenarios: Scenario[] = [];
  const problems: ScenarioProblem[] = [];
  const lines: number[] = [];
  const firstLineOfId = new Map<string, number>();
  const rows = text.split(/\r?\n/);
  for (let i = 0; i < rows.length; i++) {
    const line = i + 1;
    const raw = rows[i].trim();
    if (raw === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      problems.push({ line, field: "", message: `invalid JSON: ${(e as Error).message}` });
      continue;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      problems.push({ line, field: "", message: `expected a JSON object, got ${describe(value)}` });
      continue;
    }
    const before = problems.length;
    // A misspelt key ("expect" for "expected") would otherwise be dropped silently and leave
    // the scenario unverifiable; report it like any other bad field.
    for (const key of Object.keys(value)) {
      if (!KNOWN_KEYS.has(key)) problems.push({ line, field: key, message: `unknown field (known: ${[...KNOWN_KEYS].join(", ")})` });
    }
    const parsed = ScenarioSchema.safeParse(value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) problems.push(issueToProblem(line, issue, value));
    }
    // Ids of invalid lines count too: fixing line 2 must not reveal a duplicate on line 12.
    const id = (value as { id?: unknown }).id;
    if (typeof id === "string" && id !== "") {
      const first = firstLineOfId.get(id);
      if (first !== undefined) problems.push({ line, field: "id", message: `duplicate id ${JSON.stringify(id)} (first on line ${first})` });
      else firstLineOfId.set(id, line);
    }
    // a reference answer its own checks fail teaches the wrong answer: caught before any server runs
    if (parsed.success && parsed.data.reference) {
      parsed.data.expected?.forEach((e, i) => {
        if (e.kind === "state") return;
        const r = checkAnswer(e, parsed.data.reference!.answer);
        if (!r.pass) problems.push({ line, field: "reference.answer", message: `fails its own check expected[${i}]: ${r.detail}` });
      });
    }
    if (parsed.success && problems.length === before) {
      scenarios.push(parsed.data);
      lines.push(line);
    }
  }
  return { scenarios, problems, lines };
}

/** Reads and validates a scenario file; throws ScenarioFileError listing every bad line. */
export function readScenarioFile(path: string): Scenario[] {
  return readScenarioFileLines(path).scenarios;
}

/** readScenarioFile, with each scenario's line number (parallel to `scenarios`). */
export function readScenarioFileLines(path: string): { scenarios: Scenario[]; lines: number[] } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new TrainMcpError("IoFailed", `cannot read scenario file ${path}: ${(e as Error).message}`, true, { cause: e });
  }
  const { scenarios, problems, lines } = parseScenarioText(text);
  if (problems.length > 0) throw new ScenarioFileError(path, problems);
  if (scenarios.length === 0) throw new TrainMcpError("ScenarioInvalid", `${path}: no scenarios (the file is empty)`);
  return { scenarios, lines };
}

/** One line per scenario, keys in schema order, defaults filled in. */
export function serializeScenarios(scenarios: readonly (Scenario | ScenarioInput)[]): string {
  return scenarios.map((s) => JSON.stringify(ScenarioSchema.parse(s))).join("\n") + (scenarios.length ? "\n" : "");
}

/**
 * Writes scenarios atomically. Every scenario is validated first (and ids checked unique), so a
 * file written here always passes `scenarios check`.
 */
export function writeScenarioFile(path: string, scenarios: readonly (Scenario | ScenarioInput)[]): void {
  const text = serializeScenarios(scenarios);
  const { problems } = parseScenarioText(text);
  if (problems.length > 0) throw new ScenarioFileError(`${path} (not written)`, problems);
  writeFileAtomic(path, text);
}

/** Temp file in the target's folder (same file system, so rename is atomic), fsync, rename. */
export function writeFileAtomic(path: string, text: string): void {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    makeDirs(dir);
    const fd = openSync(tmp, "w");
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new TrainMcpError("IoFailed", `cannot write ${path}: ${(e as Error).message}`, true, { cause: e });
  }
}

// ---- zod issues → "field: expected …, got …" ----

function issueToProblem(line: number, issue: z.core.$ZodIssue, root: unknown): ScenarioProblem {
  const path = issue.path as PropertyKey[];
  // a misspelled key inside an object is named where it is: expected[0].tolerence, not expected[0]
  if (issue.code === "unrecognized_keys")
    return { line, field: formatPath([...path, issue.keys[0]]), message: `unknown field${issue.keys.length > 1 ? ` (and ${issue.keys.slice(1).map((k) => JSON.stringify(k)).join(", ")})` : ""}` };
  const got = valueAt(root, path);
  return { line, field: formatPath(path), message: issueMessage(issue, got) };
}

export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else out += out === "" ? String(p) : `.${String(p)}`;
  }
  return out;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = root;
  for (const p of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

function describe(v: unknown): string {
  if (v === undefined) return "nothing (missing)";
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object";
  const s = JSON.stringify(v);
  return s.length > 60 ? `${s.slice(0, 60)}…` : s;
}

function issueMessage(issue: z.core.$ZodIssue, got: unknown): string {
  const gotText = `got ${describe(got)}`;
  switch (issue.code) {
    case "too_big": {
      const op = issue.inclusive === false ? "<" : "≤";
      const unit = issue.origin === "string" ? " characters" : issue.origin === "array" ? " items" : "";
      const what = issue.origin === "string" ? "string of" : issue.origin === "array" ? "array of" : issue.origin;
      return `expected ${what} ${op} ${String(issue.maximum)}${unit}, ${gotText}`;
    }
    case "too_small": {
      const op = issue.inclusive === false ? ">" : "≥";
      if (issue.origin === "string" && issue.minimum === 1) return `expected a non-empty string, ${gotText}`;
      const unit = issue.origin === "string" ? " characters" : issue.origin === "array" ? " items" : "";
      const what = issue.origin === "string" ? "string of" : issue.origin === "array" ? "array of" : issue.origin;
      return `expected ${what} ${op} ${String(issue.minimum)}${unit}, ${gotText}`;
    }
    case "invalid_type": {
      const expected = issue.expected === "int" ? "integer" : issue.expected === "record" ? "object" : issue.expected;
      return got === undefined ? `required ${expected} is missing` : `expected ${expected}, ${gotText}`;
    }
    case "invalid_value":
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(" | ")}, ${gotText}`;
    case "invalid_union": {
      const options = (issue as { options?: unknown[] }).options;
      if (Array.isArray(options) && options.length > 0) {
        return `expected one of ${options.map((v) => JSON.stringify(v)).join(" | ")}, ${gotText}`;
      }
      return `${issue.message}, ${gotText}`;
    }
    default:
      return `${issue.message}, ${gotText}`;
  }
}
