/**
 * @playwright/mcp and chrome-devtools-mcp (devDependencies) driving Debian's chromium, on pages
 * a local HTTP server serves. chrome-devtools-mcp keeps several pages open and names the page in
 * every call (new_page {url}, take_snapshot {pageId}, click {pageId, uid}): before, it was taken
 * for no browser and got no task. A fresh instance has no page open and offline the generator knows none, so it built
 * nothing before browser.ts: now `--allow-writes --value url=…` gives tasks that open a page and
 * read it (title, headings, a link, a table cell, a paragraph) or follow one of its links first,
 * each answered from the page's own HTML and replayed on a fresh instance (`scenarios check
 * --fresh`). Without --allow-writes, or without a page, it says what it needs at once (before,
 * a harvest waited 30 s on browser_wait_for and then gave up).
 * Chromium missing is a failure, not a skip: CI installs it (scripts/ensure-test-packages.sh).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "../../src/mcp/connect.js";
import { readScenarioFile } from "../../src/scenarios/io.js";
import { generateVerified } from "../../src/scenarios/verified/generate.js";
import { cli } from "../train/helpers.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

const PAGES: Record<string, string> = {
  "/ferry.html": `<!doctype html><html><head><meta charset="utf-8"><title>Island Ferry Line</title></head><body>
<h1>Island Ferry Line</h1>
<p>Boats leave from pier 4 in every weather.</p>
<nav><a href="/fares.html">Ticket prices</a> <a href="/crew.html">Meet the crew</a></nav>
<h2>Departures</h2>
<table><tr><th>Route</th><th>Boat</th></tr>
<tr><td>Northbound</td><td>Kestrel</td></tr>
<tr><td>Southbound</td><td>Osprey</td></tr></table>
</body></html>`,
  "/fares.html": `<!doctype html><html><head><meta charset="utf-8"><title>Fares - Island Ferry Line</title></head><body>
<h1>Fares for 2027</h1>
<p>Children under six travel free.</p>
<table><tr><th>Ticket</th><th>Price</th></tr>
<tr><td>Adult</td><td>14.50</td></tr>
<tr><td>Bicycle</td><td>3.75</td></tr></table>
<a href="/ferry.html">Back to departures</a>
</body></html>`,
  "/crew.html": `<!doctype html><html><head><meta charset="utf-8"><title>Crew</title></head><body>
<h1>Captain Ingrid Haldor</h1><p>Thirty years at sea.</p></body></html>`,
  "/loaves.html": `<!doctype html><html><head><meta charset="utf-8"><title>Find a loaf</title></head><body>
<h1>Our loaves</h1>
<p>Popular: Spelt, Barley</p>
<form action="/loaf" method="get"><label for="q">Loaf name</label> <input id="q" name="q" type="search"> <button type="submit">Find</button></form>
</body></html>`,
};

/** The page the loaves form answers with (`/loaf?q=…`): one per loaf, and one for a name it does not know. */
const LOAVES: Record<string, { day: string; small: string; large: string }> = { Spelt: { day: "Tuesdays", small: "3.20", large: "5.90" }, Barley: { day: "Fridays", small: "2.80", large: "4.70" } };
function loafPage(q: string): string {
  const loaf = LOAVES[q];
  if (!loaf) return `<!doctype html><html><head><meta charset="utf-8"><title>Not found</title></head><body><h1>No loaf called ${q}</h1></body></html>`;
  return `<!doctype html><html><head><meta charset="utf-8"><title>${q} loaf</title></head><body>
<h1>${q}</h1>
<p>Baked on ${loaf.day} with stone-ground flour.</p>
<h2>Sizes</h2>
<table><tr><th>Size</th><th>Price</th></tr><tr><td>Small</td><td>${loaf.small}</td></tr><tr><td>Large</td><td>${loaf.large}</td></tr></table>
</body></html>`;
}

/** A page's HTML by its path and query, as the site serves it. */
function pageAt(pathAndQuery: string): string | undefined {
  const u = new URL(pathAndQuery, "http://site.invalid");
  return u.pathname === "/loaf" ? loafPage(u.searchParams.get("q") ?? "") : PAGES[u.pathname];
}

let site: http.Server;
let base = "";
const dir = mkdtempSync(join(tmpdir(), "browser-real-"));
const BROWSERS = [
  {
    name: "@playwright/mcp",
    // snapshots it saves go to the temp folder, not .playwright-mcp/ in the repository
    server: `node ${resolve("node_modules/@playwright/mcp/cli.js")} --executable-path ${CHROMIUM} --headless --isolated --no-sandbox --output-dir ${join(dir, "out")}`,
    navigate: "browser_navigate",
    reader: "browser_snapshot",
    click: "browser_click",
    type: { tool: "browser_type", text: "text" },
    // the tools that need --allow-writes to get a task
    writers: "browser_navigate changes",
  },
  {
    name: "chrome-devtools-mcp",
    server: `node ${resolve("node_modules/chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js")} --executablePath ${CHROMIUM} --headless --isolated --usageStatistics false --performanceCrux false --chromeArg=--no-sandbox`,
    navigate: "new_page",
    reader: "take_snapshot",
    click: "click",
    type: { tool: "fill", text: "value" },
    // take_snapshot may save to a file: not annotated read-only
    writers: "new_page and take_snapshot change",
  },
];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: @playwright/mcp's test needs it (Debian: apt-get install -y chromium; or set CHROMIUM_PATH)`);
  site = http.createServer((req, res) => {
    const page = pageAt(req.url ?? "/");
    res.writeHead(page ? 200 : 404, { "content-type": "text/html; charset=utf-8" });
    res.end(page ?? "not found");
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((r) => site.close(r));
  rmSync(dir, { recursive: true, force: true });
});

