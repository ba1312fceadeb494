/*
 * The top of the report: the run header, the data notes (missing files, a cut last line, the
 * trajectory cap), the held-out before/after table with deltas, every evaluation, and the
 * config. Before = the first "before" evaluation, after = the last "after" one; without
 * eval.jsonl lines the summary.json fractions are used.
 */

function pickEvals(evals, summary) {
  var before = null;
  var after = null;
  evals.forEach(function (e) {
    if (e.label === "before" && !before) before = e;
    if (e.label === "after") after = e;
  });
  if (!before && summary && isNum(summary.heldout_before)) before = { success_rate: summary.heldout_before, n: summary.heldout_n, fromSummary: true };
  if (!after && summary && isNum(summary.heldout_after)) after = { success_rate: summary.heldout_after, n: summary.heldout_n, fromSummary: true };
  return { before: before, after: after };
}

/** A "before" line the loop copied from the warm-start probe's "base" line (same step, time and numbers). */
function isBaseCopy(e, evals) {
  return e.label === "before" && evals.some(function (b) {
    return b.label === "base" && b.step === e.step && b.time === e.time && b.n === e.n && b.success_rate === e.success_rate && b.mean_reward === e.mean_reward;
  });
}

/**
 * label → the name the page shows, one name per measurement. src/train/loop.ts labels the
 * warm-start probe "base"; when no warm start follows, the probe is the before-RL evaluation
 * (its line is copied as "before", its rollouts stay "base") and is named so.
 */
function evalNamer(evals) {
  var baseIsBefore = evals.some(function (e) { return isBaseCopy(e, evals); });
  var names = { before: "before RL", after: "after RL", base: baseIsBefore ? "before RL" : "warm-start probe", periodic: "periodic" };
  return function (label) { return names[label] || label; };
}

function modelName(config) {
  if (!config) return null;
  var candidates = [config.model, config.model_name, config.modelPath, config.model_path, config.policy && config.policy.model];
  for (var i = 0; i < candidates.length; i++) if (typeof candidates[i] === "string") return candidates[i];
  return null;
}

function renderHeader(root, data, picked) {
  var s = data.summary || {};
  var finished = !!data.summary;
  var lastStep = data.metrics.reduce(function (m, x) { return Math.max(m, x.step); }, 0);
  var steps = isNum(s.steps) ? s.steps : lastStep;
  var model = modelName(data.config);
  var delta = picked.before && picked.after ? picked.after.success_rate - picked.before.success_rate : null;

  root.appendChild(
    el("header", { class: "top" },
      el("div", { class: "title-row" },
        el("h1", null, "train-mcp report"),
        el("span", { class: "run-name", title: data.runDir }, data.runName),
        finished ? badge("finished", "ok") : badge("in progress or stopped", "warn")),
      el("div", { class: "meta" },
        model ? el("span", null, "model ", el("code", null, model)) : null,
        el("span", null, "generated " + data.generatedAt.replace("T", " ").replace(/\.\d+Z$/, " UTC")),
        el("span", null, "run dir ", el("code", null, data.runDir)))));

  var cards = el("div", { class: "cards" });
  cards.appendChild(card("Held-out success",
    picked.before || picked.after
      ? el("span", null, fmtPct(picked.before && picked.before.success_rate), el("span", { class: "arrow" }, " → "), el("strong", null, fmtPct(picked.after && picked.after.success_rate)))
      : "–",
    delta === null ? (noHeldOut(data.summary) ? "not measured: no held-out set" : "no before/after evaluation yet") : el("span", { class: delta > 0 ? "good" : delta < 0 ? "bad" : "" }, fmtSigned(delta * 100, 1, " pts"))));
  cards.appendChild(card("Held-out scenarios", String((picked.after && picked.after.n) || (picked.before && picked.before.n) || s.heldout_n || "–"), "split: " + ((picked.after && picked.after.split) || "test")));
  cards.appendChild(card("Steps", String(steps || "–"), data.metrics.length + " metrics lines"));
  cards.appendChild(card("Wall time", fmtDuration(s.wall_s), finished ? "whole run" : "run not finished"));
  var ts = data.trajectoryStats;
  cards.appendChild(card("Trajectories", String(ts.total), ts.capped ? ts.embedded + " embedded (sampled)" : "all embedded"));
  root.appendChild(cards);
}

var NO_HELD_OUT = "Not measured: the run had no held-out scenarios (split \"test\"). Give it a scenario file with some to see success before and after RL.";

/** a finished run whose held-out set was empty: nothing will ever be recorded */
function noHeldOut(summary) {
  return !!summary && summary.heldout_n === 0;
}

function card(label, value, sub) {
  return el("div", { class: "card" }, el("div", { class: "card-label" }, label), el("div", { class: "card-value" }, value), el("div", { class: "card-sub" }, sub));
}

