/**
 * Recipes for servers that drive a web browser (@playwright/mcp and its kind): a tool that opens
 * a page by its `url` (browser_navigate) and a read-only one that shows the page open, with no
 * argument needed (browser_snapshot's accessibility tree). A fresh instance has no page open, and
 * offline the generator knows none: the pages are the user's (`--value url=http://127.0.0.1:8080/a.html`).
 * Servers that keep several pages open (chrome-devtools-mcp: new_page {url}, take_snapshot
 * {pageId}, click {pageId, uid}) name the page in each call: its id is read from the opening
 * call's reply (`2: Harbor Bakery (http://…) [selected]`), and is the same on a fresh instance.
 *
 * - read: open a page given, read it, and tell its title, main heading, section headings, where
 *   a link leads or which link leads somewhere, a table's cell by row and column or the row a
 *   value is in, or its first paragraph (page-snapshot.ts reads them out of the tree).
 * - follow: open a page, click one of its links to another page of the same site (by the ref the
 *   snapshot gives it: refs are numbered in the order the server meets elements, so the same
 *   calls on a fresh instance give the same ref), and tell one of those things about the page it
 *   leads to, where the page first opened does not show that answer already.
 * - search: open a page with one search box (a `searchbox`, or a text box named for searching),
 *   type a word the site itself uses into it and submit (browser_type's `submit`, or a fill then
 *   Enter), and tell one of those things about the page that answers, where neither the page
 *   first opened nor the task gives it away. Only a search: Enter in any other box submits its
 *   form, and a box that asks to type a name to confirm a deletion is a form too.
 *
 * The server's other tools act on the page open (hover, evaluate, wait for text): single
 * calls with made-up arguments on a fresh instance only fail, read about:blank, or wait (a
 * browser_wait_for takes 30 s), so they get no task (generate.ts's selectRecipes). Every task
 * opens its page first, so tasks are built and replayed each on its own instance (`mutates`:
 * two tasks on one browser would navigate each other's tab).
 */
import type { ToolResult, ToolSpec } from "../../mcp/types.js";
import { checkAnswer } from "../check.js";
import type { AnswerCheck } from "../schema.js";
import { clockLike, isReadOnlyTool } from "./generic.js";
import type { ValuePool } from "./harvest.js";
import { flattenSnapshot, pageFacts, type PageFacts, type PageLink, type SnapshotNode } from "./page-snapshot.js";
import { containsCheck, numericCheck, type Draft, type Recipe, type RecipeContext } from "./recipe.js";
import { quotable } from "./document-answer.js";

export interface BrowserServer {
  /** opens a page: its one required argument is the URL */
  navigate: { tool: ToolSpec; arg: string };
  /** shows the page open, with no argument needed, or only the page's id (`page`) */
  reader: ToolSpec;
  /** the reader's one required argument, the id of the page to read (chrome-devtools-mcp's `pageId`) */
  readerPage?: string;
  /** clicks an element by the ref a snapshot gives it: each required argument, a ref, a description or the page's id */
  click?: { tool: ToolSpec; args: Record<string, "ref" | "description" | "page"> };
  /** types into a text box by its ref; `submit`: its boolean argument that presses Enter after */
  type?: { tool: ToolSpec; args: Record<string, "ref" | "description" | "page" | "text">; submit?: string };
  /** presses a key (Enter, to submit what `type` left in a box that it cannot submit itself) */
  pressKey?: { tool: ToolSpec; args: Record<string, "page" | "key"> };
}

const NAVIGATES = /navigat|\bgo ?to\b|\bgoto\b|\bopen\b|\bvisit\b|\bload\b/i;
const READS_PAGE = /snapshot|accessibility|page (?:content|text|source)|\bget_?(?:page_?)?(?:text|content)\b|read_?page/i;
/** an argument naming one of the pages open: `pageId`, `tab_id`, `page` */
const PAGE_ARG = /^(?:page|tab)_?(?:id|index|idx)?$/i;

