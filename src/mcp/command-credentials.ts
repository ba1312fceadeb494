/**
 * Credentials written into a server's target: a stdio command line's `--api-key sk-…`,
 * `--token=…`, `env GITHUB_TOKEN=… node server.js`, or a value shaped like a key anywhere; a URL's
 * `user:pass@` and `?token=`. A target is how a user names a server, so it lands in config.json,
 * scenario files, logs and reports: those get it with the secret replaced. The README still says
 * to pass secrets by `--env`, which never leaves the process.
 */
import { redactUrlCredentials } from "./url-credentials.js";

export const REDACTED = "[redacted]";

/** Substrings shaped like a credential, whatever surrounds them. */
export const SECRET_VALUES: readonly RegExp[] = [
  /\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}/g, // OpenAI / Anthropic style keys
  /\bhf_[A-Za-z0-9]{20,}/g, // Hugging Face tokens
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bxox[abpr]-[A-Za-z0-9-]{10,}/g, // Slack tokens
  /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/g, // HTTP bearer credentials
  /\bBasic\s+[A-Za-z0-9+/]{8,}={0,2}/g, // HTTP basic credentials (base64 user:password)
  /\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}/g, // Stripe keys
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key ids
];

/** `s` with URL credentials, key-shaped substrings and the values of secret-named settings
 *  (`GITHUB_TOKEN=…`, `"OPENAI_API_KEY": "…"`, `password: …`: a tool that prints its environment)
 *  replaced (any text, JSON text too). */
export function redactSecretValues(s: string): string {
  let out = redactUrlCredentials(s);
  for (const re of SECRET_VALUES) out = out.replace(re, REDACTED);
  return out.replace(SECRET_SETTING, (whole, name: string, sep: string, value: string) =>
    SECRET_NAME.test(name) && !/^\d+$/.test(value) && value !== REDACTED ? `${name}${sep}${REDACTED}` : whole,
  );
}

/** Replaces every secret train-mcp itself holds (API keys, `--env` values), exactly, then the
 *  shapes above: for text a run writes from what tools returned (logs, messages). For a record
 *  written as JSON, `redactedJson` blanks inside its strings only. */
export function redactHeldSecrets(s: string, held: readonly string[]): string {
  return redactSecretValues(blankForms(s, heldForms(held)));
}

/**
 * `value` as JSON text with the held secrets blanked inside its strings, never in its syntax (a
 * held "2024" or "true" must not break the line a reader parses), then the shapes above over the
 * text (their patterns keep JSON whole). `changed`: whether anything was blanked.
 */
export function redactedJson(value: unknown, held: readonly string[]): { text: string; changed: boolean } {
  let changed = false;
  const forms = heldForms(held); // once, not per string
  const raw = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== "string") return v;
    const blanked = blankForms(v, forms);
    if (blanked !== v) changed = true;
    return blanked;
  });
  const text = redactSecretValues(raw);
  return { text, changed: changed || text !== raw };
}

/** Whether `s` carries one of the held secrets, as written or as JSON text spells it. */
export function containsHeldSecret(s: string, held: readonly string[]): boolean {
  return held.some((secret) => secret.length >= MIN_HELD_SECRET && jsonForms(secret).some((form) => s.includes(form)));
}

/** Held secrets shorter than this are not blanked: a 3-letter value would blank words everywhere. */
const MIN_HELD_SECRET = 4;

/**
 * Every spelling of the held secrets to blank: as written, and as JSON text writes each once or
 * more over (a tool's JSON text inside a string: a secret with a quote or a backslash in it is
 * spelt otherwise there), the longest first ("admin" blanked before "admin2024pw" would leave
 * "2024pw" behind, and a shorter spelling first would leave a longer one's escapes).
 */
function heldForms(held: readonly string[]): string[] {
  const forms = held.filter((x) => x.length >= MIN_HELD_SECRET).flatMap(jsonForms);
  return [...new Set(forms)].sort((a, b) => b.length - a.length);
}

function blankForms(s: string, forms: readonly string[]): string {
  let out = s;
  for (const form of forms) out = out.split(form).join(REDACTED);
  return out;
}

