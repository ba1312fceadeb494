/** The report stage's public surface: build a run's HTML report, and the run-file schemas. */
export { buildReport, type BuildReportOptions, type BuildReportResult } from "./build-report.js";
export * from "./run-files.js";
export { scrubSecrets, scrubSecretValues, isSecretKey } from "./scrub.js";
