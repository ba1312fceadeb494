/*
 * Training curves with Chart.js (inlined UMD bundle, global `Chart`). The metrics are read by
 * key only: every numeric key of metrics.jsonl lands in a chart chosen by its namespace
 * (`reward/…`, `loss/…`, `time/…`), unknown namespaces in "Other", so a newer loop's extra
 * metrics show up without a report change. Steps of the supervised warm start are shaded.
 */

var PALETTE = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#ca8a04", "#db2777", "#4b5563", "#65a30d"];

/** chart id → [section, title, y-axis label, match(key)] in display order */
var CHART_KINDS = [
  ["reward", "Reward", "Reward (total and components)", function (k) { return k.indexOf("reward/") === 0 && k !== "reward/success_rate"; }],
  ["success", "Reward", "Success rate (training rollouts)", function (k) { return k === "reward/success_rate" || k.indexOf("success/") === 0; }],
  ["sft", "Loss", "Supervised warm-start loss", function (k) { return k === "loss/sft"; }],
  ["loss", "Loss", "Policy loss", function (k) { return k.indexOf("loss/") === 0 || k === "loss"; }],
  ["kl", "Policy", "KL divergence", function (k) { return k.indexOf("kl/") === 0 || k === "kl"; }],
  ["entropy", "Policy", "Entropy", function (k) { return k.indexOf("entropy/") === 0 || k === "entropy"; }],
  ["clip", "Policy", "Clip fraction", function (k) { return k.indexOf("clip/") === 0 || k === "clip"; }],
  ["ratio", "Policy", "Importance ratio", function (k) { return k.indexOf("ratio/") === 0 || k === "ratio"; }],
  ["grad", "Policy", "Gradient norm", function (k) { return k === "grad_norm" || k.indexOf("grad/") === 0; }],
  ["time", "Timing", "Time per step (s)", function (k) { return k.indexOf("time/") === 0; }],
];
var SECTIONS = ["Reward", "Loss", "Policy", "Timing", "Other"];
/** charts drawn in percent: "full" spans 0–100%, "auto" fits the data (clip fractions are small) */
var PERCENT_CHARTS = { success: "full", clip: "auto", evalSuccess: "full" };

/** Every key holding at least one finite number, in first-seen order. */
function numericKeys(metrics) {
  var seen = {};
  var keys = [];
  for (var i = 0; i < metrics.length; i++) {
    var m = metrics[i];
    for (var k in m) {
      if (k === "step" || seen[k] || !isNum(m[k])) continue;
      seen[k] = true;
      keys.push(k);
    }
  }
  return keys;
}

/** [{id, section, title, keys}] for the keys present; unknown namespaces get one chart each. */
function chartPlan(keys) {
  var plan = [];
  var used = {};
  CHART_KINDS.forEach(function (kind) {
    var ks = keys.filter(function (k) { return !used[k] && kind[3](k); });
    if (ks.length === 0) return;
    ks.forEach(function (k) { used[k] = true; });
    // reward/total first, so it gets the first (strongest) color
    ks.sort(function (a, b) { return (b === "reward/total") - (a === "reward/total"); });
    plan.push({ id: kind[0], section: kind[1], title: kind[2], keys: ks });
  });
  var other = {};
  keys.forEach(function (k) {
    if (used[k]) return;
    var ns = k.indexOf("/") > 0 ? k.slice(0, k.indexOf("/")) : k;
    (other[ns] = other[ns] || []).push(k);
  });
  Object.keys(other).forEach(function (ns) {
    plan.push({ id: "other-" + ns, section: "Other", title: ns, keys: other[ns] });
  });
  return plan;
}

/** [[fromStep, toStep]] runs of consecutive metrics lines with phase "sft" */
function sftRanges(metrics) {
  var ranges = [];
  var cur = null;
  metrics.forEach(function (m) {
    if (m.phase === "sft") {
      if (cur) cur[1] = m.step;
      else cur = [m.step, m.step];
    } else if (cur) {
      ranges.push(cur);
      cur = null;
    }
  });
  if (cur) ranges.push(cur);
  return ranges;
}

var phaseBandsPlugin = {
  id: "phaseBands",
  beforeDatasetsDraw: function (chart, args, opts) {
    var ranges = (opts && opts.ranges) || [];
    if (ranges.length === 0) return;
    var x = chart.scales.x;
    var area = chart.chartArea;
    var ctx = chart.ctx;
    ctx.save();
    ctx.fillStyle = "rgba(234, 179, 8, 0.12)";
    ranges.forEach(function (r) {
      var x0 = Math.max(area.left, x.getPixelForValue(r[0] - 0.5));
      var x1 = Math.min(area.right, x.getPixelForValue(r[1] + 0.5));
      if (x1 > x0) ctx.fillRect(x0, area.top, x1 - x0, area.bottom - area.top);
    });
    ctx.restore();
  },
};

