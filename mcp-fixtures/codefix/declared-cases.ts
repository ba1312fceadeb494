/**
 * The case names a codefix test file declares, read from its text without running it: the
 * run's report must name exactly these, so no count can come from anywhere but the test file
 * (which the model cannot edit). A second check behind run-tests.mjs's own isolation.
 *
 * The format is the bundled one: `export default {` on its own line, one case per line at the
 * first key's indentation (`"name": () => ...`, `name: ...` or a method `name() {`), and `}` at
 * column 0 to close. A file in any other shape yields undefined and is not checked.
 */
const KEY = /^(?:async\s+)?(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([A-Za-z_$][\w$]*))\s*[:(]/;

export function declaredCases(source: string): string[] | undefined {
  const lines = source.split("\n");
  const open = lines.findIndex((l) => /^export default \{\s*$/.test(l));
  if (open < 0) return undefined;
  const names: string[] = [];
  let indent: string | undefined;
  for (const line of lines.slice(open + 1)) {
    if (/^\}/.test(line)) return names.length > 0 ? names : undefined;
    const lead = /^\s*/.exec(line)?.[0] ?? "";
    if (line.trim() === "" || line.trim().startsWith("//")) continue;
    indent ??= lead;
    if (lead !== indent || /^[}\])]/.test(line.trim())) continue; // the body or end of a multi-line case
    const m = KEY.exec(line.slice(lead.length));
    if (!m) return undefined;
    const name = m[1] !== undefined ? unquote(m[1]) : m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : m[3];
    if (name === undefined) return undefined;
    names.push(name);
  }
  return undefined;
}

function unquote(body: string): string | undefined {
  try {
    return JSON.parse(`"${body}"`) as string;
  } catch {
    return undefined; // an escape JSON does not know (\x41, \'): not checked
  }
}
