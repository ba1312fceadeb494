/**
 * browser.ts without a browser: which tools make a server a browser (a navigate by `url` and a
 * page reader that needs no argument, by their shapes), and what is asked of a page read.
 * browser-real.test.ts runs the recipes on @playwright/mcp itself.
 */
import { describe, expect, it } from "vitest";
import type { ToolSpec } from "../../src/mcp/types.js";
import { detectBrowser, isSearchBox, pageAsks, pageIdIn } from "../../src/scenarios/verified/browser.js";
import { flattenSnapshot, pageFacts } from "../../src/scenarios/verified/page-snapshot.js";

const WRITES = { readOnlyHint: false, destructiveHint: true };
const READS = { readOnlyHint: true, destructiveHint: false };
const tool = (name: string, description: string, properties: Record<string, unknown>, required: string[], annotations: ToolSpec["annotations"] = READS): ToolSpec => ({
  name,
  description,
  inputSchema: { type: "object", properties, required },
  annotations,
});

// @playwright/mcp 0.0.83's, in its order: browser_find's description mentions the snapshot too
const PLAYWRIGHT = [
  tool("browser_find", "Search the accessibility snapshot of the current page for text or a regular expression.", { text: { type: "string" } }, []),
  tool("browser_navigate", "Navigate to a URL", { url: { type: "string" } }, ["url"], WRITES),
  tool("browser_take_screenshot", "Take a screenshot of the current page.", { scale: { type: "string" } }, ["scale"]),
  tool("browser_snapshot", "Capture accessibility snapshot of the current page, this is better than screenshot", { depth: { type: "number" } }, []),
  tool("browser_click", "Perform click on a web page", { element: { type: "string" }, target: { type: "string" } }, ["target"], WRITES),
  tool("browser_wait_for", "Wait for text to appear or disappear or a specified time to pass", { time: { type: "number" } }, []),
  tool("browser_fill_form", "Fill multiple form fields", { fields: { type: "array" } }, ["fields"], WRITES),
  tool("browser_type", "Type text into editable element", { element: { type: "string" }, target: { type: "string" }, text: { type: "string" }, submit: { type: "boolean" } }, ["target", "text"], WRITES),
  tool("browser_press_key", "Press a key on the keyboard", { key: { type: "string" } }, ["key"], WRITES),
];

describe("a browser server, by its tools' shapes", () => {
  it("navigates by url, reads with the snapshot tool (not browser_find), clicks by the snapshot's ref", () => {
    const b = detectBrowser(PLAYWRIGHT)!;
    expect(b.navigate).toMatchObject({ tool: { name: "browser_navigate" }, arg: "url" });
    expect(b.reader.name).toBe("browser_snapshot");
    expect(b.click).toMatchObject({ tool: { name: "browser_click" }, args: { target: "ref" } });
    // types into a box by its ref, and submits with the same call: no key press needed
    expect(b.type).toMatchObject({ tool: { name: "browser_type" }, args: { target: "ref", text: "text" }, submit: "submit" });
    expect(b.pressKey).toBeUndefined();
  });

  it("an older click that wants a description and a ref gets both; a fetch server is no browser", () => {
    const older = PLAYWRIGHT.map((t) => (t.name === "browser_click" ? tool("browser_click", "Click", { element: { type: "string" }, ref: { type: "string" } }, ["element", "ref"], WRITES) : t));
    expect(detectBrowser(older)!.click!.args).toEqual({ element: "description", ref: "ref" });
    // a fetch tool answers with the page itself, and nothing shows "the page open"
    expect(detectBrowser([tool("fetch", "Fetches a URL from the internet and extracts its contents as markdown", { url: { type: "string" } }, ["url"])])).toBeUndefined();
    expect(detectBrowser(PLAYWRIGHT.filter((t) => t.name !== "browser_snapshot" && t.name !== "browser_find"))).toBeUndefined();
  });
});

