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