/** Whether a page's HTML holds a value: its text, title or a link's address, as written or
 *  resolved against the page (chrome-devtools-mcp shows `/fares.html` as `http://…/fares.html`;
 *  "14.5" as "14.50" too). */
function holds(path: string, value: string): boolean {
  const html = pageAt(path)!;
  const addresses = [...html.matchAll(/href="([^"]+)"/g)].map((m) => new URL(m[1], `${base}${path}`).href);
  return html.includes(value) || addresses.includes(value) || (/^\d+\.\d$/.test(value) && html.includes(`${value}0`));
}

describe.each(BROWSERS)("$name (the npm package) on local pages, through the CLI", ({ server: SERVER, navigate, reader, click, type, writers }) => {
  it("builds tasks on the pages given, answered from the page each opens or reaches by a link, and they replay with check --fresh", async () => {
    const out = join(dir, `${navigate}.jsonl`);
    const g = await cli(["scenarios", "generate", "--server", SERVER, "--allow-writes", "--value", `url=${base}/ferry.html`, "--value", `url=${base}/fares.html`, "--n", "6", "--seed", "3", "--out", out]);
    expect(g.code, g.stderr).toBe(0);
    const scenarios = readScenarioFile(out);
    expect(scenarios).toHaveLength(6);
    const kinds = new Set<string>();
    for (const s of scenarios) {
      const calls = s.reference!.calls;
      expect(calls[0].name, s.task).toBe(navigate);
      const start = new URL(String(calls[0].arguments.url)).pathname;
      expect(["/ferry.html", "/fares.html"]).toContain(start);
      expect(s.task).toContain(`${base}${start}`);
      const clicked = calls.find((c) => c.name === click);
      // a link followed: the answer is on the page it leads to, and not on the one first opened
      const link = clicked ? /"([^"]+)"/.exec(s.task)![1] : undefined;
      const href = link ? new RegExp(`<a href="([^"]+)">${link}</a>`).exec(PAGES[start])![1] : undefined;
      const page = href ?? start;
      kinds.add(clicked ? "follow" : "read");
      for (const e of s.expected!) {
        const value = e.kind === "numeric" ? String(e.value) : e.kind === "contains" ? e.value : undefined;
        expect(value, s.task).toBeDefined();
        expect(holds(page, value!), `${s.task} → ${value}`).toBe(true);
        if (href) expect(holds(start, value!), `${s.task} → ${value}`).toBe(false);
      }
      // element refs are the server's, never an answer
      expect(JSON.stringify(s.expected)).not.toMatch(/\bref=|\be\d+\b|\b\d+_\d+\b/);
    }
    expect([...kinds].sort()).toEqual(["follow", "read"]);
    const check = await cli(["scenarios", "check", "--fresh", "--server", SERVER, out]);
    expect(check.code, check.stderr + check.stdout).toBe(0);
    expect(check.stdout).toContain("6 scenarios: 6 ok");
  }, 300_000);

  it("types a word the page shows into its one box, submits it, and asks about the page that answers", async () => {
    const out = join(dir, `${navigate}-search.jsonl`);
    const g = await cli(["scenarios", "generate", "--server", SERVER, "--allow-writes", "--value", `url=${base}/loaves.html`, "--n", "4", "--seed", "2", "--out", out]);
    expect(g.code, g.stderr).toBe(0);
    const scenarios = readScenarioFile(out);
    expect(scenarios).toHaveLength(4);
    const searched = scenarios.filter((s) => s.reference!.calls.some((c) => c.name === type.tool));
    expect(searched.length).toBeGreaterThanOrEqual(2);
    for (const s of searched) {
      const word = String(s.reference!.calls.find((c) => c.name === type.tool)!.arguments[type.text]);
      // a word of the page's own ("Popular: Spelt, Barley"), not its heading or the box's label
      expect(Object.keys(LOAVES)).toContain(word);
      expect(s.task).toContain(`"${word}"`);
      expect(s.task).toContain('"Loaf name"');
      for (const e of s.expected!) {
        const value = e.kind === "numeric" ? String(e.value) : e.kind === "contains" ? e.value : "";
        expect(holds(`/loaf?q=${word}`, value), `${s.task} → ${value}`).toBe(true);
        expect(holds("/loaves.html", value), `${s.task} → ${value}`).toBe(false);
      }
    }
    const check = await cli(["scenarios", "check", "--fresh", "--server", SERVER, out]);
    expect(check.code, check.stderr + check.stdout).toBe(0);
    expect(check.stdout).toContain("4 scenarios: 4 ok");
  }, 300_000);

  it("without --allow-writes, or without a page to open, it says what it needs before calling a tool", async () => {
    const box = await connect(`stdio:${SERVER}`);
    try {
      const t0 = Date.now();
      await expect(generateVerified(box, { n: 3, allowWrites: false, values: { url: [`${base}/ferry.html`] } })).rejects.toThrow(
        new RegExp(`the server drives a browser \\(${navigate} opens a page, ${reader} reads it\\), and ${writers} the browser's state, which only \`scenarios generate --allow-writes\` calls \\(train then takes the file it writes with --scenarios\\);`),
      );
      await expect(generateVerified(box, { n: 3, allowWrites: true })).rejects.toThrow(/and no page was given to open: give them with --value url=http:\/\/… \(repeatable/);
      expect(Date.now() - t0).toBeLessThan(15_000);
    } finally {
      await box.close();
    }
  }, 60_000);
});