function jsonForms(secret: string): string[] {
  const forms = [secret];
  // three levels: a tool's JSON text, quoted by the model in its answer, inside a JSONL line
  for (let i = 0; i < 3; i++) forms.push(JSON.stringify(forms[forms.length - 1]).slice(1, -1));
  return forms;
}

/** What a stdio server is given that it may print back: its secret-named environment values
 *  and the secrets on its command line (its log, its errors and Toolbox.secrets keep them out). */
export function stdioServerSecrets(command: string, args: readonly string[], env: Record<string, string> | undefined): string[] {
  return [...secretEnvValues(env), ...commandLineSecrets([command, ...args])];
}

/** The credential values among HTTP headers a user gave (-H): those of a header named like a
 *  secret (Authorization, Cookie, X-Api-Key, …) or shaped like a key, with the credential after an
 *  auth scheme ("Bearer abc…" → "abc…") and a cookie's values, which a server may echo alone.
 *  Other headers (X-Request-Id: 2024, Prefer: return=minimal) hold no secret. */
export function headerSecretValues(headers: Record<string, string> | undefined): string[] {
  return Object.entries(headers ?? {}).flatMap(([name, value]) => {
    const v = value.trim();
    if (!SECRET_ENV_NAME.test(name) && redactSecretValues(v) === v) return [];
    const credential = /^(?:Bearer|Basic|Token|Bot|ApiKey|Api-Key)\s+(\S+)$/i.exec(v);
    const cookies = /^(?:cookie|set-cookie)$/i.test(name) ? v.split(";").map((c) => c.split("=").slice(1).join("=").trim()) : [];
    return [v, ...(credential ? [credential[1]] : []), ...cookies].filter((x) => x.length > 0);
  });
}
// The words that name a secret, the one list every name test below is built from.
const SECRET_WORD = String.raw`(?:token|authorization|(?:api|access|secret|license|client|auth|stripe)[-_.]?key|apikey|secret|password|passwd|pwd|credentials?|pat|cookie|auth)`;
// a flag or variable whose last word names a secret: `--api-key`, `--github-token`, `DB_PASSWORD`;
// `--key-file`, `--max-tokens`, `--keyword`, `--primary-key`, `--sort-key` or `--tls-key` (a
// path) name no secret, and a negated flag (`--no-auth`) takes no value
const SECRET_NAME = new RegExp(String.raw`(?:^|[-_.])${SECRET_WORD}$`, "i");
const NEGATED = /^(?:no|disable|skip|without)[-_]/i;
// NAME=value, NAME: value, "NAME": "value" (quotes escaped too, inside JSON text); a value ends
// at a quote or backtick too (a command line quoted in a message: `srv --api-key=…`)
const SECRET_SETTING = /\b([A-Za-z_][A-Za-z0-9_.-]*)(\\?"?\s*[=:]\s*\\?"?)([^\s"'`\\,;}]{6,})/g;
// any other `…-key` / `…_KEY` (`--openai-key`, `BRAVE_KEY`) is a secret when its value looks like
// a random one: 16+ characters mixing upper case, lower case and digits, or 24+ with 6+ digits
// (hex, UUIDs); names and paths stay (`--tls-key ./key.pem`, `--partition-key customer_id_2024`)
const KEY_NAME = /(?:^|[-_.])key$/i;
const KEY_SHAPED = (v: string) =>
  /^[A-Za-z0-9_+=-][A-Za-z0-9_+/=-]{15,}$/.test(v) &&
  ((/[a-z]/.test(v) && /[A-Z]/.test(v) && /\d/.test(v)) || (v.length >= 24 && (v.match(/\d/g) ?? []).length >= 6));
const FLAG = /^(-{1,2}[A-Za-z0-9][A-Za-z0-9_.-]*)(?:=(.*))?$/s;
const ENV_ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s;

/** The words of a command line with every secret they carry replaced. */
export function redactCommandWords(words: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    const flag = FLAG.exec(word);
    const name = flag?.[1].replace(/^-+/, "") ?? "";
    const keyValue = flag?.[2] ?? words[i + 1] ?? "";
    if (flag && !NEGATED.test(name) && (SECRET_NAME.test(name) || (KEY_NAME.test(name) && KEY_SHAPED(keyValue)))) {
      if (flag[2] !== undefined) out.push(`${flag[1]}=${REDACTED}`);
      else {
        out.push(word);
        // `--token VALUE`: the next word, unless it is another flag
        if (i + 1 < words.length && !words[i + 1].startsWith("-")) {
          out.push(REDACTED);
          i++;
        }
      }
      continue;
    }
    // `GITHUB_TOKEN=x`, and as a flag's value: docker's `--env=GITHUB_TOKEN=x`, `-e GITHUB_TOKEN=x`
    const env = ENV_ASSIGNMENT.exec(flag ? (flag[2] ?? "") : word);
    if (env && (SECRET_NAME.test(env[1]) || (KEY_NAME.test(env[1]) && KEY_SHAPED(env[2])))) {
      out.push(flag ? `${flag[1]}=${env[1]}=${REDACTED}` : `${env[1]}=${REDACTED}`);
      continue;
    }
    out.push(redactSecretValues(word));
  }
  return out;
}

/** The secrets `redactCommandWords` would replace, as typed: a server that echoes its arguments
 *  into its log has them blanked there too. */
export function commandLineSecrets(words: readonly string[]): string[] {
  const redacted = redactCommandWords(words);
  const secrets: string[] = [];
  words.forEach((word, i) => {
    const r = redacted[i];
    if (r === word) return;
    if (r === REDACTED) secrets.push(word);
    // `--token=x`, `NAME=x`, `--env=NAME=x`: the word is the redacted one's prefix, then the secret
    else if (r.endsWith(`=${REDACTED}`) && word.startsWith(r.slice(0, -REDACTED.length))) secrets.push(word.slice(r.length - REDACTED.length));
    else for (const re of SECRET_VALUES) secrets.push(...(word.match(re) ?? []));
  });
  return secrets.filter((s) => s.length > 0);
}

/** A word as `splitCommandLine` reads it back. */
export function quoteWord(word: string): string {
  if (/^[A-Za-z0-9_./:=@%+,[\]-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Replaces every occurrence of the key (and of a long prefix of it) with "***". */
export function scrubKey(text: string, apiKey: string | undefined): string {
  if (!apiKey || apiKey.length < 4 || apiKey === "EMPTY") return text;
  let out = text.split(apiKey).join("***");
  // Servers often echo a masked key such as "sk-abc…xyz"; hide any 8+ character piece of it.
  if (apiKey.length >= 12) {
    for (let i = 0; i + 8 <= apiKey.length; i += 4) out = out.split(apiKey.slice(i, i + 8)).join("***");
  }
  return out;
}

/** `--env` names that say secret: a secret word or `KEY` as any word of the name (`GH_PAT`,
 *  `BRAVE_KEY`, `AUTH_HEADER`, `DB_PASSWORD_FILE`), not inside one (`MAX_TOKENS`, `MONKEY`). The
 *  user typed these values, so any `…KEY` counts, whatever its value looks like; they are blanked
 *  wherever what a server printed is written down. */
export const SECRET_ENV_NAME = new RegExp(String.raw`(?:^|[-_.])(?:${SECRET_WORD}|key)(?:$|[-_.])`, "i");

/** Tool argument names that say secret (`api_key`, `accessToken`, `password`): a secret word as a
 *  word of the name, camelCase split; a bare `key` (a Redis key, a sort key) is none. */
export function isSecretArgumentName(name: string): boolean {
  return new RegExp(String.raw`(?:^|[-_.])${SECRET_WORD}(?:$|[-_.])`, "i").test(name.replace(/([a-z0-9])([A-Z])/g, "$1_$2"));
}

/** The values of the secret-named variables among `env`. */
export function secretEnvValues(env: Record<string, string> | undefined): string[] {
  return Object.entries(env ?? {})
    .filter(([k]) => SECRET_ENV_NAME.test(k))
    .map(([, v]) => v);
}
