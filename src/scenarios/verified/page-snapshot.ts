/**
 * Reading a web page as a browser server shows it: an accessibility snapshot (@playwright/mcp's
 * `browser_snapshot`, a YAML-like tree: `- heading "Harbor Bakery" [level=1] [ref=e2]`;
 * chrome-devtools-mcp's `take_snapshot`, one node a line: `uid=1_1 heading "Harbor Bakery"
 * level="1"`, the page itself a `RootWebArea` named by its title) or, for servers that return
 * the page as Markdown, its `#` headings. What a person asks of a page is
 * read out of it: the title, the main heading, the section headings, the links and where they
 * go, a table's cells by row and column, the first paragraph.
 *
 * Element refs (`[ref=e5]`, `[ref=f1e5]` after a second navigation; `uid=1_10`, the snapshot's
 * number then the element's) are numbered by the server in the order it meets elements, so they
 * are kept (as the `ref` attribute) only to click with, never asked about.
 */

export interface SnapshotNode {
  role: string;
  /** the accessible name, in quotes in the tree: `link "Opening hours"` */
  name: string;
  /** text after the colon: `paragraph [ref=e3]: Fresh bread…`, a link's `/url: /b.html` */
  value: string;
  attrs: Record<string, string>;
  children: SnapshotNode[];
}

export interface PageLink {
  text: string;
  /** as the page gives it (`/b.html`, `b.html`, `https://…`) */
  href: string;
  ref?: string;
}

export interface TableCell {
  /** the row's first cell, which names it */
  row: string;
  /** the first column's header: what the rows' names are ("Loaf") */
  rowsAre: string;
  column: string;
  value: string;
  /** which table of the page, from 0 */
  table: number;
}

export interface PageFacts {
  title?: string;
  /** the one level-1 heading (none when there are several) */
  heading?: string;
  /** level-2 headings, in page order */
  sections: string[];
  links: PageLink[];
  cells: TableCell[];
  paragraph?: string;
}

