/*
 * Entry point of the report page: reads the embedded JSON (script#report-data), lays out the
 * sections and exposes `window.__report` ({data, charts, viewer, ready}) for tests and for
 * anyone poking at the run from the browser console.
 */

function main() {
  var app = document.getElementById("app");
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var charts = [];
  var api = { data: data, charts: charts, viewer: null, ready: false };
  window.__report = api;
  clear(app);
  if (typeof Chart === "undefined") throw new Error("Chart.js did not load");
  Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
  Chart.defaults.font.size = 11;
  Chart.defaults.color = "#4b5563";

  var picked = pickEvals(data.evals, data.summary);
  var evalName = evalNamer(data.evals);
  renderHeader(app, data, picked);
  renderNotes(app, data.notes);

  var nav = el("nav", { class: "toc" }, [["#heldout", "Held-out evaluation"], ["#tools", "Tool use"], ["#curves", "Training curves"], ["#trajectories", "Trajectories"], ["#config", "Config"]].map(function (x) { return el("a", { href: x[0] }, x[1]); }));
  app.appendChild(nav);

  var ev = section("heldout", "Held-out evaluation");
  app.appendChild(ev.node);
  renderBeforeAfter(ev.body, picked, data.summary);
  // the warm-start probe may mix in training scenarios: the curve is of held-out ones only, and
  // a probe's line copied as "before" is one measurement, drawn once
  var heldout = data.evals.filter(function (e) { return (!e.split || e.split === "test") && !isBaseCopy(e, data.evals); });
  renderEvalChart(ev.body, heldout, evalName, charts);
  renderEvalList(ev.body, data.evals, evalName);

  var tu = section("tools", "Tool use");
  app.appendChild(tu.node);
  renderToolUse(tu.body, picked);

  var cv = section("curves", "Training curves");
  app.appendChild(cv.node);
  renderCurves(cv.body, data.metrics, data.config, charts);

  var tv = section("trajectories", "Trajectories");
  app.appendChild(tv.node);
  api.viewer = renderViewer(tv.body, data, evalName);

  var cf = section("config", "Config");
  app.appendChild(cf.node);
  renderConfig(cf.body, data.config);

  api.ready = true;
}

try {
  main();
} catch (e) {
  var app = document.getElementById("app");
  app.appendChild(el("div", { class: "error-box" }, "The report could not be drawn: " + (e && e.message ? e.message : String(e))));
  throw e;
}
