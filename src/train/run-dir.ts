/**
 * A run directory: what a training run leaves behind, all plain files (the report reads only
 * these). config.json (secrets removed), metrics.jsonl (one line per step), eval.jsonl (one line
 * per evaluation), trajectories.jsonl (every rollout, with rewards and judge explanations),
 * checkpoints/, summary.json, report.html. Lines are appended with one write each, so a run
 * killed mid-write loses at most its last line.
 */
import fs from "node:fs";
import path from "node:path";
import { TrainMcpError } from "../errors.js";
import { makeDirs } from "../fs-dirs.js";
import { writeFileAtomic } from "../policy/safetensors.js";
import type { EvalLine } from "../report/run-files.js";
import type { Trajectory } from "../rollout/trajectory.js";
import { redactHeldSecrets, secretEnvValues } from "../mcp/command-credentials.js";

/** One eval.jsonl line; the report reads the same schema. */
export type EvalRecord = EvalLine;

/** Files whose presence means a directory holds a run (an empty checkpoints/ alone does not). */
const RUN_FILES = ["config.json", "metrics.jsonl", "eval.jsonl", "trajectories.jsonl", "summary.json", "checkpoints/latest.json"];

const LOCK_FILE = "run.lock";

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"; // alive, another user's
  }
}

export class RunDir {
  /** the outermost folder `create` made (e.g. runs/ for runs/<stamp>), removed again by discard when empty */
  private madeFrom?: string;

  constructor(readonly dir: string) {}

  /**
   * Opens `dir` for a run. A directory that already holds a run is refused unless the run is
   * resumed: two runs in one directory would share metrics lines, checkpoints and latest.json.
   * `lock` claims it before anything is written.
   */
  static create(dir: string, o: { resume?: boolean } = {}): RunDir {
    RunDir.refuseOccupied(dir, o);
    let made: string | undefined;
    try {
      made = makeDirs(path.join(dir, "checkpoints"));
    } catch (e) {
      throw new TrainMcpError("IoFailed", `${dir}: cannot create the run directory: ${(e as Error).message}`);
    }
    const run = new RunDir(dir);
    run.madeFrom = made;
    return run;
  }

  /** Throws unless `dir` is free for a new run (or `resume` continues the run in it); writes nothing. */
  static refuseOccupied(dir: string, o: { resume?: boolean } = {}): void {
    const held = RUN_FILES.filter((f) => fs.existsSync(path.join(dir, f)));
    if (!o.resume && held.length > 0) {
      throw new TrainMcpError("ConfigInvalid", `${dir} already holds a run (${held.join(", ")}): pass --resume ${dir} to continue it, or choose another --out`);
    }
  }

