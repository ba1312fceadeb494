/*
 * DOM and formatting helpers for the report page (plain browser JS, concatenated with the
 * other files of src/report/client into one inline script, inside one function scope).
 * Every piece of text goes through textContent: model outputs and tool results are untrusted,
 * so nothing from the data is ever parsed as HTML.
 */

/** el("div", {class: "x", onclick: fn, dataset: {id: "1"}}, "text", childNode, [more]) */
function el(tag, attrs) {
  var node = document.createElement(tag);
  if (attrs) {
    for (var k in attrs) {
      var v = attrs[k];
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "dataset") for (var d in v) node.dataset[d] = String(v[d]);
      else if (k.slice(0, 2) === "on" && typeof v === "function") node.addEventListener(k.slice(2), v);
      else if (k === "value") node.value = v;
      else node.setAttribute(k, v === true ? "" : String(v));
    }
  }
  for (var i = 2; i < arguments.length; i++) append(node, arguments[i]);
  return node;
}

function append(node, child) {
  if (child === undefined || child === null || child === false) return;
  if (Array.isArray(child)) {
    for (var i = 0; i < child.length; i++) append(node, child[i]);
  } else if (typeof child === "object" && child.nodeType) {
    node.appendChild(child);
  } else {
    node.appendChild(document.createTextNode(String(child)));
  }
}

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

function isNum(x) {
  return typeof x === "number" && isFinite(x);
}

/**
 * x with `digits` decimals, trailing zeros kept so a column lines up ("0.600" under "0.767").
 * Without digits (a lone value, a tooltip): a precision by size, trailing zeros dropped.
 */
function fmtNum(x, digits) {
  if (!isNum(x)) return "–";
  if (digits !== undefined) return x.toFixed(digits);
  if (x !== 0 && Math.abs(x) < 1e-3) return Number(x.toPrecision(3)).toExponential(); // a learning rate
  return Number(x.toFixed(Math.abs(x) >= 100 ? 1 : Math.abs(x) >= 1 ? 3 : 4)).toString();
}

function fmtPct(x) {
  return isNum(x) ? (x * 100).toFixed(1) + "%" : "–";
}

function fmtSigned(x, digits, suffix) {
  if (!isNum(x)) return "–";
  var s = x.toFixed(digits);
  if (Number(s) === 0) s = (0).toFixed(digits);
  return (x > 0 && Number(s) !== 0 ? "+" : "") + s + (suffix || "");
}

function fmtDuration(s) {
  if (!isNum(s)) return "–";
  if (s < 60) return s.toFixed(1) + " s";
  var m = Math.floor(s / 60);
  if (m < 60) return m + " min " + Math.round(s - m * 60) + " s";
  var h = Math.floor(m / 60);
  return h + " h " + (m - h * 60) + " min";
}

/**
 * JSON of a value for people: one line when short, indented otherwise. A JSON string (tool-call
 * arguments arrive as text) is parsed first when it can be; other text is shown as is.
 */
function prettyJson(v) {
  var value = v;
  if (typeof v === "string") {
    try {
      value = JSON.parse(v);
    } catch (e) {
      return v;
    }
  }
  try {
    var flat = JSON.stringify(value);
    if (flat === undefined) return String(value);
    return flat.length <= 80 ? flat : JSON.stringify(value, null, 2);
  } catch (e) {
    return String(value);
  }
}

function badge(text, kind) {
  return el("span", { class: "badge" + (kind ? " badge-" + kind : "") }, text);
}

/** A wide table scrolls inside its own box rather than widening the page on a phone. */
function scrollBox(table) {
  return el("div", { class: "table-scroll" }, table);
}

function section(id, title) {
  var body = el("div", { class: "section-body" });
  var node = el("section", { id: id, class: "section" }, el("h2", null, title), body);
  return { node: node, body: body };
}
