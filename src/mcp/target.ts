/**
 * Target parsing: the one string a user types after `--server` becomes a typed TargetSpec.
 * Forms: `http(s)://…` (Streamable HTTP, legacy SSE fallback), `stdio:<command line>` or a bare
 * command line (spawned over stdio), `fixture:<name>` (a bundled fixture server over stdio).
 * Command lines are split like a POSIX shell splits words (quotes and backslashes), but no
 * shell runs: no globbing, no variable expansion, no pipes (the MCP SDK's stdio transport also
 * spawns without a shell).
 */
import { TrainMcpError } from "../errors.js";
import { quoteWord, REDACTED, redactCommandWords, redactSecretValues } from "./command-credentials.js";
import { redactUrlCredentials } from "./url-credentials.js";

export type TargetSpec =
  | { kind: "http"; url: string }
  | { kind: "stdio"; command: string; args: string[] }
  | { kind: "fixture"; name: string };

export function parseTarget(target: string): TargetSpec {
  const t = target.trim();
  if (t === "") throw new TrainMcpError("ConfigInvalid", "--server: empty target (expected a URL, stdio:<command>, fixture:<name> or a command line)");
  if (/^https?:\/\//i.test(t)) {
    try {
      return { kind: "http", url: new URL(t).toString() };
    } catch {
      throw new TrainMcpError("ConfigInvalid", `--server: not a valid URL: ${t}`);
    }
  }
  if (t.startsWith("fixture:")) {
    const name = t.slice("fixture:".length).trim();
    if (!name) throw new TrainMcpError("ConfigInvalid", "--server: fixture: needs a name, e.g. fixture:calculator");
    return { kind: "fixture", name };
  }
  const line = t.startsWith("stdio:") ? t.slice("stdio:".length) : t;
  const words = splitCommandLine(line);
  if (words.length === 0) throw new TrainMcpError("ConfigInvalid", "--server: stdio: needs a command line");
  return { kind: "stdio", command: words[0], args: words.slice(1) };
}

/** One spelling per target, for matching a scenario's `server` to a run's servers: "stdio:node
 *  a.mjs", "node  a.mjs" and "node 'a.mjs'" are the same server, and so are a URL and the same URL
 *  with its credentials redacted (as scenario files keep it); a target that does not parse is its
 *  own trimmed text. */
export function targetKey(target: string): string {
  try {
    const t = parseTarget(target);
    return t.kind === "http" ? redactUrlCredentials(t.url) : t.kind === "fixture" ? `fixture:${t.name}` : JSON.stringify([t.command, ...t.args]);
  } catch {
    return target.trim();
  }
}

/** The same server: the same spelling by `targetKey`, or, where one side lost its secrets to
 *  redaction (a saved config, a generated scenario file), the same once both are redacted. */
export function sameTarget(a: string, b: string): boolean {
  if (targetKey(a) === targetKey(b)) return true;
  if (!a.includes(REDACTED) && !b.includes(REDACTED)) return false;
  return targetKey(redactTargetCredentials(a)) === targetKey(redactTargetCredentials(b));
}

/** Splits a command line into words: '…' literal, "…" with \" \\ escapes, \x outside quotes. */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === "\\" && (line[i + 1] === '"' || line[i + 1] === "\\")) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === "\\" && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new TrainMcpError("ConfigInvalid", `--server: unterminated ${quote} quote in command line: ${line}`);
  if (inWord) words.push(word);
  return words;
}

/** A short human label for messages and log headers: no header values, no credentials. */
export function describeTarget(spec: TargetSpec): string {
  if (spec.kind === "http") return redactUrlCredentials(spec.url);
  if (spec.kind === "fixture") return `fixture:${spec.name}`;
  return redactCommandWords([spec.command, ...spec.args]).join(" ");
}

/** A server target as it may be saved or shown: a URL without its credentials, a command line
 *  without the secrets on it (re-quoted only where something was replaced). */
export function redactTargetCredentials(target: string): string {
  let spec;
  try {
    spec = parseTarget(target);
  } catch {
    return redactSecretValues(target);
  }
  if (spec.kind === "http") return redactUrlCredentials(target);
  if (spec.kind === "fixture") return target;
  const words = [spec.command, ...spec.args];
  const redacted = redactCommandWords(words);
  if (redacted.every((w, i) => w === words[i])) return target;
  return (target.trim().startsWith("stdio:") ? "stdio:" : "") + redacted.map(quoteWord).join(" ");
}

/** Whether a target (as saved) lost a credential to redaction: a resume needs it given again. */
export function isRedactedTarget(target: string): boolean {
  return target.includes(REDACTED);
}
