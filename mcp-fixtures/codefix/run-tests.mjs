// Child-process side of codefix's run_tests: imports every `*.test.js` file in one task folder
// (argv[2]), runs each exported case (a function; async allowed), and writes one JSON line
// {nonce, cases: [{name, ok, error}]} to stdout. Runs under the sandbox flags of
// shared/sandbox.ts, so it can only read the workspace.
//
// The code under test runs in this very process, so it must not be able to report results
// itself (print "16/16 passed" and exit, or make every assertion pass). The parent sends a nonce
// on stdin, read here before any workspace module loads and kept in this module's scope: only a
// results line carrying it counts. The JavaScript intrinsics are frozen (--frozen-intrinsics)
// and so are node:assert's exports, so the code cannot rewrite how assertions, errors or JSON
// work; the writer is taken before it loads.
//
// The code under test may also import its own test file (an import cycle) and rewrite or extend
// the suite object before the runner reads it. So each test file is imported under a random
// query, which makes a module instance of its own: an import of "./x.test.js" from the code
// gets a different instance, never the one whose cases run here. The query is fresh per file
// (a stack trace during one file's cases may show it), and the cases are read at once.
import assert from "node:assert";
import strict from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { inspect } from "node:util";

const nonce = readFileSync(0, "utf8").trim();
const emit = writeSync;
for (const a of [assert, strict]) Object.freeze(a);

const taskDir = process.argv[2];
const cases = [];
const describe = (e) => {
  // Assertion errors: "expected X, got Y" reads better than node's multi-line diff.
  if (e && e.code === "ERR_ASSERTION" && ("expected" in e || "actual" in e)) {
    return `expected ${inspect(e.expected)}, got ${inspect(e.actual)}`;
  }
  return e && typeof e === "object" && "message" in e ? `${e.name ?? "Error"}: ${e.message}` : String(e);
};

const files = readdirSync(taskDir).filter((f) => f.endsWith(".test.js")).sort();
for (const file of files) {
  let entries;
  try {
    const url = `${pathToFileURL(join(taskDir, file)).href}?run=${randomBytes(16).toString("hex")}`;
    entries = Object.entries((await import(url)).default ?? {});
  } catch (e) {
    // A syntax error in the module under test surfaces here: report it as one failing case.
    cases.push({ name: `${file} (loading)`, ok: false, error: describe(e) });
    continue;
  }
  for (const [name, fn] of entries) {
    try {
      await fn();
      cases.push({ name, ok: true, error: null });
    } catch (e) {
      cases.push({ name, ok: false, error: describe(e).split("\n")[0].slice(0, 300) });
    }
  }
}
// (a newline first: output the code left without one does not run into the results line)
emit(1, "\n" + JSON.stringify({ nonce, cases }) + "\n");
process.exit(0);
