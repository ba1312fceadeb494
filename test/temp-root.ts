/**
 * vitest globalSetup: every temporary file the tests make (theirs, the CLI's and the servers'
 * they start, which all ask os.tmpdir()) goes under one folder of this run, removed when the
 * run ends. Tests make hundreds of model folders, run directories and database clusters; left
 * in /tmp they added up to gigabytes over a few dozen runs. KEEP_TEST_TMP=1 keeps the folder
 * (its path is printed) to look into a failure.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export default function setup(): () => void {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "train-mcp-tests-"));
  // open to other users, as /tmp is: the database tests run initdb and mariadbd as their own users
  fs.chmodSync(root, 0o755);
  // workers are forked after this, so they and every process they spawn inherit it
  process.env.TMPDIR = root;
  return () => {
    if (process.env.KEEP_TEST_TMP) {
      console.log(`test temporary files kept in ${root}`);
      return;
    }
    // a browser a timed-out test left behind may still be writing its profile there
    try {
      fs.rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    } catch (e) {
      console.warn(`could not remove the tests' temporary folder ${root}: ${(e as Error).message}`);
    }
  };
}
