/**
 * `--resource-tools`: a server's MCP resources offered to the model as list_resources and
 * read_resource, against real servers (test/servers/everything.ts over stdio and Streamable
 * HTTP, and the bundled knowledge fixture, whose facts are resources too), and the verified
 * scenarios built on them.
 */
import { afterAll, describe, expect, it } from "vitest";
import { connect, type McpToolbox } from "../../src/mcp/connect.js";
import { parseResourceListing } from "../../src/mcp/resource-tools.js";
import { problemsAgainstTools } from "../../src/scenarios/against-tools.js";
import { generateVerified } from "../../src/scenarios/verified/generate.js";
import { startEverything, stdioTarget, type HttpServer } from "../servers/launch.js";

const open: McpToolbox[] = [];
const servers: HttpServer[] = [];
afterAll(async () => {
  await Promise.all(open.map((t) => t.close()));
  await Promise.all(servers.map((s) => s.close()));
});

async function toolbox(target: string, resourceTools = true): Promise<McpToolbox> {
  const tb = await connect(target, { timeoutMs: 10_000, resourceTools });
  open.push(tb);
  return tb;
}

const LISTING = [
  "URI templates (fill in the {braces}):",
  "mem://notes/{name} — note: Any note by its name.",
  "Resources:",
  "mem://notes/a — Note A (text/plain): The first note.",
  "mem://notes/b — b (text/plain)",
  "mem://notes/c — c (text/plain)",
  "file:///data/report.csv — report.csv (text/csv): The report the media tool links to.",
  "mem://blob — blob (application/octet-stream)",
  "mem://docs/guide.md — guide.md (text/markdown)",
].join("\n");