/** The navigate, read and click tools of a browser server, or undefined when it is none. */
export function detectBrowser(tools: readonly ToolSpec[]): BrowserServer | undefined {
  const navigate = tools.flatMap((t) => {
    const required = requiredOf(t);
    const arg = required[0];
    return required.length === 1 && /^(url|uri|href)$/i.test(arg) && propType(t, arg) === "string" && NAVIGATES.test(`${words(t.name)} ${t.description ?? ""}`) ? [{ tool: t, arg }] : [];
  })[0];
  // not a screenshot, a console or a network log: the page's text
  // by its name first: browser_find's description mentions "the accessibility snapshot" too
  const pageOnly = (t: ToolSpec) => {
    const required = requiredOf(t);
    return required.length === 0 || (required.length === 1 && PAGE_ARG.test(required[0]) && ["number", "integer", "string"].includes(String(propType(t, required[0]))));
  };
  const candidates = tools.filter((t) => pageOnly(t) && !/screenshot|image|console|network|pdf|find|search|heap/i.test(t.name));
  const pick = (list: ToolSpec[]) => list.find((t) => READS_PAGE.test(words(t.name))) ?? list.find((t) => READS_PAGE.test(t.description ?? ""));
  // a read-only reader first; else a snapshot tool that may also save to a file (chrome-devtools-mcp's
  // take_snapshot is not annotated read-only), never one marked destructive: opening a page
  // already needs --allow-writes
  const reader =
    pick(candidates.filter(isReadOnlyTool)) ??
    candidates.find((t) => t.annotations?.destructiveHint !== true && /^(?:browser_)?(?:take|get|capture)?_?(?:page_?)?snapshot$/i.test(t.name));
  if (!navigate || !reader) return undefined;
  const readerPage = requiredOf(reader)[0];
  // what an element tool's required argument takes: the page's id, the snapshot's ref, a description
  const kind = (t: ToolSpec, a: string): "ref" | "description" | "page" | undefined => {
    if (readerPage !== undefined && a === readerPage) return "page";
    if (propType(t, a) !== "string") return undefined;
    if (/^(ref|uid|target|selector|element_?ref)$/i.test(a)) return "ref";
    if (/element|description/i.test(a)) return "description";
    return undefined;
  };
  const click = tools
    .filter((t) => /click/i.test(t.name) && !/double|right/i.test(t.name))
    .map((t) => {
      const args: Record<string, "ref" | "description" | "page"> = {};
      for (const a of requiredOf(t)) {
        const k = kind(t, a);
        if (!k) return undefined;
        args[a] = k;
      }
      return Object.values(args).includes("ref") ? { tool: t, args } : undefined;
    })
    .find((c) => c !== undefined);
  // browser_type {target, text, submit?}, chrome-devtools-mcp's fill {pageId, uid, value}: not a
  // whole form's fill, nor typing into whatever has the focus (type_text has no target)
  const type = tools
    .filter((t) => /type|fill/i.test(t.name) && !/form|file|select|drag/i.test(t.name))
    .map((t) => {
      const args: Record<string, "ref" | "description" | "page" | "text"> = {};
      for (const a of requiredOf(t)) {
        const k = /^(text|value)$/i.test(a) && propType(t, a) === "string" ? "text" : kind(t, a);
        if (!k) return undefined;
        args[a] = k;
      }
      const vals = Object.values(args);
      if (!vals.includes("ref") || vals.filter((v) => v === "text").length !== 1) return undefined;
      const submit = Object.keys((t.inputSchema.properties ?? {}) as object).find((a) => /^submit$/i.test(a) && propType(t, a) === "boolean");
      return { tool: t, args, ...(submit ? { submit } : {}) };
    })
    .find((x) => x !== undefined);
  const pressKey = tools
    .filter((t) => /press_?key|key_?press/i.test(t.name))
    .map((t) => {
      const args: Record<string, "page" | "key"> = {};
      for (const a of requiredOf(t)) {
        if (readerPage !== undefined && a === readerPage) args[a] = "page";
        else if (/^key$/i.test(a) && propType(t, a) === "string") args[a] = "key";
        else return undefined;
      }
      return Object.values(args).includes("key") ? { tool: t, args } : undefined;
    })
    .find((x) => x !== undefined);
  return {
    navigate,
    reader,
    ...(readerPage !== undefined ? { readerPage } : {}),
    ...(click ? { click } : {}),
    ...(type && (type.submit || pressKey) ? { type, ...(type.submit ? {} : { pressKey }) } : {}),
  };
}