// `- role "name" [attr=v] [attr]: value`; a name is a JSON string (its quotes escaped)
const LINE = /^(\s*)- ((?:\/)?[\w-]+)(?: "((?:[^"\\]|\\.)*)")?((?: \[[^\]]*\])*)(?::(?: (.*))?)?$/;
// chrome-devtools-mcp: `uid=1_10 link "Opening hours" url="…"`, `uid=1_2 "text"` (no role: text), `attr`
// alone a flag; names and values are written as they are, quotes unescaped (`link "Say "hi""`),
// so the name is whatever leaves a well-formed list of attributes after it
const UID_LINE = /^(\s*)uid=(\S+)(?: ([A-Za-z][\w-]*))?(?: "(.*?)")?((?: [A-Za-z][\w-]*(?:="[^"]*")?)*)(?: \[selected in the DevTools Elements panel\])?\s*$/;

/** The tree in a snapshot's text (inside a ```yaml block or not); lines that are not nodes are skipped. */
export function parseSnapshot(text: string): SnapshotNode[] {
  const roots: SnapshotNode[] = [];
  const stack: Array<{ indent: number; node: SnapshotNode }> = [];
  for (const line of yamlBlock(text).split("\n")) {
    const parsed = yamlNode(line) ?? uidNode(line);
    if (!parsed) continue;
    const { node, indent } = parsed;
    while (stack.length > 0 && stack[stack.length - 1].indent >= indent) stack.pop();
    (stack.length > 0 ? stack[stack.length - 1].node.children : roots).push(node);
    stack.push({ indent, node });
  }
  return roots;
}

/** `- role "name" [attr=v]: value` (@playwright/mcp) */
function yamlNode(line: string): { node: SnapshotNode; indent: number } | undefined {
  const m = LINE.exec(line);
  if (!m) return undefined;
  const attrs: Record<string, string> = {};
  for (const [, k, v] of (m[4] ?? "").matchAll(/\[([\w-]+)(?:=([^\]]*))?\]/g)) attrs[k] = v ?? "true";
  return { node: { role: m[2], name: m[3] !== undefined ? unquote(`"${m[3]}"`) : "", value: unquote((m[5] ?? "").trim()), attrs, children: [] }, indent: m[1].length };
}

/** `uid=1_1 heading "name" level="1"` (chrome-devtools-mcp): the uid becomes the `ref` attribute */
function uidNode(line: string): { node: SnapshotNode; indent: number } | undefined {
  const m = UID_LINE.exec(line);
  if (!m) return undefined;
  const attrs: Record<string, string> = { ref: m[2] };
  for (const [, k, v] of (m[5] ?? "").matchAll(/ ([A-Za-z][\w-]*)(?:="([^"]*)")?/g)) if (k !== "ref") attrs[k] = v ?? "true";
  return { node: { role: m[3] ?? "text", name: m[4] ?? "", value: "", attrs, children: [] }, indent: m[1].length };
}

/** What a snapshot (or a Markdown page) shows, and the page's title from a `Page Title:` line
 *  (or the name of the snapshot's `RootWebArea`). */
export function pageFacts(text: string): PageFacts {
  const nodes = flatten(parseSnapshot(text));
  const title = /^\s*-?\s*Page Title:[ \t]*(\S.*?)\s*$/m.exec(text)?.[1] ?? (nodes.find((n) => n.role === "RootWebArea")?.name.trim() || undefined);
  const facts: PageFacts = { ...(title ? { title } : {}), sections: [], links: [], cells: [] };
  if (nodes.length === 0) {
    // a page as Markdown: "# Heading", "## Section"
    const h1 = [...text.matchAll(/^# +(\S.*?)\s*#*$/gm)].map((m) => m[1]);
    if (h1.length === 1) facts.heading = h1[0];
    facts.sections = [...text.matchAll(/^## +(\S.*?)\s*#*$/gm)].map((m) => m[1]);
    return facts;
  }
  const headings = (level: string) => nodes.filter((n) => n.role === "heading" && n.attrs.level === level).map(textOf).filter((t) => t !== "");
  const h1 = headings("1");
  if (h1.length === 1) facts.heading = h1[0];
  facts.sections = headings("2");
  for (const n of nodes.filter((x) => x.role === "link")) {
    const href = n.children.find((c) => c.role === "/url")?.value ?? n.attrs.url;
    const text = textOf(n);
    if (href && text) facts.links.push({ text, href, ...(n.attrs.ref ? { ref: n.attrs.ref } : {}) });
  }
  nodes.filter((n) => n.role === "table").forEach((table, i) => facts.cells.push(...tableCells(table, i)));
  const paragraph = nodes.find((n) => n.role === "paragraph" && textOf(n) !== "");
  if (paragraph) facts.paragraph = textOf(paragraph);
  return facts;
}

/** Cells of a table with one header row: each data row is named by its first cell, each column by its header. */
function tableCells(table: SnapshotNode, index: number): TableCell[] {
  const rows = flatten(table.children).filter((n) => n.role === "row");
  const header = rows.find((r) => r.children.some((c) => c.role === "columnheader"));
  if (!header) return [];
  const columns = header.children.filter((c) => c.role === "columnheader").map(textOf);
  const data = rows.filter((r) => r !== header).map((r) => r.children.filter((c) => c.role === "cell" || c.role === "rowheader").map(textOf));
  return namedRowCells(columns, data, index);
}

/** A table's first row names its columns: no empty or repeated name, no number for a name. */
export function namesColumns(header: readonly string[]): boolean {
  return !header.some((h) => h === "" || /^-?\d+(\.\d+)?$/.test(h)) && new Set(header).size === header.length;
}

/** Each cell of a row named once by its first cell, by its column's header (`columns`): empty
 *  cells, rows named twice (which one is meant?) and rows of another width give none. */
export function namedRowCells(columns: readonly string[], data: readonly (readonly string[])[], table: number): TableCell[] {
  const keys = data.map((cells) => cells[0] ?? "");
  const out: TableCell[] = [];
  for (const cells of data) {
    if (!cells[0] || keys.filter((k) => k === cells[0]).length !== 1 || cells.length !== columns.length) continue;
    for (let j = 1; j < cells.length; j++) if (columns[j] && cells[j]) out.push({ row: cells[0], rowsAre: columns[0] ?? "", column: columns[j], value: cells[j], table });
  }
  return out;
}

/** A node's text: its name, else its value, else its children's texts. */
function textOf(n: SnapshotNode): string {
  if (n.name) return n.name.trim();
  if (n.value && n.role !== "/url") return n.value.trim();
  return n.children
    .filter((c) => c.role !== "/url")
    .map(textOf)
    .filter(Boolean)
    .join(" ")
    .trim();
}

/** Every node of a snapshot's text, in page order. */
export function flattenSnapshot(text: string): SnapshotNode[] {
  return flatten(parseSnapshot(text));
}

function flatten(nodes: readonly SnapshotNode[]): SnapshotNode[] {
  return nodes.flatMap((n) => [n, ...flatten(n.children)]);
}

/** The ```yaml block of a reply that has one (@playwright/mcp's "### Snapshot"), else the whole text. */
function yamlBlock(text: string): string {
  const m = /```ya?ml\n([\s\S]*?)```/.exec(text);
  return m ? m[1] : text;
}

function unquote(s: string): string {
  if (!/^".*"$/.test(s)) return s;
  try {
    return JSON.parse(s) as string;
  } catch {
    return s.slice(1, -1);
  }
}
