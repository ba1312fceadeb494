/**
 * `train-mcp report <run-dir> [--out FILE] [--max-trajectories N] [--json]`: (re)builds the
 * run's self-contained HTML report from its files. Works on a finished, a running or a killed
 * run; what is missing or cut short is listed on the page and on stderr. A path that is not a
 * run directory exits with code 2.
 */
import type { Command } from "commander";
import { existsSync, statSync } from "node:fs";
import { TrainMcpError } from "../../errors.js";
import { intFlag } from "../number-flags.js";
import { buildReport } from "../../report/build-report.js";
import { DEFAULT_MAX_TRAJECTORIES } from "../../report/sample.js";

interface ReportFlags {
  out?: string;
  maxTrajectories: string;
  json?: boolean;
}

export function register(program: Command): void {
  program
    .command("report")
    .description("build the self-contained HTML report of a run directory")
    .argument("<run-dir>", "the run directory (holds metrics.jsonl, eval.jsonl, trajectories.jsonl...)")
    .option("--out <file>", "where to write the report (default <run-dir>/report.html)")
    .option("--max-trajectories <n>", "most trajectories embedded in the page (the before/after evaluations' always are, unless 0: none)", String(DEFAULT_MAX_TRAJECTORIES))
    .option("--json", "print one JSON object {path, trajectories, bytes, notes}")
    .action(async (runDir: string, flags: ReportFlags) => {
      const max = intFlag("--max-trajectories", flags.maxTrajectories, 0);
      // (before the run is read: a folder is never replaced by the page)
      if (flags.out !== undefined && existsSync(flags.out) && statSync(flags.out).isDirectory()) throw new TrainMcpError("ConfigInvalid", `--out ${flags.out} is a folder: name the file (.html) to write`);
      const result = await buildReport(runDir, { out: flags.out, maxTrajectories: max });
      if (flags.json) {
        process.stdout.write(JSON.stringify(result) + "\n");
        return;
      }
      for (const note of result.notes) process.stderr.write(`note: ${note}\n`);
      const mb = (result.bytes / 1e6).toFixed(1);
      process.stdout.write(`report: ${result.path} (${mb} MB, ${result.trajectories} trajectories)\n`);
    });
}