/** The browser recipes a tool list allows: none unless detectBrowser finds a navigate and a read tool. */
export function browserRecipes(tools: readonly ToolSpec[]): Recipe[] {
  const server = detectBrowser(tools);
  if (!server) return [];
  const nav = server.navigate.tool.name;
  return [
    { id: "browser.read", tools: [nav, server.reader.name], primary: nav, weight: 1, mutates: true, build: (ctx) => buildRead(ctx, server) },
    ...(server.click
      ? [{ id: "browser.follow", tools: [nav, server.reader.name, server.click.tool.name], primary: server.click.tool.name, weight: 1, mutates: true, build: (ctx: RecipeContext) => buildFollow(ctx, server) }]
      : []),
    ...(server.type
      ? [
          {
            id: "browser.search",
            tools: [nav, server.reader.name, server.type.tool.name, ...(server.pressKey ? [server.pressKey.tool.name] : [])],
            primary: server.type.tool.name,
            weight: 1,
            mutates: true,
            build: (ctx: RecipeContext) => buildSearch(ctx, server),
          },
        ]
      : []),
  ];
}

/**
 * Why a browser server can get no task, before any tool is called (a harvest would only wait on
 * browser_wait_for): its navigate tool is left out (no --allow-writes), or no page was given to
 * open. Undefined for a server that is no browser, or one that has what it needs.
 */
export function browserNeeds(tools: readonly ToolSpec[], usable: readonly ToolSpec[], given: ValuePool): string | undefined {
  const server = detectBrowser(tools);
  if (!server) return undefined;
  const nav = server.navigate.tool.name;
  const noPages = pageUrls(given).length === 0;
  const how = `--value ${server.navigate.arg}=http://… (repeatable; pages whose text does not change, a local HTTP server's are best)`;
  const what = `the server drives a browser (${nav} opens a page, ${server.reader.name} reads it)`;
  // train has no --allow-writes: it takes the file scenarios generate writes
  const unusable = [nav, server.reader.name].filter((name) => !usable.some((t) => t.name === name));
  if (unusable.length > 0)
    return `${what}, and ${unusable.join(" and ")} ${unusable.length === 1 ? "changes" : "change"} the browser's state, which only \`scenarios generate --allow-writes\` calls (train then takes the file it writes with --scenarios)${noPages ? `; give it the pages to open with ${how}` : ""}`;
  return noPages ? `${what}, and no page was given to open: give them with ${how}` : undefined;
}

