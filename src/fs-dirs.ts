/**
 * `mkdir -p` for the folders a user names (--out, a scenario file's folder, an export): one
 * level at a time. Node 20's recursive mkdirSync never returns for a path under /proc (it
 * retries ENOENT forever); a non-recursive one fails at once, naming the folder.
 */
import fs from "node:fs";
import path from "node:path";

/** Makes `target` and its missing parents; returns the first folder it made, as recursive mkdir does. */
export function makeDirs(target: string): string | undefined {
  const missing: string[] = [];
  for (let d = path.resolve(target); !fs.existsSync(d); d = path.dirname(d)) {
    missing.unshift(d);
    if (path.dirname(d) === d) break;
  }
  for (const d of missing) {
    try {
      fs.mkdirSync(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
  }
  return missing[0];
}
