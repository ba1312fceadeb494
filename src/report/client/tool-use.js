/*
 * The "Tool use" section: how the held-out rollouts before and after RL used each tool (the
 * `tool_use` of their eval.jsonl lines, src/rollout/tool-use.ts). A model that learns to call the
 * calculator instead of guessing, or stops sending arguments the schema refuses, shows it here;
 * a server's author sees which tools fail under a model's calls.
 */

/** "3 of 100 (3%)", or "–" when there is no measurement. */
function fmtShare(n, of) {
  if (!isNum(n) || !isNum(of)) return "–";
  return n + " of " + of + " (" + Math.round((100 * n) / Math.max(1, of)) + "%)";
}

/** "invalid_arguments 3, unknown_tool 1" */
function fmtFaults(faults) {
  var keys = Object.keys(faults || {}).sort(function (a, b) { return faults[b] - faults[a] || (a < b ? -1 : 1); });
  return keys.map(function (k) { return k.replace(/_/g, " ") + " " + faults[k]; }).join(", ");
}

/** Tool names, most called over both measurements first. */
function toolNamesByUse(uses) {
  var calls = {};
  uses.forEach(function (u) {
    if (!u) return;
    Object.keys(u.tools).forEach(function (name) { calls[name] = (calls[name] || 0) + u.tools[name].calls; });
  });
  return Object.keys(calls).sort(function (a, b) { return calls[b] - calls[a] || (a < b ? -1 : a > b ? 1 : 0); });
}

function renderToolUse(container, picked) {
  var before = picked.before && picked.before.tool_use;
  var after = picked.after && picked.after.tool_use;
  if (!before && !after) {
    container.appendChild(el("p", { class: "empty" }, "No tool use recorded: this run's held-out evaluations do not say how their rollouts used the tools (a run made before train-mcp recorded it, or one without a held-out set)."));
    return;
  }
  var cols = [["before RL", before], ["after RL", after]].filter(function (c) { return c[1]; });
  container.appendChild(el("p", { class: "muted" },
    "Held-out rollouts, " + cols.map(function (c) { return c[1].rollouts + " " + c[0]; }).join(", ") +
    ". A failed call's result was an error; calls with invalid arguments or to unknown tools are refused before the server sees them."));

  var totals = el("table", { class: "data tool-totals" },
    el("thead", null, el("tr", null, el("th", null, ""), cols.map(function (c) { return el("th", null, c[0]); }))),
    el("tbody", null,
      el("tr", { dataset: { row: "without-tool" } }, el("th", null, "answered without a tool call"), cols.map(function (c) { return el("td", null, fmtShare(c[1].without_tool, c[1].rollouts)); })),
      el("tr", { dataset: { row: "malformed" } }, el("th", null, "tool-call markup that did not parse"), cols.map(function (c) { return el("td", null, String(c[1].malformed_calls)); }))));
  var totalsBox = scrollBox(totals);
  totalsBox.className += " tool-totals-box";
  container.appendChild(totalsBox);

  var names = toolNamesByUse([before, after]);
  if (names.length === 0) {
    container.appendChild(el("p", { class: "empty" }, "No rollout called a tool."));
    return;
  }
  var heads = ["rollouts calling it", "calls", "failed calls", "passed, of those rollouts", "mean time"];
  var table = el("table", { class: "data tool-table", id: "tool-use" },
    el("thead", null,
      el("tr", null, el("th", { rowspan: 2 }, "tool"), heads.map(function (h) { return el("th", { colspan: cols.length }, h); })),
      el("tr", null, heads.map(function () { return cols.map(function (c) { return el("th", null, c[0]); }); }))),
    el("tbody", null, names.map(function (name) {
      var cells = function (f) { return cols.map(function (c) { var s = c[1].tools[name]; return el("td", null, s ? f(s, c[1]) : "–"); }); };
      var why = cols.map(function (c) { var s = c[1].tools[name]; var f = s && fmtFaults(s.faults); return f ? (cols.length > 1 ? c[0] + ": " : "") + f : ""; }).filter(Boolean);
      var schema = cols.map(function (c) { var s = c[1].tools[name]; return s ? s.output_problems : 0; });
      return el("tr", { dataset: { tool: name } },
        el("th", null, el("code", null, name),
          why.length ? el("div", { class: "muted small" }, "refused or failed: " + why.join("; ")) : null,
          schema.some(function (n) { return n > 0; }) ? el("div", { class: "bad small" }, "results breaking its outputSchema: " + schema.join(" → ")) : null),
        cells(function (s, u) { return fmtShare(s.rollouts, u.rollouts); }),
        cells(function (s) { return String(s.calls); }),
        cells(function (s) { return s.failed > 0 ? el("span", { class: "bad" }, String(s.failed)) : "0"; }),
        cells(function (s) { return fmtShare(s.successes, s.rollouts); }),
        cells(function (s) { return s.mean_ms + " ms"; }));
    })));
  container.appendChild(scrollBox(table));
}