function renderNotes(root, notes) {
  if (notes.length === 0) return;
  var warn = notes.filter(function (n) { return n.level === "warn"; });
  var box = el("div", { class: "notes" + (warn.length ? " notes-warn" : ""), id: "notes" },
    el("strong", null, warn.length ? "Data notes (" + warn.length + " problem" + (warn.length === 1 ? "" : "s") + ")" : "Data notes"),
    el("ul", null, notes.map(function (n) { return el("li", { class: "note-" + n.level }, n.message); })));
  root.appendChild(box);
}

function renderBeforeAfter(container, picked, summary) {
  var b = picked.before;
  var a = picked.after;
  if (!b && !a) {
    container.appendChild(el("p", { class: "empty" }, noHeldOut(summary) ? NO_HELD_OUT : "No held-out evaluation recorded yet."));
    return;
  }
  var k = (a && a.k) || (b && b.k);
  var rows = [
    ["Success rate", "success_rate", fmtPct, function (d) { return fmtSigned(d * 100, 1, " pts"); }, 1],
    ["Mean reward", "mean_reward", function (x) { return fmtNum(x, 3); }, function (d) { return fmtSigned(d, 3); }, 1],
    ["Mean turns", "mean_turns", function (x) { return fmtNum(x, 2); }, function (d) { return fmtSigned(d, 2); }, 0],
    ["pass@" + (k || "k"), "pass_at_k", fmtPct, function (d) { return fmtSigned(d * 100, 1, " pts"); }, 1],
    ["Scenarios (n)", "n", function (x) { return isNum(x) ? String(x) : "–"; }, null, 0],
  ];
  var table = el("table", { class: "data ba-table", id: "before-after" },
    el("thead", null, el("tr", null, el("th", null, ""), el("th", null, "Before RL" + (b && isNum(b.step) ? " (step " + b.step + ")" : "")), el("th", null, "After RL" + (a && isNum(a.step) ? " (step " + a.step + ")" : "")), el("th", null, "Δ"))),
    el("tbody", null, rows.map(function (r) {
      var bv = b ? b[r[1]] : undefined;
      var av = a ? a[r[1]] : undefined;
      if (!isNum(bv) && !isNum(av)) return null;
      var d = isNum(bv) && isNum(av) && r[3] ? av - bv : null;
      var cls = d === null || d === 0 || !r[4] ? "" : d > 0 ? "good" : "bad";
      return el("tr", null, el("th", null, r[0]), el("td", null, r[2](bv)), el("td", null, r[2](av)), el("td", { class: cls }, d === null ? "" : r[3](d)));
    })));
  container.appendChild(scrollBox(table));
  if ((b && b.fromSummary) || (a && a.fromSummary)) container.appendChild(el("p", { class: "muted" }, "From summary.json (eval.jsonl has no before/after line)."));

  var tb = (b && b.per_tag) || {};
  var ta = (a && a.per_tag) || {};
  var tags = Object.keys(Object.assign({}, tb, ta)).sort();
  if (tags.length > 0) {
    container.appendChild(el("h3", null, "Success by tag"));
    container.appendChild(scrollBox(el("table", { class: "data tag-table" },
      el("thead", null, el("tr", null, el("th", null, "tag"), el("th", null, "before"), el("th", null, "after"), el("th", null, "Δ"))),
      el("tbody", null, tags.map(function (t) {
        var d = isNum(tb[t]) && isNum(ta[t]) ? ta[t] - tb[t] : null;
        return el("tr", null, el("th", null, t), el("td", null, fmtPct(tb[t])), el("td", null, fmtPct(ta[t])), el("td", { class: d > 0 ? "good" : d < 0 ? "bad" : "" }, d === null ? "" : fmtSigned(d * 100, 1, " pts")));
      })))));
  }
}

function renderEvalList(container, evals, name) {
  if (evals.length === 0) return;
  var sorted = evals.slice().sort(function (a, b) { return a.step - b.step; });
  var labelled = function (label) { return name(label) === label ? label : name(label) + " (" + label + ")"; };
  container.appendChild(el("details", { class: "eval-list" },
    el("summary", null, "All evaluations (" + sorted.length + ")"),
    scrollBox(el("table", { class: "data" },
      el("thead", null, el("tr", null, ["step", "label", "split", "n", "success", "mean reward", "mean turns", "pass@k"].map(function (h) { return el("th", null, h); }))),
      el("tbody", null, sorted.map(function (e) {
        return el("tr", null, el("td", null, String(e.step)), el("td", null, labelled(e.label)), el("td", null, e.split || ""), el("td", null, String(e.n)), el("td", null, fmtPct(e.success_rate)), el("td", null, fmtNum(e.mean_reward, 3)), el("td", null, fmtNum(e.mean_turns, 2)), el("td", null, isNum(e.pass_at_k) ? fmtPct(e.pass_at_k) + " (k=" + e.k + ")" : "–"));
      }))))));
}

function renderConfig(container, config) {
  container.appendChild(
    config
      ? el("details", { class: "config" }, el("summary", null, "Resolved training config (secrets removed)"), el("pre", { class: "code" }, JSON.stringify(config, null, 2)))
      : el("p", { class: "empty" }, "No config.json in the run directory."));
}
