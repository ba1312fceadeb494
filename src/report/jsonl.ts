/**
 * A tolerant, streaming JSONL reader for run files. A run killed mid-write leaves a last line
 * without its newline and cut in the middle of a value: that line is reported as `truncated`
 * and skipped, never thrown. Other bad lines (invalid JSON, wrong fields) are reported with
 * their line number and field and skipped too, so one bad line never hides a whole run.
 *
 * Streaming (not readFileSync) because trajectories.jsonl can be hundreds of megabytes.
 */
import { createReadStream } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import type { z } from "zod";

export interface JsonlProblem {
  /** the file's name as shown to the user */
  file: string;
  /** 1-based line number */
  line: number;
  message: string;
  /** the last line had no newline and did not parse: a write cut short */
  truncated: boolean;
}

export interface JsonlResult {
  /** non-blank lines seen (valid or not) */
  lines: number;
  problems: JsonlProblem[];
}

export interface JsonlLine<T> {
  value: T;
  /** 1-based line number */
  line: number;
  /** length of the raw line in UTF-16 units (a cheap size estimate) */
  chars: number;
}

/** Formats the first zod issue as `field "a.b": message`. */
export function formatZodIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid";
  const field = issue.path.map(String).join(".");
  const more = error.issues.length > 1 ? ` (+${error.issues.length - 1} more)` : "";
  return field ? `field "${field}": ${issue.message}${more}` : `${issue.message}${more}`;
}

/**
 * Reads `path` line by line, validates each line with `schema` and calls `onLine` for the good
 * ones. Resolves with the problems; rejects only when the file cannot be read at all.
 */
export async function readJsonl<S extends z.ZodType>(
  path: string,
  fileLabel: string,
  schema: S,
  onLine: (line: JsonlLine<z.infer<S>>) => void,
  /** when given, only lines it accepts (by 1-based number) are parsed: a cheap second pass */
  wanted?: (line: number) => boolean,
): Promise<JsonlResult> {
  const problems: JsonlProblem[] = [];
  let lineNo = 0;
  let lines = 0;
  const handle = (raw: string, isLastWithoutNewline: boolean): void => {
    lineNo++;
    const text = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (text.trim() === "") return;
    lines++;
    if (wanted && !wanted(lineNo)) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      problems.push(
        isLastWithoutNewline
          ? { file: fileLabel, line: lineNo, truncated: true, message: "last line is incomplete (the run was probably stopped mid-write); ignored" }
          : { file: fileLabel, line: lineNo, truncated: false, message: `invalid JSON (${(e as Error).message}); line ignored` },
      );
      return;
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      problems.push({ file: fileLabel, line: lineNo, truncated: false, message: `${formatZodIssue(parsed.error)}; line ignored` });
      return;
    }
    onLine({ value: parsed.data as z.infer<S>, line: lineNo, chars: text.length });
  };

  const decoder = new StringDecoder("utf8");
  let pending = "";
  const stream = createReadStream(path);
  for await (const chunk of stream) {
    pending += decoder.write(chunk as Buffer);
    let nl = pending.indexOf("\n");
    let start = 0;
    while (nl !== -1) {
      handle(pending.slice(start, nl), false);
      start = nl + 1;
      nl = pending.indexOf("\n", start);
    }
    pending = pending.slice(start);
  }
  pending += decoder.end();
  if (pending !== "") handle(pending, true);
  return { lines, problems };
}
