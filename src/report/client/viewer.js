/*
 * The trajectory viewer: filters (step range, scenario id, reward range, success, phase,
 * finish, tool errors), a paged list (PAGE_SIZE rows in the DOM at a time, whatever the number
 * of trajectories) and the detail pane of one rollout (detail.js). Rows open with a click,
 * Enter or Space.
 */

var PAGE_SIZE = 50;
/** the list shows rewards with this many decimals, and the reward filter compares at it */
var REWARD_DIGITS = 3;

function trajKind(t, name) {
  if (t.label !== undefined && t.label !== null) return "eval: " + name(t.label);
  return t.phase || "train";
}

function toolErrorCount(t) {
  return (t.toolCalls || []).filter(function (c) { return c.isError; }).length;
}

function numInput(id, placeholder, label, step) {
  return el("input", { id: id, type: "number", step: step || "any", placeholder: placeholder, class: "num", "aria-label": label });
}

function labeled(label, control) {
  // named outright: a select inside a label would be read with its current option ("Success any")
  control.setAttribute("aria-label", label);
  return el("label", { class: "filter" }, el("span", null, label), control);
}

/** two inputs under one caption: a group, since one label element names one control only */
function labeledPair(label, a, b) {
  return el("div", { class: "filter", role: "group", "aria-label": label }, el("span", null, label), el("span", { class: "pair" }, a, "–", b));
}

/** a value as the list shows it, so a bound typed from the list matches what it was read from */
function shownReward(x) {
  return Number((x || 0).toFixed(REWARD_DIGITS));
}

/** "all 32 before RL, 8 after RL rollouts" for the capped-sample note (stats from sample.ts) */
function pinnedNote(byLabel, name) {
  var labels = Object.keys(byLabel || {});
  if (labels.length === 0) return "";
  return "all " + labels.map(function (l) { return byLabel[l] + " " + name(l) + " (" + l + ")"; }).join(", ") + " evaluation rollouts, ";
}

