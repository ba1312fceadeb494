/**
 * A run directory: what a training run leaves behind, all plain files (the report reads only
 * these). config.json (secrets removed), metrics.jsonl (one line per step), eval.jsonl (one line
 * per evaluation), trajectories.jsonl (every rollout, with rewards and judge explanations),
 * checkpoints/, summary.json, report.html. Lines are appended with one write each, so a run
 * killed mid-write loses at most its last line. A run goes into a new or empty folder only: a
 * folder is known as a run by the files only a run writes (`inspectRunDir`), never by a
 * config.json alone, which a model folder has too.
 */
import fs from "node:fs";
import path from "node:path";
import { TrainMcpError } from "../errors.js";
import { makeDirs } from "../fs-dirs.js";
import { writeFileAtomic } from "../policy/safetensors.js";
import type { EvalLine } from "../report/run-files.js";
import type { Trajectory } from "../rollout/trajectory.js";
import { commandLineSecrets, headerSecretValues, redactedJson, secretEnvValues } from "../mcp/command-credentials.js";
import { urlCredentialValues } from "../mcp/url-credentials.js";
import { parseTarget } from "../mcp/target.js";
import { SCENARIO_RECORD_FILE } from "./scenario-record.js";

/** One eval.jsonl line; the report reads the same schema. */
export type EvalRecord = EvalLine;

/** Files only a run writes: any one of them means a directory holds a run. config.json is not
 *  among them: a Hugging Face model folder has one too (a run's is told apart by its fields). */
const RUN_MARKERS = ["metrics.jsonl", "eval.jsonl", "trajectories.jsonl", "summary.json", "checkpoints/latest.json", "run.lock"];

/** Files that make a folder a model (or a checkpoint of one), never a run. */
const MODEL_FILES = ["model.safetensors", "model.safetensors.index.json", "adapter_config.json", "tokenizer.json"];

/** What a folder named as a run directory (--out, --resume) holds. */
export type RunDirContents =
  | { kind: "free" } // not there, or empty (an empty checkpoints/ counts as empty: a failed start leaves none, but a user may make one)
  | { kind: "run"; evidence: string[] }
  | { kind: "model"; evidence: string }
  | { kind: "other"; entries: string[] }
  | { kind: "file" };

/** config.json's fields, when it is a JSON object (else undefined). */
function readConfigObject(file: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(fs.readFileSync(file, "utf8"));
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Tells a run directory from a model folder and from a folder of the user's own files. A run is
 * known by a file only a run writes (metrics.jsonl, checkpoints/latest.json, run.lock…), or by a
 * config.json with a run's fields (`server`); a config.json with `model_type` or `architectures`,
 * or weights, make a model folder, whatever else is there.
 */
export function inspectRunDir(dir: string): RunDirContents {
  if (!fs.existsSync(dir)) return { kind: "free" };
  if (!fs.statSync(dir).isDirectory()) return { kind: "file" };
  const entries = fs.readdirSync(dir).filter((e) => !(e === "checkpoints" && isEmptyDir(path.join(dir, e))));
  if (entries.length === 0) return { kind: "free" };
  const config = fs.existsSync(path.join(dir, "config.json")) ? readConfigObject(path.join(dir, "config.json")) : undefined;
  const modelFile = MODEL_FILES.find((f) => fs.existsSync(path.join(dir, f)));
  if (config && ("model_type" in config || "architectures" in config))
    return { kind: "model", evidence: `config.json with ${"model_type" in config ? `model_type ${JSON.stringify(config.model_type)}` : "architectures"}` };
  if (modelFile) return { kind: "model", evidence: modelFile };
  const markers = RUN_MARKERS.filter((f) => fs.existsSync(path.join(dir, f)));
  const stepDirs = fs.existsSync(path.join(dir, "checkpoints")) && fs.statSync(path.join(dir, "checkpoints")).isDirectory() && fs.readdirSync(path.join(dir, "checkpoints")).some((f) => /^step-\d+$/.test(f));
  const runConfig = config !== undefined && "server" in config;
  if (markers.length > 0 || stepDirs || runConfig) {
    const evidence = [...(fs.existsSync(path.join(dir, "config.json")) ? ["config.json"] : []), ...markers];
    if (stepDirs && !markers.includes("checkpoints/latest.json")) evidence.push("checkpoints/");
    return { kind: "run", evidence };
  }
  return { kind: "other", entries: entries.sort().map((e) => (isDir(path.join(dir, e)) ? `${e}/` : e)) };
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false; // a dangling link
  }
}

function isEmptyDir(p: string): boolean {
  return isDir(p) && fs.readdirSync(p).length === 0;
}

/** "a, b, c and 4 more" */
function someOf(names: readonly string[], shown = 4): string {
  return names.length <= shown ? names.join(", ") : `${names.slice(0, shown).join(", ")} and ${names.length - shown} more`;
}

