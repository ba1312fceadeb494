/*
 * Training curves with Chart.js (inlined UMD bundle, global `Chart`), one chart per entry of
 * chartPlan (chart-plan.js), each with a y-axis title and ticks readable at any scale (5.4e-5,
 * not 5.400000E-5). Steps of the supervised warm start are shaded.
 */

var PALETTE = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#ca8a04", "#db2777", "#4b5563", "#65a30d"];

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

/** Tick labels with as many decimals as the tick spacing needs, exponent notation for tiny ones. */
function tickLabel(exp) {
  return function (v, i, ticks) {
    if (v === 0) return "0";
    var spacing = ticks.length > 1 ? Math.abs(ticks[1].value - ticks[0].value) : Math.abs(v);
    if (exp || spacing < 1e-3 || Math.abs(v) >= 1e6) return Number(v.toPrecision(3)).toExponential();
    var d = 0;
    while (d < 6 && Math.abs(spacing * Math.pow(10, d) - Math.round(spacing * Math.pow(10, d))) > 1e-6) d++;
    return v.toFixed(d);
  };
}

function pctTick(v) {
  return Number((v * 100).toFixed(2)) + "%";
}

/** opts: y (axis title), percent, exp (exponent ticks), points (no joining line), bands, xMin, xMax */
function lineChart(canvas, datasets, opts) {
  var many = datasets.some(function (d) { return d.data.length > 60; });
  var fmt = function (y) { return opts.percent ? fmtPct(y) : fmtNum(y); };
  var y = opts.percent ? { min: 0, max: opts.percent === "full" ? 1 : undefined, ticks: { maxTicksLimit: 6, callback: pctTick } } : { ticks: { maxTicksLimit: 6, callback: tickLabel(opts.exp) } };
  y.title = { display: true, text: opts.y };
  var chart = new Chart(canvas, {
    type: "line",
    data: {
      datasets: datasets.map(function (d, i) {
        var color = d.color || PALETTE[i % PALETTE.length];
        return {
          label: d.label,
          keys: d.keys,
          data: d.data,
          borderColor: color,
          backgroundColor: color,
          borderWidth: d.width || 1.6,
          pointRadius: d.pointRadius !== undefined ? d.pointRadius : many ? 0 : 2,
          pointHoverRadius: 5,
          showLine: !opts.points,
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
        // points alone get room at the edges, or the first and last would be cut in half
        x: { type: "linear", min: opts.xMin, max: opts.xMax, offset: !!opts.points, title: { display: true, text: "step" }, ticks: { precision: 0 } },
        y: y,
      },
      plugins: {
        legend: { display: datasets.length > 1, position: "bottom", labels: { boxWidth: 10, boxHeight: 10, font: { size: 11 } } },
        tooltip: {
          callbacks: {
            label: function (ctx) {
              var raw = ctx.raw || {};
              var spread = isNum(raw.std) ? " ± " + fmt(raw.std) + " (std over rollouts)" : "";
              var keys = ctx.dataset.keys || [];
              return (keys.length > 1 ? keys.join(" = ") : ctx.dataset.label) + ": " + fmt(ctx.parsed.y) + spread + (raw.note ? " (" + raw.note + ")" : "");
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

/**
 * A chart's box is tall enough for its legend: Chart.js fits the legend inside the canvas, so
 * each row of it would otherwise come off the plot. Rows are estimated from the labels' length.
 */
function boxHeight(labels, width) {
  if (labels.length < 2) return 230;
  var rows = 1;
  var x = 0;
  labels.forEach(function (l) {
    var w = l.length * 6.5 + 28;
    if (x > 0 && x + w > width) {
      rows++;
      x = 0;
    }
    x += w;
  });
  return 200 + 22 * rows;
}

function chartCard(title, subtitle, group) {
  var box = el("div", { class: "chart-box" });
  var card = el("div", { class: "chart-card" },
    group ? el("div", { class: "chart-group" }, group) : null,
    el("h3", null, title, subtitle ? el("span", { class: "muted" }, " " + subtitle) : null),
    box);
  return { card: card, box: box };
}

/** The canvas, with a text alternative saying what it plots. */
function chartCanvas(box, title, labels, height) {
  box.style.height = height + "px";
  var canvas = el("canvas", { role: "img", "aria-label": title + ": " + labels.join(", ") + " by step" });
  box.appendChild(canvas);
  return canvas;
}

function allZero(series) {
  return series.every(function (s) { return s.data.every(function (p) { return p.y === 0; }); });
}

/** Builds the curves section, pushing the Chart instances onto `charts`. */
function renderCurves(container, metrics, config, charts) {
  if (metrics.length === 0) {
    container.appendChild(el("p", { class: "empty" }, "No training metrics recorded (metrics.jsonl is missing or empty)."));
    return;
  }
  var sorted = metrics.slice().sort(function (a, b) { return a.step - b.step; });
  var bands = sftRanges(sorted);
  if (bands.length > 0) {
    container.appendChild(el("p", { class: "legend-note" }, el("span", { class: "swatch-sft" }), " shaded steps: supervised warm start (phase \"sft\")"));
  }
  var plan = chartPlan(numericKeys(sorted), config);
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
      var series = planSeries(p, sorted);
      var c = chartCard(p.title, series.length === 1 ? series[0].label : null, name);
      c.card.dataset.chart = p.id;
      grid.appendChild(c.card);
      var note = p.note || (p.zeroNote && allZero(series) ? p.zeroNote : null);
      if (note) c.box.parentNode.insertBefore(el("p", { class: "chart-note" }, note), c.box);
      if (series.length === 0) {
        c.box.remove();
        return;
      }
      var labels = series.map(function (s) { return s.label; });
      var canvas = chartCanvas(c.box, p.title, labels, boxHeight(labels, c.box.clientWidth || 400));
      charts.push(lineChart(canvas, series, { y: p.y, percent: p.percent, exp: p.exp, bands: bands, xMin: xMin, xMax: xMax }));
    });
  });
}

/** Held-out success (and pass@k) over the evaluations' steps; `name` gives an evaluation's display name. */
function renderEvalChart(container, evals, name, charts) {
  if (evals.length === 0) return;
  var sorted = evals.slice().sort(function (a, b) { return a.step - b.step; });
  // the probe before the warm start and the "before" evaluation share step 0: one x, two points
  var steps = sorted.map(function (e) { return e.step; }).filter(function (s, i, all) { return all.indexOf(s) === i; }).length;
  var title = "Held-out success over steps";
  var c = chartCard(title, "(" + sorted.length + " evaluation" + (sorted.length === 1 ? "" : "s") + (steps < sorted.length ? " at " + steps + " step" + (steps === 1 ? "" : "s") : "") + ")");
  c.card.dataset.chart = "evalSuccess";
  container.appendChild(el("div", { class: "chart-grid chart-grid-1" }, c.card));
  var datasets = [
    { label: "success rate", data: sorted.map(function (e) { return { x: e.step, y: e.success_rate, note: name(e.label) + ", n=" + e.n }; }), pointRadius: 5, width: 2.4 },
  ];
  var withK = sorted.filter(function (e) { return isNum(e.pass_at_k); });
  if (withK.length > 0) {
    datasets.push({ label: "pass@k", data: withK.map(function (e) { return { x: e.step, y: e.pass_at_k, note: "k=" + e.k }; }), pointRadius: 4 });
  }
  var canvas = chartCanvas(c.box, title, datasets.map(function (d) { return d.label; }), 230);
  // before and after only are two measurements, not a trend: points, no line between them
  charts.push(lineChart(canvas, datasets, { y: "held-out success", percent: "full", points: steps <= 2 }));
}