function lineChart(canvas, datasets, opts) {
  var many = datasets.some(function (d) { return d.data.length > 60; });
  var chart = new Chart(canvas, {
    type: "line",
    data: {
      datasets: datasets.map(function (d, i) {
        var color = d.color || PALETTE[i % PALETTE.length];
        return {
          label: d.label,
          data: d.data,
          borderColor: color,
          backgroundColor: color,
          borderWidth: d.width || 1.6,
          pointRadius: d.pointRadius !== undefined ? d.pointRadius : many ? 0 : 2,
          pointHoverRadius: 4,
          spanGaps: true,
          tension: 0,
        };
      }),
    },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      parsing: false,
      normalized: true,
      interaction: { mode: "nearest", axis: "x", intersect: false },
      scales: {
        x: { type: "linear", min: opts.xMin, max: opts.xMax, title: { display: true, text: "step" }, ticks: { precision: 0 } },
        y: opts.percent
          ? { min: 0, max: opts.percent === "full" ? 1 : undefined, ticks: { maxTicksLimit: 6, callback: function (v) { return Number((v * 100).toFixed(2)) + "%"; } } }
          : { ticks: { maxTicksLimit: 6 } },
      },
      plugins: {
        legend: { display: datasets.length > 1, position: "bottom", labels: { boxWidth: 10, boxHeight: 10, font: { size: 11 } } },
        tooltip: {
          callbacks: {
            label: function (ctx) {
              var y = ctx.parsed.y;
              var extra = ctx.raw && ctx.raw.note ? " (" + ctx.raw.note + ")" : "";
              return ctx.dataset.label + ": " + (opts.percent ? fmtPct(y) : fmtNum(y)) + extra;
            },
          },
        },
        phaseBands: { ranges: opts.bands || [] },
      },
    },
    plugins: [phaseBandsPlugin],
  });
  return chart;
}

function chartCard(title, subtitle, group) {
  var canvas = el("canvas");
  var card = el("div", { class: "chart-card" },
    group ? el("div", { class: "chart-group" }, group) : null,
    el("h3", null, title, subtitle ? el("span", { class: "muted" }, " " + subtitle) : null),
    el("div", { class: "chart-box" }, canvas));
  return { card: card, canvas: canvas };
}

/** Builds the curves section; returns the Chart instances. */
function renderCurves(container, metrics, charts) {
  if (metrics.length === 0) {
    container.appendChild(el("p", { class: "empty" }, "No training metrics recorded (metrics.jsonl is missing or empty)."));
    return;
  }
  var sorted = metrics.slice().sort(function (a, b) { return a.step - b.step; });
  var bands = sftRanges(sorted);
  if (bands.length > 0) {
    container.appendChild(el("p", { class: "legend-note" }, el("span", { class: "swatch-sft" }), " shaded steps: supervised warm start (phase \"sft\")"));
  }
  var plan = chartPlan(numericKeys(sorted));
  // One grid (no half-empty rows per group); every chart spans the same steps so they line up.
  var xMin = sorted[0].step;
  var xMax = sorted[sorted.length - 1].step;
  // one step: an axis of width 0 draws nothing; give it a step on each side
  if (xMin === xMax) {
    xMin -= 1;
    xMax += 1;
  }
  var grid = el("div", { class: "chart-grid" });
  container.appendChild(grid);
  SECTIONS.forEach(function (name) {
    plan.filter(function (p) { return p.section === name; }).forEach(function (p) {
      var c = chartCard(p.title, p.keys.length === 1 ? p.keys[0] : null, name);
      c.card.dataset.chart = p.id;
      grid.appendChild(c.card);
      var datasets = p.keys.map(function (k) {
        var data = [];
        sorted.forEach(function (m) {
          if (isNum(m[k])) data.push({ x: m.step, y: m[k] });
        });
        return { label: k, data: data, width: k === "reward/total" ? 2.4 : 1.6 };
      });
      charts.push(lineChart(c.canvas, datasets, { percent: PERCENT_CHARTS[p.id], bands: bands, xMin: xMin, xMax: xMax }));
    });
  });
}

/** Held-out success (and pass@k) over the evaluations' steps. */
function renderEvalChart(container, evals, charts) {
  if (evals.length === 0) return;
  var sorted = evals.slice().sort(function (a, b) { return a.step - b.step; });
  // the probe before the warm start and the "before" evaluation share step 0: one x, two points
  var steps = sorted.map(function (e) { return e.step; }).filter(function (s, i, all) { return all.indexOf(s) === i; }).length;
  var c = chartCard("Held-out success over steps", "(" + sorted.length + " evaluation" + (sorted.length === 1 ? "" : "s") + (steps < sorted.length ? " at " + steps + " step" + (steps === 1 ? "" : "s") : "") + ")");
  c.card.dataset.chart = "evalSuccess";
  container.appendChild(el("div", { class: "chart-grid chart-grid-1" }, c.card));
  var datasets = [
    { label: "success rate", data: sorted.map(function (e) { return { x: e.step, y: e.success_rate, note: e.label + ", n=" + e.n }; }), pointRadius: 4, width: 2.4 },
  ];
  var withK = sorted.filter(function (e) { return isNum(e.pass_at_k); });
  if (withK.length > 0) {
    datasets.push({ label: "pass@k", data: withK.map(function (e) { return { x: e.step, y: e.pass_at_k, note: "k=" + e.k }; }), pointRadius: 3 });
  }
  charts.push(lineChart(c.canvas, datasets, { percent: "full" }));
}