/** A folder under `dir` no one has taken yet, to offer as a new --out. */
function freshInside(dir: string): string {
  let p = path.join(dir, "run");
  for (let i = 2; fs.existsSync(p); i++) p = path.join(dir, `run-${i}`);
  return p;
}

/** A folder beside `dir` no one has taken yet (`<dir>-run`). */
function freshBeside(dir: string): string {
  let p = `${dir.replace(/[\\/]+$/, "")}-run`;
  for (let i = 2; fs.existsSync(p); i++) p = `${dir.replace(/[\\/]+$/, "")}-run-${i}`;
  return p;
}

/**
 * Why `dir` cannot be run into, for a new run (`resume` false) or a resumed one; undefined when
 * it can. A folder of the user's own files is refused either way: a run writes config.json,
 * checkpoints/, report.html… into its folder, among (and over) what is there.
 */
export function runDirRefusal(dir: string, resume: boolean): string | undefined {
  const c = inspectRunDir(dir);
  switch (c.kind) {
    case "free":
      return undefined;
    case "file":
      return `${dir} is a file, not a folder: a run directory is a new or empty folder`;
    case "run":
      return resume ? undefined : `${dir} already holds a run (${c.evidence.join(", ")}): pass --resume ${dir} to continue it, or choose another --out`;
    case "model":
      return resume
        ? `${dir} is a model folder (${c.evidence}), not a run directory: --resume takes the folder a run wrote (its --out); a model is given with --model`
        : `${dir} is a model folder (${c.evidence}), not a run directory: --out names a new or empty folder for the run (e.g. --out ${freshBeside(dir)}); a model is given with --model`;
    case "other":
      return resume
        ? `${dir} holds no train-mcp run (it has ${someOf(c.entries)}): --resume takes the folder a run wrote (its --out)`
        : `${dir} is not empty (${someOf(c.entries)}) and holds no train-mcp run: a run writes config.json, checkpoints/, metrics.jsonl, report.html… into its folder, so --out names a new or empty one, e.g. --out ${freshInside(dir)}`;
  }
}

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
    const why = runDirRefusal(dir, !!o.resume);
    if (why) throw new TrainMcpError("ConfigInvalid", why);
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
   * it, else only what it wrote there (config.json, generated scenarios and their record, an empty checkpoints/),
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
    for (const f of fs.readdirSync(this.dir)) if (f === "config.json" || f === SCENARIO_RECORD_FILE || /^scenarios-.*\.jsonl$/.test(f)) fs.rmSync(this.path(f), { force: true });
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
    fs.appendFileSync(this.path(name), records.map((r) => redactedTrajectoryLine(r, this.heldSecrets)).join("\n") + "\n");
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
   * "after" evaluation (a resumed run measures its own); the rollouts of a server outage (phase
   * "outage", no step of their own) stay. `at` null (no checkpoint yet: the run
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
          if (v.phase === "outage") return true; // rollouts of tries that trained nothing: kept for the diagnosis
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
 * A record as one JSONL line without the secrets the process holds. When blanking changed a
 * trajectory's text, its token ids, mask and sampler log-probs are left empty (as a remote
 * rollout's are): decoded with the model's tokenizer, the ids would spell the secret back.
 */
export function redactedTrajectoryLine(record: unknown, held: readonly string[]): string {
  const { text, changed } = redactedJson(record, held);
  if (!changed || !record || typeof record !== "object" || !("tokenIds" in record)) return text;
  return redactedJson({ ...record, tokenIds: [], assistantMask: [], sampleLogprobs: [] }, held).text;
}

/**
 * The secrets a process holds, which what tools print must not carry into its files (a run's
 * JSONL, eval's --trajectories): the API keys it was given, the secret-named --env values of its
 * stdio servers and the secrets on their command lines (`--token X`: a tool may print its argv);
 * blanks and "EMPTY" (the placeholder key of local servers) are no secrets.
 */
export function heldSecrets(keys: ReadonlyArray<string | undefined>, serverEnv?: Record<string, string>, targets: readonly string[] = [], headers?: Record<string, string>): string[] {
  const inTargets = targets.flatMap((t) => {
    const spec = parseTarget(t);
    return spec.kind === "stdio" ? commandLineSecrets([spec.command, ...spec.args]) : spec.kind === "http" ? urlCredentialValues(t.trim()) : [];
  });
  return [...new Set([...keys, ...secretEnvValues(serverEnv), ...inTargets, ...headerSecretValues(headers)])].filter((k): k is string => !!k && k !== "EMPTY");
}

/** The run directory a checkpoint folder (`<run>/checkpoints/step-N`) belongs to, else undefined. */
export function runOfCheckpoint(dir: string): string | undefined {
  const abs = path.resolve(dir);
  const parent = path.dirname(abs);
  if (!/^step-\d+$/.test(path.basename(abs)) || path.basename(parent) !== "checkpoints") return undefined;
  const run = path.dirname(parent);
  return fs.existsSync(path.join(run, "config.json")) ? run : undefined;
}
