/*
 * The trajectory viewer's detail pane: one rollout's rewards (each component's weight beside its
 * raw score, weight 0 marked as logged only), the judge's explanation, the final answer, each
 * tool call (arguments, result, error highlighted, time; a call that did not parse shown as
 * the model wrote it) and the conversation as a chat.
 */

var LONG_TEXT = 1200; // longer message bodies start collapsed

/** ctx: {name(label) → display name, weights: {component: weight} | null} */
function renderDetail(t, ctx) {
  var calls = t.toolCalls || [];
  var raw = unparsedText(t);
  return el("div", null,
    el("div", { class: "detail-head" },
      el("h3", null, t.scenarioId),
      el("div", { class: "detail-badges" },
        badge("step " + t.step), badge(trajKind(t, ctx.name)), t.success ? badge("success", "ok") : badge("failed", "bad"),
        badge("finish: " + t.finish, t.finish === "answer" ? "" : t.finish === "error" ? "bad" : "warn"),
        badge("reward " + fmtNum(t.reward, REWARD_DIGITS)), badge(t.turns + " turns"), isNum(t.ms) && t.ms > 0 ? badge(fmtNum(t.ms / 1000, 2) + " s") : null),
      el("div", { class: "muted small" }, "id " + t.id + " · group " + t.groupId)),
    t.error ? el("div", { class: "error-box" }, el("strong", null, "Rollout error: "), t.error) : null,
    rewardTable(t, ctx.weights),
    t.judgeExplanation ? el("div", { class: "judge" }, el("strong", null, "Judge: "), t.judgeExplanation) : null,
    t.finalAnswer
      ? el("div", { class: "answer " + (t.success ? "answer-ok" : "answer-bad") }, el("strong", null, t.success ? "Final answer: " : "Final answer (not a success): "), el("pre", { class: "inline" }, t.finalAnswer))
      : null,
    el("h4", null, "Tool calls (" + calls.length + ")"),
    calls.length === 0 ? el("p", { class: "muted" }, "No tool calls.") : el("ol", { class: "tool-calls" }, calls.map(function (c, i) { return renderToolCall(c, raw[i]); })),
    el("h4", null, "Conversation (" + (t.messages || []).length + " messages)"),
    el("div", { class: "chat" }, (t.messages || []).map(renderMessage)));
}

/** Raw scores with their weights: a weight-0 component is computed and logged, never counted. */
function rewardTable(t, weights) {
  var rewards = t.rewards || {};
  var comps = Object.keys(rewards);
  if (comps.length === 0) return null;
  var details = t.rewardDetails || {};
  var weightOf = function (c) { return weights && isNum(weights[c]) ? weights[c] : null; };
  var loggedOnly = comps.filter(function (c) { return weightOf(c) === 0; });
  var cells = function (c) {
    var w = weightOf(c);
    return [
      el("td", null, c, w === 0 ? el("span", { class: "muted" }, " (logged only)") : null),
      weights ? el("td", { class: "num" }, w === null ? "–" : String(w)) : null,
      el("td", { class: "num" }, fmtNum(rewards[c], 4)),
      el("td", { class: "small" }, details[c] || ""),
    ];
  };
  return el("div", { class: "rewards" },
    scrollBox(el("table", { class: "data" },
      el("thead", null, el("tr", null, el("th", null, "reward component"), weights ? el("th", null, "weight") : null, el("th", null, "raw score"), el("th", null, "why"))),
      el("tbody", null,
        comps.map(function (c) { return el("tr", { class: weightOf(c) === 0 ? "logged-only" : null }, cells(c)); }),
        el("tr", { class: "total" }, el("td", null, "weighted total"), weights ? el("td", null, "") : null, el("td", { class: "num" }, fmtNum(t.reward, 4)), el("td", null, ""))))),
    loggedOnly.length ? el("p", { class: "muted small" }, "Weight 0: " + loggedOnly.join(", ") + " " + (loggedOnly.length === 1 ? "is" : "are") + " computed and logged, not part of the total.") : null);
}

function isParseError(c) {
  return typeof c.error === "string" && c.error.indexOf("parse:") === 0;
}

/**
 * tool call index → what the model wrote, for the calls that did not parse. A turn's records
 * are its parse errors first, then one per parsed call (src/rollout/tool-env.ts), and the text
 * of a turn whose markup did not parse is kept on its assistant message as raw_content.
 */
function unparsedText(t) {
  var calls = t.toolCalls || [];
  var out = {};
  var i = 0;
  (t.messages || []).forEach(function (m) {
    if (m.role !== "assistant") return;
    for (; i < calls.length && isParseError(calls[i]); i++) out[i] = m.raw_content;
    i += (m.tool_calls || []).length;
  });
  return out;
}

function renderToolCall(c, raw) {
  if (isParseError(c)) {
    return el("li", { class: "tool-call is-error unparsed" },
      el("div", { class: "tc-head" }, el("span", { class: "tc-name tc-unparsed" }, "unparsed tool call"), badge("did not parse: " + c.error.slice("parse:".length), "bad")),
      el("div", { class: "tc-part" }, el("div", { class: "tc-label" }, "as the model wrote it"),
        el("pre", { class: "code tc-raw" }, typeof raw === "string" ? raw : "(the turn's text was not recorded)")),
      el("div", { class: "tc-part" }, el("div", { class: "tc-label" }, "parser error (sent back to the model)"), el("pre", { class: "code tc-result" }, c.result)));
  }
  return el("li", { class: "tool-call" + (c.isError ? " is-error" : "") },
    el("div", { class: "tc-head" },
      el("code", { class: "tc-name" }, c.name),
      c.isError ? badge("error", "bad") : badge("ok", "ok"),
      el("span", { class: "muted" }, fmtNum(c.ms, 0) + " ms"),
      c.error ? el("span", { class: "bad" }, c.error) : null,
      c.outputProblem ? badge("breaks its outputSchema", "warn") : null),
    c.outputProblem ? el("div", { class: "tc-output-problem muted small" }, c.outputProblem) : null,
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
