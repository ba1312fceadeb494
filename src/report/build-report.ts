/**
 * buildReport(runDir): the run directory's files → one self-contained report.html, written
 * atomically (a temp file in the same folder, then rename) so a browser or a second writer
 * never sees half a page. Safe to call while a run is going: a partial run gives a partial
 * report with notes saying what is missing.
 */
import { randomBytes } from "node:crypto";
import { renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { TrainMcpError } from "../errors.js";
import { renderHtml } from "./html.js";
import { buildPageData } from "./page-data.js";
import { readRun } from "./read-run.js";
import { RUN_FILES } from "./run-files.js";
import { sampleTrajectories, type SampleOptions } from "./sample.js";
import { makeDirs } from "../fs-dirs.js";

export interface BuildReportOptions extends SampleOptions {
  /** output file (default <runDir>/report.html) */
  out?: string;
  /** the time stamped in the report (default now; fixed in tests) */
  now?: Date;
}

export interface BuildReportResult {
  path: string;
  /** trajectories embedded in the page */
  trajectories: number;
  bytes: number;
  /** the notes shown at the top of the page (missing files, cut lines, the cap) */
  notes: string[];
}

export async function buildReport(runDir: string, options: BuildReportOptions = {}): Promise<BuildReportResult> {
  const run = await readRun(runDir);
  const sample = await sampleTrajectories(runDir, options);
  const data = buildPageData(run, sample, options.now ?? new Date());
  const html = renderHtml(data);
  const path = resolve(options.out ?? join(runDir, RUN_FILES.report));
  writeAtomic(path, html);
  return { path, trajectories: data.trajectories.length, bytes: Buffer.byteLength(html), notes: data.notes.map((n) => n.message) };
}

function writeAtomic(path: string, text: string): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    makeDirs(dirname(path));
    writeFileSync(tmp, text);
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new TrainMcpError("IoFailed", `could not write the report to ${path}: ${(e as Error).message}`, true, { cause: e });
  }
}