// chrome-devtools-mcp 1.11's (a few of its 32): every page tool names the page; take_snapshot
// may save to a file, so it is not annotated read-only; take_heapsnapshot is no page reader
const NOT_READ_ONLY = { readOnlyHint: false };
const DEVTOOLS = [
  tool("click", "Clicks on the provided element", { pageId: { type: "number" }, uid: { type: "string" }, dblClick: { type: "boolean" } }, ["pageId", "uid"], WRITES),
  tool("list_pages", "Get a list of pages open in the browser.", {}, []),
  tool("navigate_page", "Go to a URL, or back, forward, or reload.", { pageId: { type: "number" }, url: { type: "string" } }, ["pageId"], WRITES),
  tool("new_page", "Open a new tab and load a URL. Use project URL if not specified otherwise.", { url: { type: "string" }, background: { type: "boolean" } }, ["url"], WRITES),
  tool("take_heapsnapshot", "Capture a heap snapshot of the target page.", { pageId: { type: "number" }, filePath: { type: "string" } }, ["pageId", "filePath"], WRITES),
  tool("take_snapshot", "Take a text snapshot of the target page based on the a11y tree.", { pageId: { type: "number" }, filePath: { type: "string" } }, ["pageId"], NOT_READ_ONLY),
  tool("wait_for", "Wait for the specified text to appear on the selected page.", { pageId: { type: "number" }, text: { type: "string" } }, ["pageId", "text"]),
  tool("fill_form", "Fill out multiple form elements at once", { pageId: { type: "number" }, elements: { type: "array" } }, ["pageId", "elements"], WRITES),
  tool("type_text", "Type text using keyboard into a previously focused input", { pageId: { type: "number" }, text: { type: "string" } }, ["pageId", "text"], WRITES),
  tool("fill", "Type text into an input, text area or select an option from a <select> element.", { pageId: { type: "number" }, uid: { type: "string" }, value: { type: "string" } }, ["pageId", "uid", "value"], WRITES),
  tool("press_key", "Press a key or key combination.", { pageId: { type: "number" }, key: { type: "string" } }, ["pageId", "key"], WRITES),
];