  /**
   * Claims the directory for this process (`run.lock`, its pid): a second train on a live run
   * (a --resume while it still runs) would rewrite the files under it. A lock whose process is
   * gone (kill -9) is taken over.
   */
  lock(): void {
    const file = this.path(LOCK_FILE);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        fs.writeFileSync(file, `${process.pid}\n`, { flag: "wx" });
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") return; // a read-only place fails later, with its own message
      }
      const pid = Number(fs.readFileSync(file, "utf8").trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && processAlive(pid))
        throw new TrainMcpError("ConfigInvalid", `${this.dir} is in use by another train-mcp run (pid ${pid}): wait for it to finish or stop it (Ctrl-C checkpoints it), then --resume`);
      fs.rmSync(file, { force: true }); // stale: its process is gone
    }
  }

  /** Gives the directory up (the run is over, or failed). */
  unlock(): void {
    const file = this.path(LOCK_FILE);
    try {
      if (Number(fs.readFileSync(file, "utf8").trim()) === process.pid) fs.rmSync(file, { force: true });
    } catch {
      // no lock, or the directory is gone
    }
  }

  /**
   * Undoes a run that failed before its first rollout: the whole directory when this run created
   * it, else only what it wrote there (config.json, generated scenarios, an empty checkpoints/),
   * so that the same command can be run again.
   */
  discard(createdHere: boolean): void {
    if (createdHere) {
      fs.rmSync(this.dir, { recursive: true, force: true });
      // folders made on the way (runs/), while empty: another run may have started in them since
      const outer = this.madeFrom ? path.resolve(this.madeFrom) : undefined;
      for (let up = path.dirname(path.resolve(this.dir)); outer && (up === outer || up.startsWith(outer + path.sep)); up = path.dirname(up)) {
        try {
          fs.rmdirSync(up);
        } catch {
          break; // not empty: leave it and what is above it
        }
      }
      return;
    }
    for (const f of fs.readdirSync(this.dir)) if (f === "config.json" || /^scenarios-.*\.jsonl$/.test(f)) fs.rmSync(this.path(f), { force: true });
    const ck = this.path("checkpoints");
    if (fs.existsSync(ck) && fs.readdirSync(ck).length === 0) fs.rmdirSync(ck);
  }

  path(name: string): string {
    return path.join(this.dir, name);
  }

  writeJson(name: string, value: unknown): void {
    writeFileAtomic(this.path(name), JSON.stringify(value, null, 2) + "\n");
  }

  readJson<T>(name: string): T | undefined {
    const file = this.path(name);
    if (!fs.existsSync(file)) return undefined;
    return JSON.parse(fs.readFileSync(file, "utf8")) as T;
  }

  /** the API keys and secret --env values this run holds: a tool may print them (its
   *  environment, an echo), and what tools print is written into these files */
  heldSecrets: readonly string[] = [];

  append(name: "metrics.jsonl" | "eval.jsonl" | "trajectories.jsonl", records: readonly unknown[]): void {
    if (records.length === 0) return;
    fs.appendFileSync(this.path(name), records.map((r) => redactHeldSecrets(JSON.stringify(r), this.heldSecrets)).join("\n") + "\n");
  }

  appendTrajectories(trajectories: readonly Trajectory[], extra: Record<string, unknown> = {}): void {
    this.append(
      "trajectories.jsonl",
      trajectories.map((t) => ({ ...t, ...extra })),
    );
  }

  /**
   * Rewrites a JSONL file keeping what the checkpoint a resume starts from had seen: lines of
   * GRPO steps up to `at.step`, warm-start lines up to the steps it had done, never the final
   * "after" evaluation (a resumed run measures its own). `at` null (no checkpoint yet: the run
   * starts over) keeps nothing; a warm start that had not begun keeps nothing either (its probe
   * runs again).
   */
  truncateToCheckpoint(name: "metrics.jsonl" | "eval.jsonl" | "trajectories.jsonl", at: { step: number; sftDone: boolean; sftSteps?: number } | null): void {
    const file = this.path(name);
    if (!fs.existsSync(file)) return;
    const warmed = at ? (at.sftDone ? Infinity : (at.sftSteps ?? 0)) : 0;
    const kept = fs
      .readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => {
        if (!line.trim() || !at) return false;
        try {
          const v = JSON.parse(line) as { step?: number; label?: string; phase?: string };
          if (v.label === "after") return false;
          if (v.phase === "sft") return (v.step ?? 0) <= warmed; // warm-start steps count on their own
          if (!at.sftDone && warmed === 0) return false;
          return (v.step ?? 0) <= at.step;
        } catch {
          return false; // a line cut by a kill
        }
      });
    writeFileAtomic(file, kept.length ? kept.join("\n") + "\n" : "");
  }
}

/**
 * The secrets a process holds, which what tools print must not carry into its files (a run's
 * JSONL, eval's --trajectories): the API keys it was given and the secret-named --env values of
 * its stdio servers; blanks and "EMPTY" (the placeholder key of local servers) are no secrets.
 */
export function heldSecrets(keys: ReadonlyArray<string | undefined>, serverEnv?: Record<string, string>): string[] {
  return [...new Set([...keys, ...secretEnvValues(serverEnv)])].filter((k): k is string => !!k && k !== "EMPTY");
}

/** The run directory a checkpoint folder (`<run>/checkpoints/step-N`) belongs to, else undefined. */
export function runOfCheckpoint(dir: string): string | undefined {
  const abs = path.resolve(dir);
  const parent = path.dirname(abs);
  if (!/^step-\d+$/.test(path.basename(abs)) || path.basename(parent) !== "checkpoints") return undefined;
  const run = path.dirname(parent);
  return fs.existsSync(path.join(run, "config.json")) ? run : undefined;
}
