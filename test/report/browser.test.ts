/**
 * The report in a real browser: headless Chromium (Debian's `chromium`, driven by
 * playwright-core) opens the file:// page built from a generated run and we check what a
 * person would: no console error and no request at all (the page is self-contained), the
 * charts drawn with their data, the viewer's filters giving the expected counts, a click
 * showing the tool calls, and hostile tool output (`</script>`, HTML) shown as text.
 * Chromium missing is a failure, not a skip: CI must install it (`apt-get install -y chromium`).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildReport } from "../../src/report/build-report.js";
import { INJECTED, INJECTED_SCENARIO, makeRun, type FakeRun } from "./make-run.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

interface ReportApi {
  ready: boolean;
  charts: Array<{ canvas: HTMLCanvasElement; data: { datasets: Array<{ label: string; data: unknown[] }> } }>;
}

let root: string;
let run: FakeRun;
let browser: Browser | undefined;
let page: Page;
const consoleErrors: string[] = [];
const requests: string[] = [];
let reportUrl: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: the report's browser test needs it (Debian: apt-get install -y chromium; or set CHROMIUM_PATH)`);
  }
  root = mkdtempSync(join(tmpdir(), "report-browser-"));
  run = makeRun(join(root, "run"));
  const built = await buildReport(run.dir, { now: new Date("2026-11-30T06:00:00Z") });
  reportUrl = pathToFileURL(built.path).href;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") consoleErrors.push(`${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => consoleErrors.push(`pageerror: ${e.message}`));
  page.on("request", (r) => requests.push(r.url()));
  page.on("requestfailed", (r) => consoleErrors.push(`requestfailed: ${r.url()}`));
  await page.goto(reportUrl);
  await page.waitForFunction(() => (window as unknown as { __report?: ReportApi }).__report?.ready === true, null, { timeout: 20_000 });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

const count = async (): Promise<number> => Number(await page.getAttribute("#traj-count", "data-count"));
const clearFilters = async (): Promise<void> => page.click("#f-reset");

describe("the report page in Chromium", () => {
  it("loads with no console error and fetches nothing but itself", () => {
    expect(consoleErrors).toEqual([]);
    expect(requests).toEqual([reportUrl]);
  });

  it("draws the charts with their data", async () => {
    const charts = await page.evaluate(() =>
      (window as unknown as { __report: ReportApi }).__report.charts.map((c) => ({
        w: c.canvas.getBoundingClientRect().width,
        h: c.canvas.getBoundingClientRect().height,
        points: c.data.datasets.reduce((n, d) => n + d.data.length, 0),
        labels: c.data.datasets.map((d) => d.label),
      })),
    );
    const labels = charts.flatMap((c) => c.labels);
    for (const key of ["reward/total", "reward/verifier", "reward/success_rate", "loss/policy", "loss/sft", "kl/mean", "entropy", "clip/high", "grad_norm", "time/step", "custom/unknown_metric", "success rate"]) {
      expect(labels).toContain(key);
    }
    for (const c of charts) {
      expect(c.w).toBeGreaterThan(100);
      expect(c.h).toBeGreaterThan(100);
      expect(c.points).toBeGreaterThan(0);
    }
    const rewardPoints = charts.find((c) => c.labels[0] === "reward/total")?.points;
    expect(rewardPoints).toBe(4 * run.metrics.filter((m) => m.phase === "grpo").length);
    // something was painted: the canvas is not blank
    const painted = await page.evaluate(() => {
      const c = (window as unknown as { __report: ReportApi }).__report.charts[0].canvas;
      const ctx = c.getContext("2d") as CanvasRenderingContext2D;
      const px = ctx.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < px.length; i += 4) if (px[i] !== 0) n++;
      return n;
    });
    expect(painted).toBeGreaterThan(1000);
  });

  it("shows the held-out before/after table with the delta", async () => {
    const text = await page.textContent("#before-after");
    expect(text).toContain("30.0%");
    expect(text).toContain("90.0%");
    expect(text).toContain("+60.0 pts");
    expect(await page.textContent("#notes")).toMatch(/metrics\.jsonl:31: last line is incomplete/);
  });

  it("filters by scenario id, reward, step and success", async () => {
    await clearFilters();
    expect(await count()).toBe(run.trajectories.length);
    expect(await page.locator(".traj-row").count()).toBe(50); // one page in the DOM

    await page.fill("#f-scenario", "calc-00");
    expect(await count()).toBe(run.trajectories.filter((t) => t.scenarioId.includes("calc-00")).length);

    await clearFilters();
    await page.fill("#f-reward-min", "0.8");
    expect(await count()).toBe(run.trajectories.filter((t) => t.reward >= 0.8).length);
    await page.fill("#f-step-min", "10");
    await page.fill("#f-step-max", "20");
    const expected = run.trajectories.filter((t) => t.reward >= 0.8 && t.step >= 10 && t.step <= 20).length;
    expect(expected).toBeGreaterThan(0);
    expect(await count()).toBe(expected);

    await clearFilters();
    await page.selectOption("#f-success", "no");
    await page.selectOption("#f-phase", "eval: after");
    expect(await count()).toBe(run.trajectories.filter((t) => !t.success && t.label === "after").length);
    await clearFilters();
  });

  it("shows a trajectory's tool calls, rewards and judge explanation on click", async () => {
    await page.selectOption("#f-finish", "answer");
    await page.click(".traj-row >> nth=0");
    const first = run.trajectories.filter((t) => t.finish === "answer").sort((a, b) => a.step - b.step)[0];
    await expect.poll(() => page.locator("#traj-detail .tool-call").count()).toBe(first.toolCalls.length);
    const detail = (await page.textContent("#traj-detail")) ?? "";
    expect(detail).toContain(first.scenarioId);
    expect(detail).toContain(first.judgeExplanation as string);
    expect(detail).toContain("verifier");
    expect(await page.locator("#traj-detail .msg").count()).toBe(first.messages.length);
    await clearFilters();
  });

  it("shows hostile tool output as text, never as markup", async () => {
    await page.fill("#f-scenario", INJECTED_SCENARIO);
    expect(await count()).toBe(1);
    await page.click(".traj-row >> nth=0");
    const results = await page.locator("#traj-detail .tc-result").allTextContents();
    expect(results).toContain(INJECTED);
    expect(await page.locator("#traj-detail .tool-call.is-error").count()).toBe(1);
    expect(await page.locator("#injected").count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.textContent("#traj-detail")).toContain("OPENAI_API_KEY=[redacted]");
    expect(consoleErrors).toEqual([]);
    expect(requests).toEqual([reportUrl]); // the <img src="x"> was never an element
    await clearFilters();
  });

  it("pages through the list", async () => {
    await page.click("#page-next");
    expect(await page.textContent("#page-info")).toBe(`page 2 of ${Math.ceil(run.trajectories.length / 50)}`);
    expect(await page.locator(".traj-row").count()).toBe(50);
  });
});

describe("the report of a one-step run without a held-out set", () => {
  it("draws its one step on a real axis, and says success was not measured rather than 'yet'", async () => {
    const dir = join(root, "one-step");
    mkdirSync(join(dir, "checkpoints"), { recursive: true });
    writeFileSync(join(dir, "config.json"), JSON.stringify({ seed: 1, max_steps: 1 }));
    writeFileSync(join(dir, "metrics.jsonl"), JSON.stringify({ step: 1, phase: "grpo", time: "2026-11-30T05:00:00Z", "reward/total": 0.4, "loss/total": 0.1 }) + "\n");
    writeFileSync(join(dir, "summary.json"), JSON.stringify({ heldout_before: null, heldout_after: null, heldout_n: 0, steps: 1, wall_s: 3 }));
    const built = await buildReport(dir);
    const one = await browser!.newPage({ viewport: { width: 1400, height: 1000 } });
    try {
      await one.goto(pathToFileURL(built.path).href);
      await one.waitForFunction(() => (window as unknown as { __report?: ReportApi }).__report?.ready === true, null, { timeout: 20_000 });
      const axes = await one.evaluate(() =>
        (window as unknown as { __report: { charts: Array<{ scales: { x: { min: number; max: number } } }> } }).__report.charts.map((c) => [c.scales.x.min, c.scales.x.max]),
      );
      expect(axes.length).toBeGreaterThan(0);
      for (const [min, max] of axes) expect(max - min).toBeGreaterThan(0);
      expect(await one.textContent("body")).toContain("Not measured: the run had no held-out scenarios");
    } finally {
      await one.close();
    }
  });
});