describe("resource tools over stdio", () => {
  it("lists every page of resources after the templates, reads text and binary resources, and follows a tool's resource link", async () => {
    const tb = await toolbox(stdioTarget("everything", "--resources"));
    const names = tb.tools.map((t) => t.name);
    expect(names.slice(-2)).toEqual(["list_resources", "read_resource"]);
    expect(tb.openAiTools().find((t) => t.function.name === "read_resource")?.function.parameters).toMatchObject({ required: ["uri"] });
    expect(tb.toolNotes).toEqual([]);

    expect(await tb.call("list_resources", {})).toEqual({ isError: false, text: LISTING, truncated: false });
    expect(await tb.call("read_resource", { uri: "mem://notes/a" })).toEqual({ isError: false, text: "[resource: mem://notes/a]\nalpha note", truncated: false });
    // a URI the list does not name, made from the template
    expect((await tb.call("read_resource", { uri: "mem://notes/secret" })).text).toBe("[resource: mem://notes/secret]\nthe hidden note");
    expect((await tb.call("read_resource", { uri: "mem://blob" })).text).toBe("[resource: mem://blob, application/octet-stream, 6 bytes]");

    const media = await tb.call("media", {});
    const link = /\[resource: (file:\/\/\/data\/report\.csv) \(report\.csv\)\]/.exec(media.text);
    expect(link).not.toBeNull();
    expect((await tb.call("read_resource", { uri: link![1] })).text).toBe("[resource: file:///data/report.csv]\nmonth,sales\njan,12\nfeb,15");
  });

  it("turns a missing resource into a protocol fault and bad arguments into invalid_arguments, like any tool", async () => {
    const tb = await toolbox(stdioTarget("everything", "--resources"));
    const missing = await tb.call("read_resource", { uri: "mem://notes/zzz" });
    // the server's code and message, once (an SDK server repeats its own error's prefix)
    expect(missing).toMatchObject({ isError: true, fault: "protocol", text: "MCP error -32002: Resource not found: mem://notes/zzz" });
    expect(await tb.call("read_resource", {})).toMatchObject({ fault: "invalid_arguments" });
    expect(await tb.call("list_resources", { cursor: "2" })).toMatchObject({ fault: "invalid_arguments" });
    expect(tb.stats()).toMatchObject({ calls: 3, errors: 3, invalidArguments: 2 });
  });

  it("pages a list longer than a tool result, each page saying how many are left and the cursor to the rest", async () => {
    const tb = await toolbox(stdioTarget("everything", "--resources", "--many-resources", "300"));
    // the 20 requests one call makes must not pile listeners on one signal
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on("warning", onWarning);
    const want = [...parseResourceListing(LISTING).map((r) => r.uri), ...Array.from({ length: 300 }, (_, i) => `mem://bulk/${i}`)];
    const follow = async (args: Record<string, string>) => {
      const uris: string[] = [];
      const footers: string[] = [];
      for (let cursor: string | undefined, calls = 0; calls < 50; calls++) {
        const page = await tb.call("list_resources", cursor === undefined ? args : { ...args, cursor });
        expect(page).toMatchObject({ isError: false, truncated: false });
        expect(page.text.length).toBeLessThanOrEqual(20_000);
        uris.push(...parseResourceListing(page.text).map((r) => r.uri));
        const last = page.text.split("\n").at(-1)!;
        cursor = /cursor "([^"]+)"/.exec(last)?.[1];
        if (cursor === undefined) return { uris, footers };
        footers.push(last);
      }
      throw new Error("the cursors never ended");
    };
    // 306 resources of ~600 characters over 153 pages of the server's: every one listed once, in order
    const all = await follow({});
    expect(all.uris).toEqual(want);
    expect(all.footers.length).toBeGreaterThan(1);
    // a page says how many more it read (more still on the server's later pages: "+")
    expect(all.footers[0]).toMatch(/^\(\d+\+ more resources: call list_resources again with cursor "[A-Za-z0-9_-]+" for the next ones\)$/);
    // a query reaches matches past the pages one call reads, and keeps its templates out of later pages
    const found = await follow({ query: "number 29" });
    expect(found.uris).toEqual(["mem://bulk/29", ...Array.from({ length: 10 }, (_, i) => `mem://bulk/${290 + i}`)]);
    expect(found.footers[0]).toMatch(/^\(more matching resources on the server's later pages: call list_resources again with cursor "\S+" and the same query for the next ones\)$/);
    // a cursor from one instance goes on in another (isolated rollouts), and a made-up one is refused
    const first = await tb.call("list_resources", {});
    const cursor = /cursor "([^"]+)"/.exec(first.text)![1];
    const child = await tb.isolated();
    expect(parseResourceListing((await child.call("list_resources", { cursor })).text)[0].uri).toBe(want[parseResourceListing(first.text).length]);
    await child.close();
    expect(await tb.call("list_resources", { cursor: "page-2" })).toMatchObject({ isError: true, fault: "invalid_arguments", text: expect.stringContaining("is not one list_resources gave") });
    await new Promise((ok) => setImmediate(ok)); // warnings are emitted on the next tick
    process.off("warning", onWarning);
    expect(warnings).not.toContain("MaxListenersExceededWarning");
  });

  it("gives isolated instances the same tools, read from their own process", async () => {
    const tb = await toolbox(stdioTarget("everything", "--resources"));
    const child = await tb.isolated();
    expect(child.tools.map((t) => t.name)).toEqual(tb.tools.map((t) => t.name));
    expect((await child.call("read_resource", { uri: "mem://notes/b" })).text).toBe("[resource: mem://notes/b]\nbravo note");
    await child.close();
  });

  it("adds nothing unless asked, and nothing (with a note) for a server without resources", async () => {
    const plain = await toolbox(stdioTarget("everything", "--resources"), false);
    expect(plain.tools.map((t) => t.name)).not.toContain("read_resource");
    expect(await plain.call("read_resource", { uri: "mem://notes/a" })).toMatchObject({ fault: "unknown_tool", text: expect.stringContaining("(--resource-tools offers the server's resources as list_resources and read_resource)") });

    const none = await toolbox(stdioTarget("everything"));
    expect(none.tools.map((t) => t.name)).not.toContain("list_resources");
    expect(none.toolNotes).toEqual(["--resource-tools: the server declares no resources capability, so no resource tools were added"]);
    expect((await none.call("list_resources", {})).text).toContain("(the server declares no resources capability)");
    // a scenario naming one is told the same
    const scenario = { id: "r", task: "t", difficulty: 1, split: "train" as const, tags: [], reference: { calls: [{ name: "read_resource", arguments: { uri: "x://1" } }], answer: "a" } };
    expect(problemsAgainstTools(scenario, plain.tools)[0].message).toMatch(/^the server has no tool "read_resource" \(its tools: .*\) \(--resource-tools offers the server's resources as list_resources and read_resource\)$/);
  });

  it("leaves the server's own tool of the same name in place", async () => {
    const tb = await toolbox(stdioTarget("everything", "--resource-clash", "--resources"));
    expect(tb.tools.map((t) => t.name)).toEqual(["read_resource", "echo", "list_resources"]);
    expect(tb.toolNotes).toEqual(['--resource-tools: the server has its own tool "read_resource", which is the one a model sees (the resource tool of that name is left out)']);
    expect((await tb.call("read_resource", { path: "x" })).text).toBe("the server's own read_resource: x");
  });

  it("reads the knowledge fixture's facts, listed under their template, the description they share said once; finds some by a query", async () => {
    const tb = await toolbox("fixture:knowledge");
    const list = await tb.call("list_resources", {});
    expect(list.text.split("\n").slice(0, 4)).toEqual([
      "URI templates (fill in the {braces}):",
      "fact://{id} — Fact (application/json): One fact of the knowledge base as JSON",
      "Resources (each: One fact of the knowledge base as JSON):",
      "fact://speed-of-light — Speed of light in vacuum (application/json)",
    ]);
    expect(parseResourceListing(list.text)[0]).toEqual({ uri: "fact://speed-of-light", name: "Speed of light in vacuum" });
    const moon = await tb.call("list_resources", { query: "MOON" });
    expect(moon.text.split("\n").slice(1).every((l) => /moon/i.test(l))).toBe(true);
    expect(parseResourceListing(moon.text).length).toBeGreaterThan(0);
    expect((await tb.call("list_resources", { query: "no such thing" })).text).toBe('(no resource matches "no such thing")');
    const fact = await tb.call("read_resource", { uri: "fact://speed-of-light" });
    expect(fact.isError).toBe(false);
    expect(JSON.parse(fact.text.split("\n")[1])).toMatchObject({ id: "speed-of-light", value: "299792458 m/s" });
  });
});

