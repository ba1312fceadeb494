/**
 * What a run's scenarios were when it started: scenario-sets.json in the run directory holds the
 * sha256 of the content of each scenario file it read (whitespace aside) (given, bundled or generated for it) and the ids of its
 * training and held-out sets, in order. A --resume loads its scenarios again and compares: a
 * file changed since the start would have "after RL" measured on other tasks than "before RL"
 * (and training go on over another data order), so it is refused, naming the file. Runs made
 * before this record existed resume unchecked.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { TrainMcpError } from "../errors.js";
import { writeFileAtomic } from "../policy/safetensors.js";
import type { Scenario } from "../scenarios/schema.js";
import { sortKeys } from "../scenarios/sort-keys.js";

export const SCENARIO_RECORD_FILE = "scenario-sets.json";

export const ScenarioRecordSchema = z.object({
  sources: z
    .array(z.object({ file: z.string().describe("the file as read when the run started (absolute)"), sha256: z.string().describe("sha256 of its content: each non-blank line as compact JSON, keys sorted") }))
    .describe("the run's scenario files, in the order they were read"),
  hash: z.literal("sorted-keys").optional().describe("absent in records written before keys were sorted: their hashes keep the lines' own key order"),
  train_ids: z.array(z.string()).describe("the training set's scenario ids, in order (the data order is drawn over them)"),
  heldout_ids: z.array(z.string()).describe("the held-out set's scenario ids (after --eval-n), in order"),
});
export type ScenarioRecord = z.infer<typeof ScenarioRecordSchema>;

/** The record of the sets a run loads now from `sources` (files readable from the current directory). */
export function scenarioRecord(sources: readonly string[], train: readonly Scenario[], heldout: readonly Scenario[]): ScenarioRecord {
  return {
    sources: sources.map((f) => ({ file: path.resolve(f), sha256: contentHash(f) })),
    hash: "sorted-keys",
    train_ids: train.map((s) => s.id),
    heldout_ids: heldout.map((s) => s.id),
  };
}

/**
 * sha256 of a scenario file's content: each non-blank line as compact JSON with its keys sorted (as
 * written when it is not JSON), so a file re-indented, re-wrapped at its line ends, given blank
 * lines or rewritten by a tool that orders keys (`jq -S`) is the same file; a changed task, check or
 * order of lines is not. `keyOrder: "as-written"` is the hash of records made before keys were sorted.
 */
function contentHash(file: string, keyOrder: "sorted" | "as-written" = "sorted"): string {
  const h = createHash("sha256");
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    const text = line.trim();
    if (text === "") continue;
    let canonical = text;
    try {
      const value: unknown = JSON.parse(text);
      canonical = JSON.stringify(keyOrder === "sorted" ? sortKeys(value) : value);
    } catch {
      // a line that does not parse is compared as written
    }
    h.update(`${canonical}\n`);
  }
  return h.digest("hex");
}

/** The record in `runDir`; undefined for a run made before it was kept (or an unreadable one). */
export function readScenarioRecord(runDir: string): ScenarioRecord | undefined {
  const file = path.join(runDir, SCENARIO_RECORD_FILE);
  if (!fs.existsSync(file)) return undefined;
  try {
    return ScenarioRecordSchema.parse(JSON.parse(fs.readFileSync(file, "utf8")));
  } catch {
    return undefined; // damaged: the resume goes on unchecked, as for a run made before the record
  }
}

export function writeScenarioRecord(runDir: string, record: ScenarioRecord): void {
  writeFileAtomic(path.join(runDir, SCENARIO_RECORD_FILE), JSON.stringify(record, null, 2) + "\n");
}

/**
 * Why the sets loaded now (`now`) are not those the run started with (`saved`), or undefined when
 * they are. Files are compared by position, not by path: a run directory copied elsewhere reads
 * its generated sets from the copy.
 */
export function scenarioChange(saved: ScenarioRecord, now: ScenarioRecord): string | undefined {
  now = hashedAs(saved, now);
  const sameIds = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((id, i) => id === b[i]);
  const i = now.sources.findIndex((s, j) => saved.sources[j]?.sha256 !== s.sha256);
  const sets = `held-out set: ${saved.heldout_ids.length} scenarios then, ${now.heldout_ids.length} now, ${sharedCount(saved.heldout_ids, now.heldout_ids)} of them the same; training set: ${saved.train_ids.length} then, ${now.train_ids.length} now`;
  if (i >= 0) return `${now.sources[i].file} is not the file it started with (${sets})`;
  if (saved.sources.length !== now.sources.length)
    return `it read ${saved.sources.length} scenario files when it started (${saved.sources.map((s) => s.file).join(", ")}), ${now.sources.length} now (${sets})`;
  if (!sameIds(saved.train_ids, now.train_ids) || !sameIds(saved.heldout_ids, now.heldout_ids)) return `its files are the same, but not the scenarios taken from them (${sets})`;
  return undefined;
}

/** `now` with its files hashed as `saved`'s were: a record written before keys were sorted keeps the lines' own key order. */
function hashedAs(saved: ScenarioRecord, now: ScenarioRecord): ScenarioRecord {
  if (saved.hash === now.hash) return now;
  return { ...now, hash: saved.hash, sources: now.sources.map((s) => ({ ...s, sha256: contentHash(s.file, "as-written") })) };
}

function sharedCount(a: readonly string[], b: readonly string[]): number {
  const had = new Set(a);
  return b.filter((id) => had.has(id)).length;
}

/**
 * Keeps the record of the sets a run loads now (`now`): a new run writes it; a --resume compares
 * it with the saved one first. With a checkpoint, a change is refused (exit 2): the run's
 * "before" evaluation and its data order belong to the sets it started with. Without one the run
 * starts over, so the new sets are taken (and recorded). Returns a line for the log, if any.
 */
export function keepScenarioRecord(runDir: string, now: ScenarioRecord, o: { resume: boolean; hasCheckpoint: boolean; /** where train-mcp's bundled sets are (a change there comes with an update) */ bundledDir: string }): string | undefined {
  const saved = o.resume ? readScenarioRecord(runDir) : undefined;
  if (!saved) {
    writeScenarioRecord(runDir, now);
    return o.resume
      ? `note: ${runDir} keeps no record of the scenarios it started with (${SCENARIO_RECORD_FILE}; a run of an earlier version): they are not checked against the ones loaded now, which are recorded from here on`
      : undefined;
  }
  const change = scenarioChange(saved, now);
  if (!change) return undefined;
  if (!o.hasCheckpoint) {
    writeScenarioRecord(runDir, now);
    return `note: the run's scenarios changed since it started (${change}); it has no checkpoint yet, so it starts over on the ones loaded now`;
  }
  const file = hashedAs(saved, now).sources.find((s, j) => saved.sources[j]?.sha256 !== s.sha256)?.file;
  const how =
    file && path.dirname(file) === path.resolve(o.bundledDir)
      ? "this version of train-mcp bundles another set than the one the run started with: start a new run (another --out) to train on it"
      : file && path.dirname(file) === path.resolve(runDir)
        ? `${path.basename(file)} was generated for this run when it started: restore it from a copy of the run directory, or start a new run (another --out)`
        : `restore ${file ?? "the run's scenario files"} as ${file ? "it was" : "they were"} when the run started, or start a new run (another --out) on the new scenarios`;
  throw new TrainMcpError(
    "ConfigInvalid",
    `--resume ${runDir}: the run's scenarios changed since it started: ${change}; "before RL" was measured on the scenarios it started with, so "after RL" must be too: ${how}`,
  );
}
