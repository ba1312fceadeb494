/**
 * The one reading of a timeout a user types (`--timeout`, a config file's `tool_timeout_ms`):
 * a bare number is milliseconds, as the flag always was; `500ms`, `30s`, `2m` and `1h` say their
 * unit. Under 100 ms is refused: no server starts or answers a call that fast, and a bare
 * `--timeout 30` meant as seconds would otherwise end every connect with "no reply to initialize
 * within 30 ms" — its error names the unit and how to write 30 seconds.
 */
import { z } from "zod";
import { TrainMcpError } from "../errors.js";

/** the shortest timeout taken; a bare number below it is taken for seconds typed without a unit */
export const MIN_TIMEOUT_MS = 100;

const MAX_TIMEOUT_MS = 24 * 3_600_000;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/i;

/** Why `raw` is not a usable timeout, or its value in whole milliseconds. */
export function readTimeoutMs(raw: string | number): { ms: number } | { problem: string } {
  const text = String(raw).trim();
  const m = DURATION.exec(text);
  if (!m) return { problem: `expects milliseconds or a number with a unit (500ms, 30s, 2m, 1h), got "${text}"` };
  const value = Number(m[1]);
  const unit = m[2]?.toLowerCase() as keyof typeof UNIT_MS | undefined;
  if (value === 0) return { problem: `expects a duration above 0, got "${text}"` };
  // the likeliest intent of `--timeout 30` is seconds: say the unit, and how to write that
  if (unit === undefined && value < MIN_TIMEOUT_MS) {
    const seconds = value * 1000 >= MIN_TIMEOUT_MS ? `; for ${text} s write ${Math.round(value * 1000)} or ${text}s` : "";
    return { problem: `${text} is in milliseconds, too short to start a server or call a tool${seconds}` };
  }
  const ms = Math.round(value * UNIT_MS[unit ?? "ms"]);
  if (ms < MIN_TIMEOUT_MS) return { problem: `expects at least ${MIN_TIMEOUT_MS} ms, got "${text}"` };
  // timers past 2^31 ms fire at once, and a call's hard ceiling is 4 × this
  if (ms > MAX_TIMEOUT_MS) return { problem: `expects at most 24 hours (${MAX_TIMEOUT_MS} ms), got "${text}"` };
  return { ms };
}

/** `--timeout <value>` as milliseconds; a TrainMcpError("ConfigInvalid") naming the flag (exit 2) */
export function parseTimeoutMs(raw: string | number, flag = "--timeout"): number {
  const r = readTimeoutMs(raw);
  if ("problem" in r) throw new TrainMcpError("ConfigInvalid", `${flag} ${r.problem}`);
  return r.ms;
}

/** A config file's timeout field: a number of milliseconds or a string with a unit, read as the flag is. */
export const TimeoutMsSchema = z
  .union([z.number(), z.string()])
  .transform((v, ctx) => {
    const r = readTimeoutMs(v);
    if ("problem" in r) {
      ctx.addIssue({ code: "custom", message: r.problem });
      return z.NEVER;
    }
    return r.ms;
  })
  .describe("milliseconds, or a number with a unit: 500ms, 30s, 2m, 1h; at least 100 ms");