describe("resource tools over Streamable HTTP", () => {
  it("lists and reads in the HTTP session, and in an isolated session", async () => {
    const server = await startEverything("http", 0, "--resources");
    servers.push(server);
    const tb = await toolbox(server.url);
    expect((await tb.call("list_resources", {})).text).toBe(LISTING);
    const child = await tb.isolated();
    expect((await child.call("read_resource", { uri: "mem://notes/c" })).text).toBe("[resource: mem://notes/c]\ncharlie note");
    await child.close();
  });
});

describe("verified scenarios from resources", () => {
  it("reads listed resources and asks about them, by URI or by title alone (list, then read)", async () => {
    const tb = await toolbox(stdioTarget("everything", "--resources", "--no-tools"));
    expect(tb.tools.map((t) => t.name)).toEqual(["list_resources", "read_resource"]);
    const { scenarios } = await generateVerified(tb, { n: 6, seed: 7 });
    expect(scenarios).toHaveLength(6);
    const byTemplate = (id: string) => scenarios.filter((s) => s.tags.includes(`template:generic.resource.${id}`));
    const reads = byTemplate("read");
    const finds = byTemplate("find");
    expect(reads.length + finds.length).toBe(6);
    expect(reads.length).toBeGreaterThan(0);
    expect(finds.length).toBeGreaterThan(0);
    // a document is asked for its title (its first heading), other text of several lines for its first line
    const notes: Record<string, string> = {
      "mem://notes/a": "alpha note",
      "mem://notes/b": "bravo note",
      "mem://notes/c": "charlie note",
      "mem://docs/guide.md": "The User Guide",
      "file:///data/report.csv": "month,sales",
    };
    for (const s of reads) {
      const [call] = s.reference!.calls;
      expect(s.reference!.calls).toHaveLength(1);
      expect(call.name).toBe("read_resource");
      const uri = String(call.arguments.uri);
      expect(s.task).toContain(uri);
      // binary resources make no task
      expect(s.expected).toEqual([{ kind: "contains", value: notes[uri], caseSensitive: false }]);
    }
    for (const s of finds) {
      expect(s.reference!.calls.map((c) => c.name)).toEqual(["list_resources", "read_resource"]);
      const uri = String(s.reference!.calls[1].arguments.uri);
      expect(s.task).not.toContain(uri);
      const names: Record<string, string> = { "mem://notes/a": "Note A", "mem://docs/guide.md": "guide.md", "file:///data/report.csv": "report.csv" };
      expect(s.task).toContain(`"${names[uri] ?? uri.slice(-1)}"`);
      expect(s.expected).toEqual([{ kind: "contains", value: notes[uri], caseSensitive: false }]);
    }
    expect(scenarios.some((s) => s.expected?.[0].kind === "contains" && s.expected[0].value === "The User Guide" && s.task.includes("title"))).toBe(true);
  });

  it("reads back the resources list_resources writes, templates left out", () => {
    expect(parseResourceListing(LISTING)).toEqual([
      { uri: "mem://notes/a", name: "Note A" },
      { uri: "mem://notes/b", name: "b" },
      { uri: "mem://notes/c", name: "c" },
      { uri: "file:///data/report.csv", name: "report.csv" },
      { uri: "mem://blob", name: "blob" },
      { uri: "mem://docs/guide.md", name: "guide.md" },
    ]);
    expect(parseResourceListing("urn:x:1: A note without a name\nhttps://example.com/a — Page (text/html)\n…[the server has more than 20 pages; the rest are not listed]")).toEqual([
      { uri: "urn:x:1" },
      { uri: "https://example.com/a", name: "Page" },
    ]);
    expect(parseResourceListing("(the server lists no resources)")).toEqual([]);
  });
});
