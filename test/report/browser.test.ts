/**
 * The report in a real browser: headless Chromium (Debian's `chromium`, driven by
 * playwright-core) opens the file:// page built from a generated run and we check what a
 * person would: no console error and no request at all (the page is self-contained), the
 * charts drawn with their data (one scale per chart, titled axes, legends that fit), the
 * viewer's filters giving the expected counts, a click, Enter or Space showing a rollout's
 * tool calls and weighted rewards, hostile tool output (`</script>`, HTML) shown as text, and
 * a phone-sized window with no sideways scrolling.
 * Chromium missing is a failure, not a skip: CI must install it (`apt-get install -y chromium`).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildReport } from "../../src/report/build-report.js";
import { INJECTED, INJECTED_SCENARIO, makeRun, OUTPUT_PROBLEM_SCENARIO, SFT_STEPS, UNPARSED_RAW, UNPARSED_SCENARIO, type FakeRun } from "./make-run.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

interface ChartLike {
  canvas: HTMLCanvasElement;
  chartArea: { top: number; bottom: number };
  data: { datasets: Array<{ label: string; keys?: string[]; showLine?: boolean; data: Array<{ x: number; y: number; std?: number }> }> };
  scales: { y: { ticks: Array<{ label: string }>; options: { title: { display: boolean; text: string } } } };
}
interface ReportApi {
  ready: boolean;
  charts: ChartLike[];
}

/** What a test needs of each chart, read in the page. */
async function chartFacts(p: Page) {
  return p.evaluate(() =>
    (window as unknown as { __report: ReportApi }).__report.charts.map((c) => ({
      id: (c.canvas.closest("[data-chart]") as HTMLElement).dataset.chart as string,
      aria: c.canvas.getAttribute("aria-label"),
      plotHeight: c.chartArea.bottom - c.chartArea.top,
      yTitle: c.scales.y.options.title.display ? c.scales.y.options.title.text : "",
      yTicks: c.scales.y.ticks.map((t) => t.label),
      datasets: c.data.datasets.map((d) => ({ label: d.label, keys: d.keys ?? [], showLine: d.showLine, data: d.data.map((p) => ({ x: p.x, y: p.y, std: p.std })) })),
    })),
  );
}

