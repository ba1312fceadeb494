/*
 * Which metrics go in which chart. The metrics are read by key only (the trainer's names are in
 * src/rl/metrics.ts, src/rewards/combine.ts and src/train/loop.ts): every numeric key of
 * metrics.jsonl lands in a chart chosen by its name, unknown namespaces in "Other", so a newer
 * loop's extra metrics show up without a report change. One chart holds one scale and one unit:
 * counts are not drawn with means, nor a reward function's milliseconds with a whole step.
 */

/** matches `name` and the keys under it (`name/…`) */
function ns(name) {
  return function (k) { return k === name || k.indexOf(name + "/") === 0; };
}

/** reward/total and reward/<component>: means over a step's rollouts (counters have a second "/") */
function isRewardMean(k) {
  return k.indexOf("reward/") === 0 && k.split("/").length === 2 && k !== "reward/success_rate" && k !== "reward/judge_fallbacks";
}

/**
 * In display order. y: the y-axis title; percent: "full" spans 0–100%, "auto" fits the data;
 * exp: ticks in exponent notation (5.4e-5); zeroNote: said when every value is 0.
 */
var CHART_KINDS = [
  { id: "reward", section: "Reward", title: "Reward (total and components)", y: "mean reward per rollout", match: isRewardMean },
  { id: "success", section: "Reward", title: "Success rate (training rollouts)", y: "rollouts that succeeded", percent: "full", match: function (k) { return k === "reward/success_rate" || ns("success")(k); } },
  { id: "rewardCounts", section: "Reward", title: "Reward function failures and counters", y: "count per step", match: ns("reward") },
  { id: "sft", section: "Loss", title: "Supervised warm-start loss", y: "cross-entropy per token", match: ns("loss/sft") },
  { id: "loss", section: "Loss", title: "Policy loss", y: "loss", match: ns("loss") },
  { id: "kl", section: "Policy", title: "KL divergence to the reference", y: "KL per token", match: ns("kl") },
  { id: "entropy", section: "Policy", title: "Entropy", y: "nats per token", match: function (k) { return k === "policy/entropy" || ns("entropy")(k); } },
  { id: "clip", section: "Policy", title: "Clip fraction", y: "tokens clipped", percent: "auto", match: ns("clip"), zeroNote: "No clipping in this run: every clip fraction is 0 (the policy never moved past the clip range)." },
  { id: "ratio", section: "Policy", title: "Importance ratio", y: "π / π_old", match: ns("ratio") },
  { id: "advantage", section: "Policy", title: "Advantage size", y: "mean |advantage|", match: ns("advantage") },
  { id: "grad", section: "Policy", title: "Gradient norm", y: "L2 norm", match: function (k) { return k === "grad_norm" || ns("grad")(k); } },
  { id: "lr", section: "Policy", title: "Learning rate", y: "learning rate", exp: true, match: function (k) { return k === "lr" || k === "learning_rate"; } },
  { id: "turns", section: "Rollouts", title: "Turns per rollout", y: "mean turns", match: ns("rollout/turns") },
  { id: "rollouts", section: "Rollouts", title: "Tool calls and rollout outcomes", y: "count per step", match: ns("rollout") },
  { id: "groups", section: "Rollouts", title: "Groups", y: "groups per step", match: ns("groups") },
  { id: "tokens", section: "Rollouts", title: "Completion tokens", y: "tokens per step", match: ns("tokens") },
  { id: "rewardTime", section: "Timing", title: "Time in each reward function", y: "seconds per step", match: function (k) { return k.indexOf("time/reward/") === 0; } },
  { id: "time", section: "Timing", title: "Time per step", y: "seconds", match: ns("time") },
];
var SECTIONS = ["Reward", "Loss", "Policy", "Rollouts", "Timing", "Other"];

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

/**
 * [{id, section, title, y, keys, std, note}] for the keys present. `x_std` beside `x` is x's
 * spread (src/rewards/combine.ts): shown in x's tooltip, not drawn as a line of its own. A KL
 * chart with no KL because beta is 0 becomes a note; unknown namespaces get one chart each.
 */
function chartPlan(keys, config) {
  var has = {};
  keys.forEach(function (k) { has[k] = true; });
  var std = {};
  var used = {};
  keys.forEach(function (k) {
    var base = k.slice(0, -4);
    if (/_std$/.test(k) && has[base]) {
      std[base] = k;
      used[k] = true;
    }
  });
  var plan = [];
  CHART_KINDS.forEach(function (kind) {
    var ks = keys.filter(function (k) { return !used[k] && kind.match(k); });
    if (ks.length === 0) {
      if (kind.id === "kl" && config && config.beta === 0) {
        plan.push(Object.assign({}, kind, { keys: [], note: "Not computed: beta is 0 in this run, so there is no KL penalty and no reference model to compare with (--beta sets it)." }));
      }
      return;
    }
    ks.forEach(function (k) { used[k] = true; });
    // the total first, so it gets the first (strongest) color
    ks.sort(function (a, b) { return /\/total$/.test(b) - /\/total$/.test(a); });
    plan.push(Object.assign({}, kind, { keys: ks, std: std }));
  });
  var other = {};
  keys.forEach(function (k) {
    if (used[k]) return;
    var name = k.indexOf("/") > 0 ? k.slice(0, k.indexOf("/")) : k;
    (other[name] = other[name] || []).push(k);
  });
  Object.keys(other).forEach(function (name) {
    plan.push({ id: "other-" + name, section: "Other", title: name, y: "value", keys: other[name], std: std });
  });
  return plan;
}

/**
 * The chart's series: one per key, except that keys with the very same values at every step
 * (loss/policy is loss/total when beta is 0) are one line labelled with all their names.
 */
function planSeries(p, sorted) {
  var series = [];
  p.keys.forEach(function (k) {
    var data = [];
    sorted.forEach(function (m) {
      if (!isNum(m[k])) return;
      var point = { x: m.step, y: m[k] };
      if (p.std[k] && isNum(m[p.std[k]])) point.std = m[p.std[k]];
      data.push(point);
    });
    var same = series.filter(function (s) { return sameData(s.data, data); })[0];
    if (same) {
      same.keys.push(k);
      same.label = mergedLabel(same.keys);
    } else {
      series.push({ label: k, keys: [k], data: data, width: /\/total$/.test(k) ? 2.4 : 1.6 });
    }
  });
  return series;
}

/** "loss/total (= loss/policy)", the shared namespace said once; a long list by its count (the tooltip names them all) */
function mergedLabel(keys) {
  var ns = keys[0].slice(0, keys[0].lastIndexOf("/") + 1);
  var rest = keys.slice(1).map(function (k) { return ns && k.indexOf(ns) === 0 ? k.slice(ns.length) : k; });
  var label = keys[0] + " (= " + rest.join(", ") + ")";
  return label.length <= 40 ? label : keys[0] + " (= " + rest.length + " identical series)";
}

function sameData(a, b) {
  if (a.length !== b.length) return false;
  for (var i = 0; i < a.length; i++) if (a[i].x !== b[i].x || a[i].y !== b[i].y) return false;
  return true;
}