function renderViewer(container, data, name) {
  var trajectories = data.trajectories;
  var stats = data.trajectoryStats;
  if (trajectories.length === 0) {
    container.appendChild(el("p", { class: "empty" }, "No trajectories recorded (trajectories.jsonl is missing or empty)."));
    return null;
  }
  var ctx = { name: name, weights: data.rewardWeights || null };
  var all = trajectories.map(function (t, i) { return { t: t, i: i, kind: trajKind(t, name), toolErrors: toolErrorCount(t) }; });
  var kinds = uniq(all.map(function (x) { return x.kind; }));
  var finishes = uniq(all.map(function (x) { return x.t.finish; }));

  var f = {
    stepMin: numInput("f-step-min", "from", "Steps from", "1"),
    stepMax: numInput("f-step-max", "to", "Steps to", "1"),
    scenario: el("input", { id: "f-scenario", type: "search", placeholder: "scenario id contains…" }),
    rewardMin: numInput("f-reward-min", "min", "Reward min"),
    rewardMax: numInput("f-reward-max", "max", "Reward max"),
    success: el("select", { id: "f-success" }, el("option", { value: "" }, "any"), el("option", { value: "yes" }, "succeeded"), el("option", { value: "no" }, "failed")),
    phase: el("select", { id: "f-phase" }, el("option", { value: "" }, "any"), kinds.map(function (k) { return el("option", { value: k }, k); })),
    finish: el("select", { id: "f-finish" }, el("option", { value: "" }, "any"), finishes.map(function (k) { return el("option", { value: k }, k); })),
    toolErr: el("input", { id: "f-tool-errors", type: "checkbox" }),
    sort: el("select", { id: "f-sort" }, el("option", { value: "step" }, "step ↑"), el("option", { value: "-step" }, "step ↓"), el("option", { value: "-reward" }, "reward ↓"), el("option", { value: "reward" }, "reward ↑")),
  };
  var reset = el("button", { id: "f-reset", type: "button" }, "Reset");
  var filters = el("div", { class: "filters" },
    labeledPair("Steps", f.stepMin, f.stepMax),
    labeled("Scenario", f.scenario),
    labeledPair("Reward", f.rewardMin, f.rewardMax),
    labeled("Success", f.success),
    labeled("Phase", f.phase),
    labeled("Finish", f.finish),
    el("label", { class: "filter filter-check" }, f.toolErr, el("span", null, "with tool errors")),
    labeled("Sort", f.sort),
    reset);
  var count = el("div", { id: "traj-count", class: "count", "aria-live": "polite" });
  var tbody = el("tbody");
  var list = el("table", { class: "data traj-list", id: "traj-list" },
    el("thead", null, el("tr", null, ["step", "phase", "scenario", "reward", "ok", "turns", "tools", "finish"].map(function (h) { return el("th", null, h); }))),
    tbody);
  var prev = el("button", { id: "page-prev", type: "button" }, "‹ Prev");
  var next = el("button", { id: "page-next", type: "button" }, "Next ›");
  var pageInfo = el("span", { id: "page-info", class: "muted" });
  var detail = el("div", { id: "traj-detail", class: "detail" }, el("p", { class: "empty" }, "Select a trajectory to see its conversation and tool calls."));
  var note = stats.capped
    ? el("p", { class: "muted", id: "sample-note" }, "Embedded: " + stats.embedded + " of " + stats.total + " trajectories (" + pinnedNote(stats.pinnedByLabel, name) + "the rest sampled evenly over steps).")
    : null;
  var listPane = el("div", { class: "list-pane" }, count, el("div", { class: "list-scroll" }, list), el("div", { class: "pager" }, prev, pageInfo, next));

  container.appendChild(filters);
  append(container, note);
  container.appendChild(el("div", { class: "viewer" }, listPane, detail));

  var state = { matches: all, page: 0, selected: null, problem: "" };

  function num(input) {
    return input.value === "" || !isFinite(Number(input.value)) ? null : Number(input.value);
  }

  /** "" or why the range [lo, hi] holds nothing; marks both inputs invalid when it is inverted */
  function inverted(what, lo, hi, a, b) {
    var bad = lo !== null && hi !== null && lo > hi;
    a.setAttribute("aria-invalid", String(bad));
    b.setAttribute("aria-invalid", String(bad));
    return bad ? "the " + what + " range is inverted (" + lo + " > " + hi + ")" : "";
  }

  function apply() {
    var smin = num(f.stepMin), smax = num(f.stepMax), rmin = num(f.rewardMin), rmax = num(f.rewardMax);
    // at the list's precision: min = max = 0.333 finds the rewards shown as 0.333 (stored 0.3333…)
    if (rmin !== null) rmin = shownReward(rmin);
    if (rmax !== null) rmax = shownReward(rmax);
    var q = f.scenario.value.trim().toLowerCase();
    var succ = f.success.value, phase = f.phase.value, finish = f.finish.value, te = f.toolErr.checked;
    var m = all.filter(function (x) {
      var t = x.t;
      if (smin !== null && t.step < smin) return false;
      if (smax !== null && t.step > smax) return false;
      if (q && String(t.scenarioId).toLowerCase().indexOf(q) === -1) return false;
      if (rmin !== null && !(shownReward(t.reward) >= rmin)) return false;
      if (rmax !== null && !(shownReward(t.reward) <= rmax)) return false;
      if (succ === "yes" && !t.success) return false;
      if (succ === "no" && t.success) return false;
      if (phase && x.kind !== phase) return false;
      if (finish && t.finish !== finish) return false;
      if (te && x.toolErrors === 0) return false;
      return true;
    });
    var key = f.sort.value.replace("-", ""), dir = f.sort.value.charAt(0) === "-" ? -1 : 1;
    m.sort(function (a, b) { return dir * ((a.t[key] || 0) - (b.t[key] || 0)) || a.i - b.i; });
    state.problem = [inverted("steps", smin, smax, f.stepMin, f.stepMax), inverted("reward", rmin, rmax, f.rewardMin, f.rewardMax)].filter(Boolean).join("; ");
    state.matches = m;
    state.page = 0;
    draw();
  }

  function draw() {
    var n = state.matches.length;
    var pages = Math.max(1, Math.ceil(n / PAGE_SIZE));
    state.page = Math.min(state.page, pages - 1);
    count.dataset.count = String(n);
    count.classList.toggle("bad", !!state.problem);
    clear(count).appendChild(document.createTextNode(state.problem ? "No match: " + state.problem : n + " of " + all.length + " trajectories match"));
    clear(tbody);
    state.matches.slice(state.page * PAGE_SIZE, (state.page + 1) * PAGE_SIZE).forEach(function (x) {
      var t = x.t;
      var row = el("tr", { class: "traj-row" + (state.selected === x.i ? " selected" : ""), dataset: { index: x.i, id: t.id }, tabindex: "0", "aria-selected": String(state.selected === x.i),
        onclick: function () { select(x.i, true); },
        onkeydown: function (ev) {
          if (ev.key !== "Enter" && ev.key !== " ") return;
          ev.preventDefault(); // Space would scroll the page
          select(x.i, true);
        } },
        el("td", null, String(t.step)),
        el("td", null, x.kind),
        el("td", { class: "scen" }, t.scenarioId),
        el("td", { class: "num" }, fmtNum(t.reward, REWARD_DIGITS)),
        el("td", null, t.success ? badge("✓", "ok") : badge("✗", "bad")),
        el("td", { class: "num" }, String(t.turns)),
        el("td", { class: "num" }, String((t.toolCalls || []).length), x.toolErrors ? el("span", { class: "bad" }, " (" + x.toolErrors + " err)") : null),
        el("td", null, t.finish === "answer" ? "answer" : badge(t.finish, t.finish === "error" ? "bad" : "warn")));
      tbody.appendChild(row);
    });
    pageInfo.textContent = n === 0 ? "no match" : "page " + (state.page + 1) + " of " + pages;
    prev.disabled = state.page === 0;
    next.disabled = state.page >= pages - 1;
  }

  /** Shows trajectory i; `reveal` (a person asked) scrolls the pane into view where it sits under the list. */
  function select(i, reveal) {
    state.selected = i;
    Array.prototype.forEach.call(tbody.querySelectorAll(".traj-row"), function (r) {
      var on = Number(r.dataset.index) === i;
      r.classList.toggle("selected", on);
      r.setAttribute("aria-selected", String(on));
    });
    clear(detail).appendChild(renderDetail(trajectories[i], ctx));
    // one column (a phone): the pane is below the list, often off screen
    if (reveal && detail.getBoundingClientRect().top >= listPane.getBoundingClientRect().bottom) detail.scrollIntoView({ block: "start" });
  }

  [f.stepMin, f.stepMax, f.scenario, f.rewardMin, f.rewardMax].forEach(function (x) { x.addEventListener("input", apply); });
  [f.success, f.phase, f.finish, f.toolErr, f.sort].forEach(function (x) { x.addEventListener("change", apply); });
  reset.addEventListener("click", function () {
    [f.stepMin, f.stepMax, f.scenario, f.rewardMin, f.rewardMax].forEach(function (x) { x.value = ""; });
    [f.success, f.phase, f.finish].forEach(function (x) { x.value = ""; });
    f.sort.value = "step";
    f.toolErr.checked = false;
    apply();
  });
  prev.addEventListener("click", function () { state.page--; draw(); });
  next.addEventListener("click", function () { state.page++; draw(); });
  apply();
  return { apply: apply, select: select, state: state };
}

function uniq(xs) {
  var seen = {};
  return xs.filter(function (x) { if (seen[x]) return false; seen[x] = true; return true; }).sort();
}
