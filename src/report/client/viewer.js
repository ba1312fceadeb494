/*
 * The trajectory viewer: filters (step range, scenario id, reward range, success, phase,
 * finish, tool errors), a paged list (PAGE_SIZE rows in the DOM at a time, whatever the number
 * of trajectories) and a detail pane showing one rollout: rewards, judge explanation, each tool
 * call (arguments, result, error highlighted, time) and the conversation as a chat.
 */

var PAGE_SIZE = 50;
var LONG_TEXT = 1200; // longer message bodies start collapsed

function trajKind(t) {
  if (t.label !== undefined && t.label !== null) return "eval: " + t.label;
  return t.phase || "train";
}

function toolErrorCount(t) {
  return (t.toolCalls || []).filter(function (c) { return c.isError; }).length;
}

function numInput(id, placeholder, step) {
  return el("input", { id: id, type: "number", step: step || "any", placeholder: placeholder, class: "num" });
}

function labeled(label, control) {
  return el("label", { class: "filter" }, el("span", null, label), control);
}

function renderViewer(container, trajectories, stats) {
  if (trajectories.length === 0) {
    container.appendChild(el("p", { class: "empty" }, "No trajectories recorded (trajectories.jsonl is missing or empty)."));
    return null;
  }
  var all = trajectories.map(function (t, i) { return { t: t, i: i, kind: trajKind(t), toolErrors: toolErrorCount(t) }; });
  var kinds = uniq(all.map(function (x) { return x.kind; }));
  var finishes = uniq(all.map(function (x) { return x.t.finish; }));

  var f = {
    stepMin: numInput("f-step-min", "from", "1"),
    stepMax: numInput("f-step-max", "to", "1"),
    scenario: el("input", { id: "f-scenario", type: "search", placeholder: "scenario id contains…" }),
    rewardMin: numInput("f-reward-min", "min"),
    rewardMax: numInput("f-reward-max", "max"),
    success: el("select", { id: "f-success" }, el("option", { value: "" }, "any"), el("option", { value: "yes" }, "succeeded"), el("option", { value: "no" }, "failed")),
    phase: el("select", { id: "f-phase" }, el("option", { value: "" }, "any"), kinds.map(function (k) { return el("option", { value: k }, k); })),
    finish: el("select", { id: "f-finish" }, el("option", { value: "" }, "any"), finishes.map(function (k) { return el("option", { value: k }, k); })),
    toolErr: el("input", { id: "f-tool-errors", type: "checkbox" }),
    sort: el("select", { id: "f-sort" }, el("option", { value: "step" }, "step ↑"), el("option", { value: "-step" }, "step ↓"), el("option", { value: "-reward" }, "reward ↓"), el("option", { value: "reward" }, "reward ↑")),
  };
  var reset = el("button", { id: "f-reset", type: "button" }, "Reset");
  var filters = el("div", { class: "filters" },
    labeled("Steps", el("span", { class: "pair" }, f.stepMin, "–", f.stepMax)),
    labeled("Scenario", f.scenario),
    labeled("Reward", el("span", { class: "pair" }, f.rewardMin, "–", f.rewardMax)),
    labeled("Success", f.success),
    labeled("Phase", f.phase),
    labeled("Finish", f.finish),
    el("label", { class: "filter filter-check" }, f.toolErr, el("span", null, "with tool errors")),
    labeled("Sort", f.sort),
    reset);
  var count = el("div", { id: "traj-count", class: "count" });
  var tbody = el("tbody");
  var list = el("table", { class: "data traj-list", id: "traj-list" },
    el("thead", null, el("tr", null, ["step", "phase", "scenario", "reward", "ok", "turns", "tools", "finish"].map(function (h) { return el("th", null, h); }))),
    tbody);
  var prev = el("button", { id: "page-prev", type: "button" }, "‹ Prev");
  var next = el("button", { id: "page-next", type: "button" }, "Next ›");
  var pageInfo = el("span", { id: "page-info", class: "muted" });
  var detail = el("div", { id: "traj-detail", class: "detail" }, el("p", { class: "empty" }, "Select a trajectory to see its conversation and tool calls."));
  var note = stats.capped ? el("p", { class: "muted" }, "Embedded: " + stats.embedded + " of " + stats.total + " trajectories (all before/after evaluation rollouts, the rest sampled evenly over steps).") : null;

  container.appendChild(filters);
  append(container, note);
  container.appendChild(el("div", { class: "viewer" },
    el("div", { class: "list-pane" }, count, el("div", { class: "list-scroll" }, list), el("div", { class: "pager" }, prev, pageInfo, next)),
    detail));

  var state = { matches: all, page: 0, selected: null };

  function num(input) {
    return input.value === "" || !isFinite(Number(input.value)) ? null : Number(input.value);
  }

  function apply() {
    var smin = num(f.stepMin), smax = num(f.stepMax), rmin = num(f.rewardMin), rmax = num(f.rewardMax);
    var q = f.scenario.value.trim().toLowerCase();
    var succ = f.success.value, phase = f.phase.value, finish = f.finish.value, te = f.toolErr.checked;
    var m = all.filter(function (x) {
      var t = x.t;
      if (smin !== null && t.step < smin) return false;
      if (smax !== null && t.step > smax) return false;
      if (q && String(t.scenarioId).toLowerCase().indexOf(q) === -1) return false;
      if (rmin !== null && !(t.reward >= rmin)) return false;
      if (rmax !== null && !(t.reward <= rmax)) return false;
      if (succ === "yes" && !t.success) return false;
      if (succ === "no" && t.success) return false;
      if (phase && x.kind !== phase) return false;
      if (finish && t.finish !== finish) return false;
      if (te && x.toolErrors === 0) return false;
      return true;
    });
    var key = f.sort.value.replace("-", ""), dir = f.sort.value.charAt(0) === "-" ? -1 : 1;
    m.sort(function (a, b) { return dir * ((a.t[key] || 0) - (b.t[key] || 0)) || a.i - b.i; });
    state.matches = m;
    state.page = 0;
    draw();
  }

  function draw() {
    var n = state.matches.length;
    var pages = Math.max(1, Math.ceil(n / PAGE_SIZE));
    state.page = Math.min(state.page, pages - 1);
    count.dataset.count = String(n);
    clear(count).appendChild(document.createTextNode(n + " of " + all.length + " trajectories match"));
    clear(tbody);
    state.matches.slice(state.page * PAGE_SIZE, (state.page + 1) * PAGE_SIZE).forEach(function (x) {
      var t = x.t;
      var row = el("tr", { class: "traj-row" + (state.selected === x.i ? " selected" : ""), dataset: { index: x.i, id: t.id }, tabindex: "0",
        onclick: function () { select(x.i); },
        onkeydown: function (ev) { if (ev.key === "Enter") select(x.i); } },
        el("td", null, String(t.step)),
        el("td", null, x.kind),
        el("td", { class: "scen" }, t.scenarioId),
        el("td", { class: "num" }, fmtNum(t.reward, 3)),
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

  function select(i) {
    state.selected = i;
    Array.prototype.forEach.call(tbody.querySelectorAll(".traj-row"), function (r) { r.classList.toggle("selected", Number(r.dataset.index) === i); });
    clear(detail).appendChild(renderDetail(trajectories[i]));
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

function renderDetail(t) {
  var rewards = t.rewards || {};
  var comps = Object.keys(rewards);
  var calls = t.toolCalls || [];
  return el("div", null,
    el("div", { class: "detail-head" },
      el("h3", null, t.scenarioId),
      el("div", { class: "detail-badges" },
        badge("step " + t.step), badge(trajKind(t)), t.success ? badge("success", "ok") : badge("failed", "bad"),
        badge("finish: " + t.finish, t.finish === "answer" ? "" : t.finish === "error" ? "bad" : "warn"),
        badge("reward " + fmtNum(t.reward, 3)), badge(t.turns + " turns"), isNum(t.ms) && t.ms > 0 ? badge(fmtNum(t.ms / 1000, 2) + " s") : null),
      el("div", { class: "muted small" }, "id " + t.id + " · group " + t.groupId)),
    t.error ? el("div", { class: "error-box" }, el("strong", null, "Rollout error: "), t.error) : null,
    comps.length
      ? el("table", { class: "data rewards" },
          el("thead", null, el("tr", null, el("th", null, "reward component"), el("th", null, "raw score"), el("th", null, "why"))),
          el("tbody", null, comps.map(function (c) { return el("tr", null, el("td", null, c), el("td", { class: "num" }, fmtNum(rewards[c], 4)), el("td", { class: "small" }, (t.rewardDetails || {})[c] || "")); }),
            el("tr", { class: "total" }, el("td", null, "weighted total"), el("td", { class: "num" }, fmtNum(t.reward, 4)), el("td", null, ""))))
      : null,
    t.judgeExplanation ? el("div", { class: "judge" }, el("strong", null, "Judge: "), t.judgeExplanation) : null,
    t.finalAnswer ? el("div", { class: "answer" }, el("strong", null, "Final answer: "), el("pre", { class: "inline" }, t.finalAnswer)) : null,
    el("h4", null, "Tool calls (" + calls.length + ")"),
    calls.length === 0 ? el("p", { class: "muted" }, "No tool calls.") : el("ol", { class: "tool-calls" }, calls.map(renderToolCall)),
    el("h4", null, "Conversation (" + (t.messages || []).length + " messages)"),
    el("div", { class: "chat" }, (t.messages || []).map(renderMessage)));
}

function renderToolCall(c) {
  return el("li", { class: "tool-call" + (c.isError ? " is-error" : "") },
    el("div", { class: "tc-head" },
      el("code", { class: "tc-name" }, c.name),
      c.isError ? badge("error", "bad") : badge("ok", "ok"),
      el("span", { class: "muted" }, fmtNum(c.ms, 0) + " ms"),
      c.error ? el("span", { class: "bad" }, c.error) : null),
    el("div", { class: "tc-part" }, el("div", { class: "tc-label" }, "arguments"), el("pre", { class: "code tc-args" }, prettyJson(c.args))),
    el("div", { class: "tc-part" }, el("div", { class: "tc-label" }, "result"), el("pre", { class: "code tc-result" }, c.result)));
}

function renderMessage(m) {
  // a turn whose tool-call markup did not parse: the text as the model wrote it, markup and all
  var raw = typeof m.raw_content === "string";
  var body = (raw ? m.raw_content : m.content) || "";
  var head = el("div", { class: "msg-head" }, el("span", { class: "msg-role" }, m.role), m.name ? el("code", null, " " + m.name) : null, m.tool_call_id ? el("span", { class: "muted" }, " · " + m.tool_call_id) : null);
  var content = body === "" ? null : el("pre", { class: "msg-text" + (raw ? " msg-raw" : "") }, body);
  if (raw) content = el("div", null, el("div", { class: "muted" }, "as written (its tool-call markup did not parse):"), content);
  if (content && (m.role === "system" || body.length > LONG_TEXT)) {
    content = el("details", null, el("summary", null, (m.role === "system" ? "system prompt" : "long message") + " (" + body.length + " characters)"), content);
  }
  var calls = (m.tool_calls || []).map(function (tc) {
    return el("div", { class: "msg-call" }, el("span", { class: "muted" }, "calls "), el("code", null, tc.function.name), el("pre", { class: "code" }, prettyJson(tc.function.arguments)));
  });
  return el("div", { class: "msg msg-" + m.role }, head, content, calls);
}
