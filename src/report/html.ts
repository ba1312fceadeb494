/**
 * Renders the report as ONE self-contained HTML file: inline CSS, the Chart.js UMD bundle and
 * the page script inline, the data as a `<script type="application/json">` block. Nothing is
 * fetched, so the file works offline and from file://.
 *
 * The data is JSON with every `<` written as `\u003c`: a trajectory holding `</script>` or
 * `<!--` cannot end the data block early (the OWASP rule for JSON in a script element). The
 * page's own scripts are checked for `</script` before inlining rather than rewritten.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { TrainMcpError } from "../errors.js";
import type { ReportData } from "./page-data.js";

/** The page script, in the order the files depend on each other (one shared scope). */
const CLIENT_FILES = ["dom.js", "chart-plan.js", "charts.js", "summary.js", "tool-use.js", "viewer.js", "detail.js", "main.js"];

const clientDir = join(dirname(fileURLToPath(import.meta.url)), "client");

let assetsCache: { css: string; chartJs: string; appJs: string } | null = null;

function loadAssets(): { css: string; chartJs: string; appJs: string } {
  if (assetsCache) return assetsCache;
  const css = readFileSync(join(clientDir, "report.css"), "utf8");
  const appJs = `(function () {\n"use strict";\n${CLIENT_FILES.map((f) => readFileSync(join(clientDir, f), "utf8")).join("\n")}\n})();`;
  assetsCache = { css, chartJs: chartJsSource(), appJs };
  return assetsCache;
}

/** Chart.js's UMD bundle (chart.js 4: dist/chart.umd.js), without its source-map comment. */
export function chartJsSource(): string {
  const require = createRequire(import.meta.url);
  let dist: string;
  try {
    dist = dirname(require.resolve("chart.js")); // → node_modules/chart.js/dist/chart.cjs
  } catch (e) {
    throw new TrainMcpError("IoFailed", "chart.js is not installed (npm install): the report inlines its UMD bundle", false, { cause: e });
  }
  for (const name of ["chart.umd.js", "chart.umd.min.js"]) {
    try {
      return readFileSync(join(dist, name), "utf8").replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n");
    } catch {
      // try the next name
    }
  }
  throw new TrainMcpError("IoFailed", `chart.js UMD bundle not found in ${dist}`, false);
}

/** JSON safe inside a script element: `<` escaped (and the two JS line separators, for old parsers). */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function inlineScript(source: string, what: string): string {
  if (/<\/script/i.test(source) || source.includes("<!--")) {
    throw new TrainMcpError("IoFailed", `${what} contains "</script" or "<!--" and cannot be inlined`, false);
  }
  return `<script>\n${source}\n</script>`;
}

export function renderHtml(data: ReportData): string {
  const { css, chartJs, appJs } = loadAssets();
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>train-mcp report · ${escapeHtml(data.runName)}</title>`,
    `<style>\n${css}\n</style>`,
    "</head>",
    "<body>",
    '<div id="app"><noscript>This report draws its charts and trajectory viewer with JavaScript; please enable it.</noscript></div>',
    `<script type="application/json" id="report-data">${jsonForScript(data)}</script>`,
    inlineScript(chartJs, "chart.js"),
    inlineScript(appJs, "the report script"),
    "</body>",
    "</html>",
    "",
  ].join("\n");
}