describe("a browser that keeps several pages open (chrome-devtools-mcp)", () => {
  it("opens with new_page, reads with take_snapshot by the page's id, clicks by page id and uid", () => {
    const b = detectBrowser(DEVTOOLS)!;
    expect(b.navigate).toMatchObject({ tool: { name: "new_page" }, arg: "url" });
    expect(b.reader.name).toBe("take_snapshot");
    expect(b.readerPage).toBe("pageId");
    expect(b.click).toMatchObject({ tool: { name: "click" }, args: { pageId: "page", uid: "ref" } });
    // fill (not fill_form, not type_text, which has no target) types; Enter submits
    expect(b.type).toEqual({ tool: expect.objectContaining({ name: "fill" }), args: { pageId: "page", uid: "ref", value: "text" } });
    expect(b.pressKey).toMatchObject({ tool: { name: "press_key" }, args: { pageId: "page", key: "key" } });
    // a box it can type into but no way to submit: no typing tasks
    expect(detectBrowser(DEVTOOLS.filter((t) => t.name !== "press_key"))!.type).toBeUndefined();
    // a reader that needs more than the page (a file to save to) is none
    expect(detectBrowser(DEVTOOLS.filter((t) => t.name !== "take_snapshot"))).toBeUndefined();
    // a read-only reader comes first, and a snapshot tool marked destructive is never one
    const deleting = tool("delete_snapshot", "Deletes the saved snapshot of the page.", {}, [], WRITES);
    expect(detectBrowser([deleting, ...PLAYWRIGHT])!.reader.name).toBe("browser_snapshot");
    expect(detectBrowser([deleting, ...DEVTOOLS])!.reader.name).toBe("take_snapshot");
    expect(detectBrowser([...DEVTOOLS.filter((t) => t.name !== "take_snapshot"), deleting])).toBeUndefined();
  });

  it("types only into a search box: Enter in any other box submits its form (a deletion's confirmation among them)", () => {
    const boxes = flattenSnapshot(
      [
        'uid=1_1 searchbox "Loaf name"',
        'uid=1_2 textbox "Search the docs"',
        'uid=1_3 combobox "Filter by tag"',
        'uid=1_4 textbox "Type the repository name to confirm"',
        'uid=1_5 textbox "Email"',
        "- textbox \"Find a station\" [ref=e7]",
      ].join("\n"),
    );
    expect(boxes.filter(isSearchBox).map((n) => n.name)).toEqual(["Loaf name", "Search the docs", "Filter by tag", "Find a station"]);
  });

  it("reads the page's id from the opening call's list of pages: the line with its URL, else the selected one", () => {
    const reply = "## Pages\n1: about:blank\n2: Crumb Bakery (http://127.0.0.1:8080/index.html) [selected]";
    expect(pageIdIn(reply, "http://127.0.0.1:8080/index.html")).toBe("2");
    expect(pageIdIn("## Pages\n1: about:blank\n3: Crumb Bakery (http://127.0.0.1:8080/) [selected]", "http://127.0.0.1:8080/index.html")).toBe("3");
    // the URL on two lines and nothing selected: no telling which
    expect(pageIdIn("1: A (http://h/x)\n2: B (http://h/x)", "http://h/x")).toBeUndefined();
    expect(pageIdIn("Navigated to http://h/x", "http://h/x")).toBeUndefined();
    // a title that says "current" is no mark of the page open
    expect(pageIdIn("1: Current prices (http://h/p)\n2: B (http://h/y) [selected]", "http://h/x")).toBe("2");
  });
});

const PAGE = `### Page
- Page URL: http://127.0.0.1:8765/a.html
- Page Title: Harbor Bakery
### Snapshot
\`\`\`yaml
- generic [active] [ref=e1]:
  - heading "Harbor Bakery" [level=1] [ref=e2]
  - link "Opening hours" [ref=e3] [cursor=pointer]:
    - /url: /b.html
  - link "Elsewhere" [ref=e4] [cursor=pointer]:
    - /url: https://example.com/
  - table [ref=e5]:
    - rowgroup [ref=e6]:
      - row [ref=e7]:
        - columnheader "Loaf" [ref=e8]
        - columnheader "Price" [ref=e9]
      - row [ref=e10]:
        - cell "Sourdough" [ref=e11]
        - cell "6.50" [ref=e12]
      - row [ref=e13]:
        - cell "Rye" [ref=e14]
        - cell "6.50" [ref=e15]
      - row [ref=e16]:
        - cell "Baguette" [ref=e17]
        - cell "3.10" [ref=e18]
\`\`\`
`;

describe("what is asked of a page", () => {
  it("asks for a cell by its row, and for the row a value is in only where no other row has it; links to the same site only", () => {
    const asks = pageAsks(pageFacts(PAGE), "http://127.0.0.1:8765/a.html");
    const byWhat = Object.fromEntries(asks.map((a) => [a.what, a.expected.map((e) => ("value" in e ? e.value : e.kind))]));
    expect(byWhat).toEqual({
      "the page's title": ["Harbor Bakery"],
      "the page's main heading": ["Harbor Bakery"],
      'the address the link "Opening hours" points to': ["/b.html"],
      "the text of the link that points to /b.html": ["Opening hours"],
      'the Price given for "Sourdough" in the page\'s table': [6.5],
      'the Price given for "Rye" in the page\'s table': [6.5],
      'the Price given for "Baguette" in the page\'s table': [3.1],
      // 6.50 is the price of two loaves: which one would not be said
      'the Loaf whose Price is "3.10" in the page\'s table': ["Baguette"],
    });
  });
});
