/**
 * Credentials carried inside a URL: the user-info part (`https://user:pass@host`) and query
 * parameters named like secrets (`?token=`, `?api_key=`, `&sig=`). A server URL is how a user
 * points train-mcp at a server, so it lands in config files, logs and reports: those get the URL
 * with these parts replaced, never the credential.
 */
const REDACTED = "[redacted]";

const USER_INFO = /(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]+@/gi;
// whole parameter names, or their last word after a separator (access_token, X-Amz-Signature):
// `keyword=`, `design=` or `author=` are not secrets
const SECRET_PARAM = /([?&](?:[a-z0-9._-]*[_.-])?(?:token|key|apikey|secret|passw(?:or)?d|pwd|auth|sig|signature|credential|session|sessionid)=)[^&#\s"'<>]+/gi;

/** `s` with every URL credential in it replaced by "[redacted]" (any text: a URL, a log line). */
export function redactUrlCredentials(s: string): string {
  return s.replace(USER_INFO, `$1${REDACTED}@`).replace(SECRET_PARAM, `$1${REDACTED}`);
}

/** The credential values inside a URL, as held secrets: its user-info (the password, and the user
 *  with it) and the values of its secret-named query parameters, decoded as a server sees them. */
export function urlCredentialValues(url: string): string[] {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [];
  }
  // the user alone is no secret ("admin", "user"): it is the credential when there is no password (https://TOKEN@host)
  const out = (u.password ? [u.password] : [u.username]).filter((v) => v !== "").flatMap((v) => [v, safeDecode(v)]);
  const secretParam = new RegExp(SECRET_PARAM.source, "i"); // not the global one: .test() would carry its lastIndex from one parameter to the next
  for (const [name, value] of u.searchParams) if (value && secretParam.test(`?${name}=${value}`)) out.push(value);
  // user:pass as Basic auth sends it: a server may echo the header
  if (u.password) out.push(Buffer.from(`${safeDecode(u.username)}:${safeDecode(u.password)}`).toString("base64"));
  return [...new Set(out)];
}

function safeDecode(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}