/** The page URLs given (`--value url=…`), in the order given. */
function pageUrls(pool: ValuePool): string[] {
  return pool
    .lookup("url")
    .filter((u): u is string => typeof u === "string" && /^(https?|file):\/\//i.test(u));
}

/** One thing to ask of a page: `what` reads after "tell me" ("the page's title"). */
export interface Ask {
  what: string;
  expected: AnswerCheck[];
  answer: string;
  /** the page's title: stated by the navigation's (or click's) own reply where the server gives it there */
  title?: true;
  difficulty: number;
}

const READ_TRAIN = ["Open {url} in the browser and tell me {what}.", "Go to the web page {url} and report {what}."];
const READ_TEST = ["Visit {url}: I need {what}."];
const FOLLOW_TRAIN = ['Open {url} in the browser, follow the link "{link}", and on the page it leads to, tell me {what}.', 'Go to {url} and click the "{link}" link. On the page that opens, find {what}.'];
const FOLLOW_TEST = ['Starting at {url}, click "{link}" and, on the page you land on, give me {what}.'];
const SEARCH_TRAIN = ['Open {url}, type "{text}" into the "{box}" box and submit it. On the page that answers, tell me {what}.', 'Go to {url}, enter "{text}" in the "{box}" field and press Enter; then report {what} on the page you get.'];
const SEARCH_TEST = ['At {url}, submit "{text}" through the "{box}" box and give me {what} from the page that comes back.'];

/** Opens one of the pages given and reads it, the read a probe (no part of the solution) or a
 *  call; undefined when no page was given, either call fails, or the reader needs the page's id
 *  and the opening call's reply does not give it. `readArgs`: the reader's arguments for this page. */
async function openGiven(
  ctx: RecipeContext,
  server: BrowserServer,
  read: "probe" | "call",
): Promise<{ url: string; opened: ToolResult; shown: ToolResult; readArgs: Record<string, string | number>; pageId?: string | number } | undefined> {
  const urls = pageUrls(ctx.pool);
  if (urls.length === 0) return undefined;
  const url = ctx.rng.pick(urls);
  const opened = await ctx.call(server.navigate.tool.name, { [server.navigate.arg]: url });
  if (opened.isError) return undefined;
  let pageId: string | number | undefined;
  if (server.readerPage !== undefined) {
    const id = pageIdIn(opened.text, url);
    if (id === undefined) return undefined;
    pageId = ["number", "integer"].includes(String(propType(server.reader, server.readerPage))) ? Number(id) : id;
  }
  const readArgs: Record<string, string | number> = server.readerPage !== undefined && pageId !== undefined ? { [server.readerPage]: pageId } : {};
  const shown = read === "probe" ? await ctx.probe(server.reader.name, readArgs) : await ctx.call(server.reader.name, readArgs);
  return shown.isError ? undefined : { url, opened, shown, readArgs, ...(pageId !== undefined ? { pageId } : {}) };
}

/**
 * The id of the page just opened, from the opening call's list of pages: the line that names
 * its URL (`2: Harbor Bakery (http://127.0.0.1:8080/) [selected]`), else the one marked selected.
 */
export function pageIdIn(reply: string, url: string): string | undefined {
  const lines = reply.split("\n");
  const idOf = (line: string | undefined) => (line === undefined ? undefined : /^\s*(?:[-*]\s*)?(?:page\s*)?#?(\d+)\s*[:.)]/i.exec(line)?.[1]);
  const naming = lines.filter((l) => l.includes(url) && idOf(l) !== undefined);
  if (naming.length === 1) return idOf(naming[0]);
  const selected = lines.filter((l) => /\[selected\]|\(selected\)/i.test(l) && idOf(l) !== undefined);
  return selected.length === 1 ? idOf(selected[0]) : undefined;
}

async function buildRead(ctx: RecipeContext, server: BrowserServer): Promise<Draft | undefined> {
  const page = await openGiven(ctx, server, "probe");
  if (!page) return undefined;
  const { url, opened, shown, readArgs } = page;
  const facts = pageFacts(shown.text);
  facts.title ??= pageFacts(opened.text).title;
  const asks = pageAsks(facts, url).filter((a) => fair(a, [url]));
  if (asks.length === 0) return undefined;
  const a = ctx.rng.pick(asks);
  // the title is in the navigation's reply (@playwright/mcp's "- Page Title: …", chrome-devtools-mcp's list of pages): nothing more to call
  if (!(a.title && states(a, opened))) {
    const read = await ctx.call(server.reader.name, readArgs);
    if (!states(a, read)) return undefined;
  }
  return { task: ctx.phrase(READ_TRAIN, READ_TEST, { url, what: a.what }), difficulty: a.difficulty, expected: a.expected, answer: a.answer };
}

async function buildFollow(ctx: RecipeContext, server: BrowserServer): Promise<Draft | undefined> {
  const click = server.click!;
  const page = await openGiven(ctx, server, "call");
  if (!page) return undefined;
  const { url, opened, shown, readArgs, pageId } = page;
  const links = followable(pageFacts(shown.text).links, url);
  if (links.length === 0) return undefined;
  const link = ctx.rng.pick(links);
  if (Object.values(click.args).includes("page") && pageId === undefined) return undefined;
  const args = Object.fromEntries(Object.entries(click.args).map(([a, kind]) => [a, kind === "ref" ? link.ref! : kind === "page" ? pageId! : `link "${link.text}"`]));
  const clicked = await ctx.call(click.tool.name, args);
  if (clicked.isError) return undefined;
  const reachedUrl = /^\s*-?\s*Page URL:[ \t]*(\S+)/m.exec(clicked.text)?.[1];
  const to = resolved(link.href, url)!;
  // what the page first opened shows is no proof the link was followed
  const before = [`${opened.text}\n${shown.text}`, url, link.text];
  const vars = { url, link: link.text };
  const phrase = (a: Ask): Draft => ({ task: ctx.phrase(FOLLOW_TRAIN, FOLLOW_TEST, { ...vars, what: a.what }), difficulty: a.difficulty + 1, expected: a.expected, answer: a.answer });
  const reached = pageFacts(clicked.text);
  // the title the click's reply gives (nothing more to call), some of the time, where it is fair
  const titled = reached.title ? pageAsks({ title: reached.title, sections: [], links: [], cells: [] }, reachedUrl ?? to).filter((a) => fair(a, before) && states(a, clicked)) : [];
  if (titled.length > 0 && ctx.rng.bool(0.3)) return phrase(titled[0]);
  const read = await ctx.call(server.reader.name, readArgs);
  if (read.isError) return undefined;
  const facts = pageFacts(read.text);
  facts.title ??= reached.title;
  const asks = pageAsks(facts, reachedUrl ?? to).filter((a) => fair(a, before) && states(a, read));
  return asks.length > 0 ? phrase(ctx.rng.pick(asks)) : undefined;
}

/** A box to search with: a searchbox (`<input type="search">`), or a text box named for it */
export function isSearchBox(n: SnapshotNode): boolean {
  return n.role === "searchbox" || (["textbox", "combobox"].includes(n.role) && /search|find|look ?up|query|filter/i.test(n.name));
}

async function buildSearch(ctx: RecipeContext, server: BrowserServer): Promise<Draft | undefined> {
  const type = server.type!;
  const page = await openGiven(ctx, server, "call");
  if (!page) return undefined;
  const { url, opened, shown, readArgs, pageId } = page;
  const nodes = flattenSnapshot(shown.text);
  // one search box on the page, named, to type into: with two, which one the task means is a guess
  const boxes = nodes.filter((n) => isSearchBox(n) && n.attrs.ref !== undefined);
  if (boxes.length !== 1 || !usable(boxes[0].name)) return undefined;
  const box = boxes[0];
  const words = searchWords(ctx.pool, nodes, box);
  if (words.length === 0) return undefined;
  const text = ctx.rng.pick(words);
  if ([...Object.values(type.args), ...Object.values(server.pressKey?.args ?? {})].includes("page") && pageId === undefined) return undefined;
  const fill = (kind: string) => (kind === "ref" ? box.attrs.ref : kind === "page" ? pageId : kind === "text" ? text : `${box.role} "${box.name}"`);
  const typed = await ctx.call(type.tool.name, { ...Object.fromEntries(Object.entries(type.args).map(([a, k]) => [a, fill(k)])), ...(type.submit ? { [type.submit]: true } : {}) });
  if (typed.isError) return undefined;
  if (!type.submit) {
    const keyArgs = Object.fromEntries(Object.entries(server.pressKey!.args).map(([a, k]) => [a, k === "key" ? "Enter" : pageId]));
    const pressed = await ctx.call(server.pressKey!.tool.name, keyArgs);
    if (pressed.isError) return undefined;
  }
  const read = await ctx.call(server.reader.name, readArgs);
  if (read.isError) return undefined;
  const facts = pageFacts(read.text);
  const reached = /url="([^"]+)"/.exec(read.text)?.[1] ?? /^\s*-?\s*Page URL:[ \t]*(\S+)/m.exec(read.text)?.[1] ?? url;
  // the page first opened (and the word typed) is no proof the form was submitted
  const before = [`${opened.text}\n${shown.text}`, url, text, box.name];
  const asks = pageAsks(facts, reached).filter((a) => fair(a, before) && states(a, read));
  if (asks.length === 0) return undefined;
  const a = ctx.rng.pick(asks);
  return { task: ctx.phrase(SEARCH_TRAIN, SEARCH_TEST, { url, text, box: box.name, what: a.what }), difficulty: a.difficulty + 1, expected: a.expected, answer: a.answer };
}

