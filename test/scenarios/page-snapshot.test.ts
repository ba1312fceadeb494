/**
 * Reading a page out of a browser server's reply (page-snapshot.ts): @playwright/mcp's
 * accessibility tree (as 0.0.83 prints it, escaped quotes and a row named twice added) and a page as
 * Markdown.
 */
import { describe, expect, it } from "vitest";
import { pageFacts, parseSnapshot } from "../../src/scenarios/verified/page-snapshot.js";

const REPLY = `### Page
- Page URL: http://127.0.0.1:8765/a.html
- Page Title: Harbor Bakery
- Console: 1 errors, 0 warnings
### Snapshot
\`\`\`yaml
- generic [active] [ref=e1]:
  - heading "Harbor Bakery" [level=1] [ref=e2]
  - paragraph [ref=e3]: Fresh bread every morning since 1987.
  - navigation [ref=e4]:
    - link "Opening hours" [ref=e5] [cursor=pointer]:
      - /url: /b.html
    - text: "|"
    - link "Say \\"hi\\"" [ref=e6] [cursor=pointer]:
      - /url: /c.html
  - heading "Today's loaves" [level=2] [ref=e7]
  - table [ref=e8]:
    - rowgroup [ref=e9]:
      - row [ref=e10]:
        - columnheader "Loaf" [ref=e11]
        - columnheader "Price" [ref=e12]
      - row [ref=e13]:
        - cell "Sourdough" [ref=e14]
        - cell "6.50" [ref=e15]
      - row [ref=e16]:
        - cell "Rye" [ref=e17]
        - cell "5.20" [ref=e18]
      - row [ref=e19]:
        - cell "Rye" [ref=e20]
        - cell "5.90" [ref=e21]
  - heading "Ordering" [level=2] [ref=e22]
\`\`\`
`;

describe("a browser server's page snapshot", () => {
  it("reads the tree: roles, names (escaped quotes too), values and refs, nested by indentation", () => {
    const [root] = parseSnapshot(REPLY);
    expect(root.role).toBe("generic");
    expect(root.attrs).toEqual({ active: "true", ref: "e1" });
    expect(root.children.map((c) => c.role)).toEqual(["heading", "paragraph", "navigation", "heading", "table", "heading"]);
    expect(root.children[1].value).toBe("Fresh bread every morning since 1987.");
    const nav = root.children[2];
    expect(nav.children.map((c) => [c.role, c.name, c.value])).toEqual([
      ["link", "Opening hours", ""],
      ["text", "", "|"],
      ["link", 'Say "hi"', ""],
    ]);
    expect(nav.children[0].children).toMatchObject([{ role: "/url", value: "/b.html" }]);
  });

  it("gives the title, the one main heading, the sections, the links with their refs, and each table cell of a row named once", () => {
    expect(pageFacts(REPLY)).toEqual({
      title: "Harbor Bakery",
      heading: "Harbor Bakery",
      sections: ["Today's loaves", "Ordering"],
      links: [
        { text: "Opening hours", href: "/b.html", ref: "e5" },
        { text: 'Say "hi"', href: "/c.html", ref: "e6" },
      ],
      // "Rye" names two rows: which one's price would not be said
      cells: [{ row: "Sourdough", rowsAre: "Loaf", column: "Price", value: "6.50", table: 0 }],
      paragraph: "Fresh bread every morning since 1987.",
    });
  });

  it("a page with two level-1 headings has no main heading; a Markdown page gives its headings", () => {
    const two = "```yaml\n- heading \"One\" [level=1] [ref=e1]\n- heading \"Two\" [level=1] [ref=e2]\n```";
    expect(pageFacts(two).heading).toBeUndefined();
    expect(pageFacts("# Pricing\n\nSome text.\n\n## Plans\n\n## Support\n")).toEqual({ heading: "Pricing", sections: ["Plans", "Support"], links: [], cells: [] });
  });

  it("reads chrome-devtools-mcp's snapshot: the root's name is the title, uids are refs, a link's url its address", () => {
    const devtools = [
      "## Latest page snapshot",
      'uid=1_0 RootWebArea "Crumb Bakery" url="http://127.0.0.1:8080/index.html"',
      '  uid=1_1 heading "Crumb Bakery" level="1"',
      '  uid=1_2 "Fresh bread every morning since 1987."',
      '  uid=1_3 heading "Prices" level="2"',
      '  uid=1_10 link "Opening hours" url="http://127.0.0.1:8080/hours.html"',
      '  uid=1_12 " "',
      // names and values as they are, quotes unescaped; a selected element's note after them
      '  uid=1_13 link "About "us"" url="http://127.0.0.1:8080/about.html" focusable focused [selected in the DevTools Elements panel]',
      '  uid=1_14 link "C:\\new" url="http://127.0.0.1:8080/c.html"',
    ].join("\n");
    expect(pageFacts(devtools)).toEqual({
      title: "Crumb Bakery",
      heading: "Crumb Bakery",
      sections: ["Prices"],
      links: [
        { text: "Opening hours", href: "http://127.0.0.1:8080/hours.html", ref: "1_10" },
        { text: 'About "us"', href: "http://127.0.0.1:8080/about.html", ref: "1_13" },
        { text: "C:\\new", href: "http://127.0.0.1:8080/c.html", ref: "1_14" },
      ],
      cells: [],
    });
    const [root] = parseSnapshot(devtools);
    expect(root.children.map((c) => c.role)).toEqual(["heading", "text", "heading", "link", "text", "link", "link"]);
    expect(root.children[5].attrs).toEqual({ ref: "1_13", url: "http://127.0.0.1:8080/about.html", focusable: "true", focused: "true" });
  });
});