async function openReport(path: string, width = 1400): Promise<Page> {
  const p = await browser!.newPage({ viewport: { width, height: 1000 } });
  await p.goto(pathToFileURL(path).href);
  await p.waitForFunction(() => (window as unknown as { __report?: ReportApi }).__report?.ready === true, null, { timeout: 20_000 });
  return p;
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
    for (const key of ["reward/total", "reward/verifier", "reward/success_rate", "loss/policy", "loss/sft", "kl/mean", "policy/entropy", "clip/high", "grad_norm", "lr", "time/step", "custom/unknown_metric", "success rate"]) {
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

  it("plots every series as metrics.jsonl has it, one scale per chart, with titled axes and room for the legend", async () => {
    const charts = (await chartFacts(page)).filter((c) => c.id !== "evalSuccess");
    const chartOf = (key: string) => charts.find((c) => c.datasets.some((d) => d.keys.includes(key)))?.id;
    for (const c of charts) {
      expect(c.yTitle, c.id).not.toBe("");
      expect(c.aria, c.id).toMatch(/ by step$/);
      // the legend's rows come out of the canvas, not out of the plot
      expect(c.plotHeight, c.id).toBeGreaterThan(120);
      for (const d of c.datasets) {
        for (const key of d.keys) {
          // (the warm start's steps are drawn ending at 0, where RL begins: read-run.ts)
          const expected = run.metrics.filter((m) => typeof m[key] === "number").map((m) => ({ x: m.phase === "sft" ? m.step - SFT_STEPS : m.step, y: m[key] }));
          expect(d.data.map((p) => ({ x: p.x, y: p.y })), key).toEqual(expected);
        }
      }
    }
    const labels = charts.flatMap((c) => c.datasets.map((d) => d.label));
    // a spread is the tooltip's ± of its series, not a line of its own
    expect(labels.filter((l) => l.endsWith("_std"))).toEqual([]);
    const total = charts.find((c) => c.id === "reward")!.datasets.find((d) => d.label === "reward/total")!;
    expect(total.data.map((p) => p.std)).toEqual(run.metrics.filter((m) => m.phase === "grpo").map((m) => m["reward/total_std"]));
    // one scale per chart
    expect(chartOf("time/step")).not.toBe(chartOf("time/reward/verifier"));
    expect(chartOf("rollout/turns")).not.toBe(chartOf("rollout/tool_calls"));
    expect(chartOf("policy/entropy")).toBe("entropy");
    expect(chartOf("loss/policy")).toBe(chartOf("loss/total"));
    expect(charts.find((c) => c.id === "loss")!.datasets).toHaveLength(3); // loss/total differs from loss/policy here
    // 5.4e-5, not 5.400000E-5
    const lrTicks = charts.find((c) => c.id === "lr")!.yTicks;
    expect(lrTicks.length).toBeGreaterThan(1);
    for (const t of lrTicks) expect(t).toMatch(/^(0|\d(\.\d+)?e-\d+)$/);
    // clipping happened in this run, and KL was measured: no notes
    expect(await page.locator(".chart-note").count()).toBe(0);
    // three held-out evaluations (the probe mixes in training scenarios: not on this curve) are a trend
    const heldout = (await chartFacts(page)).find((c) => c.id === "evalSuccess")!;
    expect(heldout.datasets[0].data.map((p) => p.x)).toEqual([0, 15, 30]);
    expect(heldout.datasets[0].showLine).toBe(true);
  });

  it("shows the held-out before/after table with the delta", async () => {
    const text = await page.textContent("#before-after");
    expect(text).toContain("30.0%");
    expect(text).toContain("90.0%");
    expect(text).toContain("+60.0 pts");
    expect(await page.textContent("#notes")).toMatch(/metrics\.jsonl:31: last line is incomplete/);
  });

  it("shows how the held-out rollouts used each tool before and after RL", async () => {
    const of = (label: string) => run.trajectories.filter((t) => t.label === label);
    const calling = (label: string) => of(label).filter((t) => t.toolCalls.some((c) => c.name === "add"));
    const failed = (label: string) => of(label).flatMap((t) => t.toolCalls).filter((c) => c.name === "add" && c.isError).length;
    const row = page.locator('#tool-use tr[data-tool="add"]');
    const cells = await row.locator("td").allTextContents();
    // rollouts calling it, calls, failed calls, passed of those, mean time: a before and an after column each
    expect(cells).toHaveLength(10);
    expect(cells[0]).toMatch(new RegExp(`^${calling("before").length} of 10 \\(`));
    expect(cells[1]).toMatch(new RegExp(`^${calling("after").length} of 10 \\(`));
    expect(cells[4]).toBe(String(failed("before")));
    expect(cells[5]).toBe(String(failed("after")));
    expect(cells[7]).toMatch(new RegExp(`^${calling("after").filter((t) => t.success).length} of ${calling("after").length} `));
    expect(failed("before") + failed("after")).toBeGreaterThan(0);
    expect(await row.locator("th").textContent()).toContain("invalid arguments");
    expect(await row.locator("th").textContent()).toContain("results breaking its outputSchema: 0 → 1");
    const without = (label: string) => of(label).filter((t) => t.toolCalls.length === 0).length;
    expect(await page.locator('.tool-totals tr[data-row="without-tool"] td').allTextContents()).toEqual([`${without("before")} of 10 (${without("before") * 10}%)`, `${without("after")} of 10 (${without("after") * 10}%)`]);
    expect(await page.locator('nav.toc a[href="#tools"]').count()).toBe(1);
    // the rollout itself marks the call
    await page.fill("#f-scenario", OUTPUT_PROBLEM_SCENARIO);
    await page.click(".traj-row >> nth=0");
    expect(await page.locator("#traj-detail .tool-call .tc-head").textContent()).toContain("breaks its outputSchema");
    expect(await page.locator("#traj-detail .tc-output-problem").textContent()).toBe('add: structuredContent does not match the outputSchema: must have required property "sum"');
    await clearFilters();
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
    await page.selectOption("#f-phase", "eval: after RL");
    expect(await count()).toBe(run.trajectories.filter((t) => !t.success && t.label === "after").length);
    await clearFilters();
  });

  it("filters rewards at the precision the list shows them, and says when a range is inverted", async () => {
    const shown = (x: number) => Number(x.toFixed(3));
    // the unparsed rollout's reward is 1/3, shown as 0.333
    await page.fill("#f-reward-min", "0.333");
    await page.fill("#f-reward-max", "0.333");
    const expected = run.trajectories.filter((t) => shown(t.reward) === 0.333).length;
    expect(expected).toBeGreaterThan(0);
    expect(await count()).toBe(expected);
    for (const cell of await page.locator(".traj-row td.num >> nth=0").allTextContents()) expect(cell).toMatch(/^\d+\.\d{3}$/);

    await page.fill("#f-reward-min", "0.8");
    await page.fill("#f-reward-max", "0.2");
    expect(await count()).toBe(0);
    expect(await page.textContent("#traj-count")).toBe("No match: the reward range is inverted (0.8 > 0.2)");
    expect(await page.getAttribute("#f-reward-min", "aria-invalid")).toBe("true");
    await clearFilters();
    expect(await page.getAttribute("#f-reward-min", "aria-invalid")).toBe("false");
  });

  it("names the evaluations as the held-out table does, and labels every filter input", async () => {
    const phases = await page.locator("#f-phase option").allTextContents();
    expect(phases).toEqual(expect.arrayContaining(["eval: before RL", "eval: after RL", "eval: warm-start probe", "eval: periodic"]));
    expect(phases.some((p) => /base/.test(p))).toBe(false);
    expect(await page.textContent("#before-after thead")).toContain("Before RL");
    for (const name of ["Steps from", "Steps to", "Reward min", "Reward max", "Scenario", "Success", "Phase", "Finish", "Sort"]) {
      expect(await page.getByLabel(name, { exact: true }).count(), name).toBe(1);
    }
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
    // each component's weight; weight 0 (reference_calls) marked as not counted
    const weightOf = async (c: string) => page.locator("#traj-detail .rewards tbody tr", { hasText: c }).locator("td").nth(1).textContent();
    expect(await weightOf("ruler")).toBe("2"); // the config's override
    expect(await weightOf("verifier")).toBe("4");
    expect(await weightOf("reference_calls")).toBe("0");
    expect(await page.locator("#traj-detail tr.logged-only").allTextContents()).toEqual([expect.stringMatching(/^reference_calls \(logged only\)0\d\.\d{4}/)]);
    for (const score of await page.locator("#traj-detail .rewards td:nth-child(3)").allTextContents()) expect(score).toMatch(/^-?\d+\.\d{4}$/);
    await clearFilters();
  });

  it("opens a row with Enter or Space and marks it selected", async () => {
    const rows = page.locator(".traj-row");
    await rows.nth(2).focus();
    await page.keyboard.press(" ");
    expect(await page.textContent("#traj-detail h3")).toBe(await rows.nth(2).locator("td.scen").textContent());
    expect(await page.locator('.traj-row[aria-selected="true"]').count()).toBe(1);
    expect(await rows.nth(2).getAttribute("aria-selected")).toBe("true");
    await rows.nth(3).focus();
    await page.keyboard.press("Enter");
    expect(await rows.nth(3).getAttribute("aria-selected")).toBe("true");
    expect(await rows.nth(2).getAttribute("aria-selected")).toBe("false");
  });

  it("shows a tool call that did not parse as the model wrote it, and a failed rollout's answer in red", async () => {
    await page.fill("#f-scenario", UNPARSED_SCENARIO);
    await page.click(".traj-row >> nth=0");
    const bad = page.locator("#traj-detail .tool-call.unparsed");
    expect(await bad.count()).toBe(1);
    expect(await bad.locator(".tc-head").textContent()).toBe("unparsed tool calldid not parse: invalid_json");
    expect(await bad.locator(".tc-raw").textContent()).toBe(UNPARSED_RAW);
    expect(await page.locator("#traj-detail .tool-call:not(.unparsed) .tc-name").textContent()).toBe("add");
    expect(await page.locator("#traj-detail .answer").getAttribute("class")).toBe("answer answer-bad");
    await clearFilters();
    await page.fill("#f-scenario", "calc-");
    await page.selectOption("#f-success", "yes");
    await page.click(".traj-row >> nth=0");
    expect(await page.locator("#traj-detail .answer").getAttribute("class")).toBe("answer answer-ok");
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

describe("the report on a phone-sized window", () => {
  it("has no sideways scrolling, scrolls an opened rollout into view, and keeps section titles clear of the sticky nav", async () => {
    const narrow = await openReport(new URL(reportUrl).pathname, 420);
    try {
      expect(await narrow.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(420);
      await narrow.click(".traj-row >> nth=0");
      const top = await narrow.evaluate(() => document.getElementById("traj-detail")!.getBoundingClientRect().top);
      expect(top).toBeGreaterThanOrEqual(0);
      expect(top).toBeLessThan(200);
      await narrow.click('nav.toc a[href="#curves"]');
      const [navBottom, sectionTop] = await narrow.evaluate(() => [document.querySelector("nav.toc")!.getBoundingClientRect().bottom, document.getElementById("curves")!.getBoundingClientRect().top]);
      expect(sectionTop).toBeGreaterThanOrEqual(navBottom);
    } finally {
      await narrow.close();
    }
  });
});

/**
 * A run as the trainer writes it with the defaults: no warm start, so the probe "base" is the
 * before-RL evaluation (its eval.jsonl line copied as "before"); beta 0, so no KL and
 * loss/policy = loss/total; no clipping.
 */
describe("the report of a run without warm start, KL or clipping", () => {
  it("names the probe as the before-RL evaluation, draws before/after as points and says why charts are flat or missing", async () => {
    const dir = join(root, "no-warm-start");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "config.json"), JSON.stringify({ seed: 1, max_steps: 2, beta: 0, rewards: { weights: {} } }));
    const metric = (step: number, loss: number) => ({ step, phase: "grpo", time: `2026-11-30T05:0${step}:00Z`, "reward/total": 0.4 + step / 10, "loss/policy": loss, "loss/total": loss, "clip/low": 0, "clip/high": 0, "policy/entropy": 0.6 });
    writeFileSync(join(dir, "metrics.jsonl"), [metric(1, -0.8), metric(2, 0)].map((m) => JSON.stringify(m)).join("\n") + "\n");
    const base = { step: 0, label: "base", split: "test", n: 4, success_rate: 0.5, mean_reward: 0.6, mean_turns: 2, time: "2026-11-30T05:00:30Z" };
    const after = { ...base, step: 2, label: "after", success_rate: 0.75, time: "2026-11-30T05:03:00Z" };
    writeFileSync(join(dir, "eval.jsonl"), [base, { ...base, label: "before" }, after].map((e) => JSON.stringify(e)).join("\n") + "\n");
    const traj = (id: string, label: string | undefined, step: number) =>
      JSON.stringify({ id, scenarioId: `s-${id}`, groupId: "g", step, ...(label ? { phase: "eval", label } : { phase: "grpo" }), messages: [{ role: "user", content: "hi" }], tokenIds: [], assistantMask: [], sampleLogprobs: [], toolCalls: [], finish: "answer", turns: 1 });
    writeFileSync(join(dir, "trajectories.jsonl"), [traj("a", "base", 0), traj("b", undefined, 1), traj("c", "after", 2)].join("\n") + "\n");
    const p = await openReport((await buildReport(dir)).path);
    try {
      expect(await p.locator("#f-phase option").allTextContents()).toEqual(["any", "eval: after RL", "eval: before RL", "grpo"]);
      const charts = await chartFacts(p);
      // the copied "before" line is the same measurement as "base": drawn once; two points, no line
      const heldout = charts.find((c) => c.id === "evalSuccess")!;
      expect(heldout.datasets[0].data.map((d) => d.x)).toEqual([0, 2]);
      expect(heldout.datasets[0].showLine).toBe(false);
      // identical series are one line
      expect(charts.find((c) => c.id === "loss")!.datasets.map((d) => d.keys)).toEqual([["loss/total", "loss/policy"]]);
      expect(await p.textContent('[data-chart="kl"]')).toMatch(/Not computed: beta is 0/);
      expect(await p.locator('[data-chart="kl"] canvas').count()).toBe(0);
      expect(await p.textContent('[data-chart="clip"] .chart-note')).toMatch(/^No clipping in this run/);
      expect(await p.locator('[data-chart="entropy"] canvas').count()).toBe(1);
      expect(consoleErrors).toEqual([]);
    } finally {
      await p.close();
    }
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
      expect(await one.textContent("#tools")).toContain("No tool use recorded: this run's held-out evaluations do not say");
      expect(await one.locator("#tool-use").count()).toBe(0);
    } finally {
      await one.close();
    }
  });
});