/**
 * Words to type into a page's box: values given for an argument named like it (`--value q=rye`,
 * `query`, `search`), else words the page itself shows besides its title and main heading, the
 * box's label and its buttons: table cells, link texts, section headings, short lines of text
 * ("Popular: Rye, Spelt" gives both), as a site's own search finds its own words.
 */
function searchWords(pool: ValuePool, nodes: readonly SnapshotNode[], box: SnapshotNode): string[] {
  const given = ["q", "query", "search", "text", box.name.toLowerCase()].flatMap((k) => pool.lookup(k)).filter((v): v is string => typeof v === "string" && v.trim() !== "" && !/^(https?|file):/i.test(v));
  if (given.length > 0) return [...new Set(given)];
  const skip = new Set([box.name, ...nodes.filter((n) => n.role === "button" || n.role === "RootWebArea" || (n.role === "heading" && n.attrs.level === "1")).map((n) => n.name.trim())]);
  const texts = nodes
    .filter((n) => ["cell", "gridcell", "link", "heading", "text", "listitem", "paragraph"].includes(n.role))
    .map((n) => (n.name || n.value).trim())
    .filter((t) => !skip.has(t));
  const words = texts.flatMap((t) => [t, ...t.replace(/^[^:]{1,30}:\s*/, "").split(/\s*[,;]\s*/)]);
  return [...new Set(words.filter((w) => /^[\p{L}][\p{L}' -]{2,24}$/u.test(w) && !skip.has(w)))];
}

/** Links to another page of the same site (offline, nothing else opens), each text and address once on the page, with a ref to click. */
function followable(links: readonly PageLink[], url: string): PageLink[] {
  const here = stripHash(url);
  return links.filter((l) => {
    const to = resolved(l.href, url);
    return (
      l.ref !== undefined &&
      to !== undefined &&
      new URL(to).origin === new URL(url).origin &&
      stripHash(to) !== here &&
      links.filter((o) => o.text === l.text || resolved(o.href, url) === to).length === 1
    );
  });
}

/** Everything the page's facts answer. */
export function pageAsks(f: PageFacts, url: string): Ask[] {
  const out: Ask[] = [];
  const ask = (what: string, value: string, answer: string, difficulty = 1) => out.push({ what, expected: [checkFor(value)], answer, difficulty });
  if (f.title) out.push({ what: "the page's title", expected: [checkFor(f.title)], answer: `The title is ${f.title}.`, title: true, difficulty: 1 });
  if (f.heading) ask("the page's main heading", f.heading, `The main heading is ${f.heading}.`);
  const sections = f.sections.filter(usable);
  if (sections.length >= 1 && sections.length <= 4 && new Set(sections).size === sections.length)
    out.push({ what: sections.length === 1 ? "the page's one section heading (level 2)" : "every section heading (level 2) on the page", expected: sections.map(checkFor), answer: `The section heading${sections.length === 1 ? " is" : "s are"}: ${sections.join("; ")}.`, difficulty: 2 });
  for (const l of followable(f.links, url).filter((x) => usable(x.text))) {
    ask(`the address the link "${l.text}" points to`, l.href, `The link points to ${l.href}.`, 2);
    ask(`the text of the link that points to ${l.href}`, l.text, `The link says ${l.text}.`, 2);
  }
  for (const c of f.cells.filter((x) => usable(x.value) || /^-?\d+(\.\d+)?$/.test(x.value))) {
    ask(`the ${c.column} given for "${c.row}" in the page's table`, c.value, `The ${c.column} for ${c.row} is ${c.value}.`, 2);
    // the other way round, where no other row of the table has that value in that column
    const alike = f.cells.filter((o) => o.table === c.table && o.column === c.column && o.value === c.value);
    if (alike.length === 1 && c.rowsAre && usable(c.row)) ask(`the ${c.rowsAre} whose ${c.column} is "${c.value}" in the page's table`, c.row, `The ${c.rowsAre} is ${c.row}.`, 2);
  }
  if (f.paragraph && f.paragraph.length <= 120 && usable(f.paragraph)) ask("the first paragraph of text on the page, word for word", f.paragraph, f.paragraph);
  return out;
}

/** A number as a number ("6.50" passes "6.5"), text as text. */
function checkFor(value: string): AnswerCheck {
  return /^-?\d+(\.\d+)?$/.test(value) ? numericCheck(Number(value)) : containsCheck(value);
}

/** Text a contains check can tell apart, and that holds on a later day (no clock in it). */
function usable(value: string): boolean {
  return value.length >= 2 && value.length <= 120 && quotable(value) && !clockLike(value);
}

/** The answer is not given away: no expected text is in what the task says (`what`), nor in
 *  `shownBefore` (the URL; for a link followed, the page first opened and the link's text). */
function fair(a: Ask, shownBefore: readonly string[]): boolean {
  const given = [a.what, ...shownBefore];
  return a.expected.every((e) => (e.kind !== "contains" || usable(e.value)) && !given.some((g) => checkAnswer(e, g).pass));
}

/** Every answer check passes on the call's result: the server states the answer there. */
function states(a: Ask, r: ToolResult): boolean {
  return !r.isError && a.expected.every((e) => checkAnswer(e, r.text).pass);
}

function resolved(href: string, base: string): string | undefined {
  try {
    return new URL(href, base).href;
  } catch {
    return undefined;
  }
}

function stripHash(u: string): string {
  return u.replace(/#.*$/, "");
}

function requiredOf(t: ToolSpec): string[] {
  return (t.inputSchema.required as string[] | undefined) ?? [];
}

function propType(t: ToolSpec, arg: string): unknown {
  return ((t.inputSchema.properties ?? {}) as Record<string, { type?: unknown }>)[arg]?.type;
}

function words(name: string): string {
  return name.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " ");
}
