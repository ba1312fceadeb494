/**
 * Numeric command-line flags, checked before a server starts or a model loads, with one message
 * shape for every command: `--k expects a whole number of at least 1, got "0"` (exit 2).
 */
import { TrainMcpError } from "../errors.js";

function range(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`;
  if (min !== undefined) return ` of at least ${min}`;
  if (max !== undefined) return ` of at most ${max}`;
  return "";
}

/** `raw` as a number within [min, max]; "" and "abc" are refused (Number("") would be 0). */
export function numberFlag(flag: string, raw: string, min?: number, max?: number): number {
  const n = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(n) || (min !== undefined && n < min) || (max !== undefined && n > max))
    throw new TrainMcpError("ConfigInvalid", `${flag} expects a number${range(min, max)}, got "${raw}"`);
  return n;
}

/** `raw` as a whole number within [min, max]. */
export function intFlag(flag: string, raw: string, min?: number, max?: number): number {
  const n = Number(raw);
  if (raw.trim() === "" || !Number.isInteger(n) || (min !== undefined && n < min) || (max !== undefined && n > max))
    throw new TrainMcpError("ConfigInvalid", `${flag} expects a whole number${range(min, max)}, got "${raw}"`);
  return n;
}
