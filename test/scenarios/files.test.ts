/**
 * Verified scenarios on a server that addresses files by path: the real
 * @modelcontextprotocol/server-filesystem (a devDependency) over stdio, in a --template-dir copy
 * of a small folder; tasks read a listed file, or find one in a subfolder by its name alone, and
 * use the server's other read-only tools: folder listings (with sizes, as a tree), a file's
 * metadata, a search by name and reading two files at once, each answer checked against the
 * folder itself (node:fs).
 * Started on absolute folders away from its working directory where "." shows no files (here: the
 * first folder, which relative paths resolve against, is empty; older versions resolved them
 * against the working directory), it is read through the folders list_allowed_directories names.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { mkdtemp, mkdir, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type McpToolbox } from "../../src/mcp/connect.js";
import type { ToolResult } from "../../src/mcp/types.js";
import { replayScenario } from "../../src/scenarios/replay.js";
import type { Scenario } from "../../src/scenarios/schema.js";
import { documentAnswer } from "../../src/scenarios/verified/document-answer.js";
import { sizeInBytes } from "../../src/scenarios/verified/file-info.js";
import { parseSizedListing, statedFileCount, uniqueLargest } from "../../src/scenarios/verified/file-listing.js";
import { firstLineOf } from "../../src/scenarios/verified/file-multi-read.js";
import { foundPaths } from "../../src/scenarios/verified/file-search.js";
import { parseTree } from "../../src/scenarios/verified/file-tree.js";
import { allowedDirectories, parseListing } from "../../src/scenarios/verified/files.js";
import { generateVerified, type VerifiedResult } from "../../src/scenarios/verified/generate.js";

const SERVER = resolve("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
const text = (t: string, structuredContent?: Record<string, unknown>) => ({ isError: false, text: t, truncated: false, ...(structuredContent ? { structuredContent } : {}) }) as ToolResult;

let template: string;
let tb: McpToolbox;

beforeAll(async () => {
  template = await mkdtemp(join(tmpdir(), "files-template-"));
  await writeFile(join(template, "readme.txt"), "Project Falcon\nOwner: Dana Reyes\nBudget: 12000\n");
  await writeFile(join(template, "config.json"), '{"name": "falcon", "version": "2.4.1", "port": 8080}\n');
  await writeFile(join(template, ".env"), "API_TOKEN: hidden\n");
  await mkdir(join(template, "docs"));
  await writeFile(join(template, "docs", "setup.md"), "# Setup Guide\n\nInstall node 20.\n");
  await writeFile(join(template, "docs", "faq.md"), "Questions\nAnswers follow.\n");
  // one level deeper: only a tree or a search reaches it
  await mkdir(join(template, "docs", "img"));
  await writeFile(join(template, "docs", "img", "logo.svg"), '<svg xmlns="http://www.w3.org/2000/svg"/>\n');
  tb = await connect(`stdio:node '${SERVER}' .`, { templateDir: template, timeoutMs: 20_000 });
});
afterAll(async () => {
  await tb?.close();
  await rm(template, { recursive: true, force: true });
});

// what each file of the template says: the answers a task may ask for
const answers: Record<string, string[]> = {
  "readme.txt": ["Dana Reyes", "12000", "Project Falcon"],
  "config.json": ["falcon", "2.4.1", "8080"],
  "docs/setup.md": ["Setup Guide"],
  "docs/faq.md": ["Questions"],
};

const recipeOf = (s: Scenario) => s.tags.find((t) => t.startsWith("template:"))!.slice("template:".length);
const expectedValues = (s: Scenario) => (s.expected ?? []).map((e) => (e as { value: unknown }).value);

// one generation on the copied folder, for the read tasks and for the other tools' tasks
let generated: Promise<VerifiedResult> | undefined;
const generatedOnCopy = () => (generated ??= generateVerified(tb, { n: 26, seed: 3 }));

describe("file recipes on server-filesystem", () => {
  it("read listed files and find one in a subfolder by its name, with answers from what the files say, replayed on a fresh copy", async () => {
    const { scenarios: all } = await generatedOnCopy();
    expect(all).toHaveLength(26);
    const scenarios = all.filter((s) => /^generic\.files\.(read|find)\./.test(recipeOf(s)));
    expect(scenarios.length).toBeGreaterThanOrEqual(4);
    let finds = 0;
    for (const s of scenarios) {
      const calls = s.reference!.calls;
      const read = calls.at(-1)!;
      expect(read.name).toMatch(/^read_(text_)?file$/);
      const path = String(read.arguments.path);
      // never the hidden file, never a path into the instance's own copy
      expect(Object.keys(answers)).toContain(path);
      expect(answers[path]).toContain(String((s.expected![0] as { value: unknown }).value));
      if (s.tags.some((t) => t.startsWith("template:generic.files.find."))) {
        finds++;
        expect(calls.map((c) => [c.name, c.arguments.path])).toEqual([["list_directory", "."], ["list_directory", "docs"], [read.name, path]]);
        expect(s.task).toContain(path.split("/")[1]);
        expect(s.task).not.toContain(path);
      } else {
        expect(calls).toHaveLength(1);
        expect(s.task).toContain(path);
      }
    }
    expect(finds).toBeGreaterThan(0);
    // each one holds on another instance (its own copy of the folder)
    const other = await tb.isolated();
    try {
      for (const s of scenarios) expect((await replayScenario(other, s)).pass, s.task).toBe(true);
    } finally {
      await other.close();
    }
  });
});

/** Every file under the template, hidden ones too, as paths relative to it. */
function templateFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [relative(template, join(dir, e.name))]));
  return walk(template);
}
const filesDirectlyIn = (dir: string) => readdirSync(join(template, dir), { withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name);
const extension = (name: string) => name.split(".").at(-1)!;
const firstLine = (path: string) => readFileSync(join(template, path), "utf8").split("\n").find((l) => l.trim() !== "")!.replace(/^#+\s+/, "");

/** What each of the other file tools' recipes must have got right, checked against the folder itself. */
const checkAgainstFolder: Record<string, (s: Scenario, args: Record<string, unknown>, values: unknown[]) => void> = {
  "generic.files.info.size.get_file_info": (s, args, [size]) => {
    expect(size).toBe(statSync(join(template, String(args.path))).size);
    expect(s.task).toContain(String(args.path));
  },
  "generic.files.sizes.count.list_directory_with_sizes": (_s, args, [count]) => expect(count).toBe(filesDirectlyIn(String(args.path)).length),
  "generic.files.sizes.largest.list_directory_with_sizes": (_s, args, [name]) => {
    const sizes = filesDirectlyIn(String(args.path)).map((f) => [f, statSync(join(template, String(args.path), f)).size] as const);
    const top = Math.max(...sizes.map(([, b]) => b));
    expect(sizes.filter(([, b]) => b === top).map(([f]) => f)).toEqual([name]);
  },
  "generic.files.list.ext.list_directory": (s, args, [name]) => {
    const ext = extension(String(name));
    expect(s.task).toContain(`.${ext}`);
    expect(filesDirectlyIn(String(args.path)).filter((f) => f.endsWith(`.${ext}`))).toEqual([name]);
  },
  "generic.files.list.names.list_directory": (_s, args, names) => expect([...names].sort()).toEqual(filesDirectlyIn(String(args.path)).sort()),
  "generic.files.tree.folder.directory_tree": (s, _args, [folder]) => {
    const named = templateFiles().filter((f) => s.task.includes(basename(f)));
    expect(named).toHaveLength(1);
    expect(basename(dirname(named[0]))).toBe(folder);
  },
  "generic.files.tree.ext.directory_tree": (s, _args, [name]) => {
    const ext = extension(String(name));
    expect(s.task).toContain(`.${ext}`);
    const all = templateFiles().filter((f) => f.endsWith(`.${ext}`));
    expect(all.map((f) => basename(f))).toEqual([name]);
    expect(all[0]).toContain("/");
  },
  "generic.files.search.path.search_files": (s, _args, [tail]) => {
    const name = basename(String(tail));
    expect(s.task).toContain(name);
    expect(templateFiles().filter((f) => basename(f) === name)).toEqual([tail]);
  },
  "generic.files.multi.first-lines.read_multiple_files": (_s, args, lines) => expect(lines).toEqual((args.paths as string[]).map(firstLine)),
};

describe("file recipes for server-filesystem's other tools", () => {
  it("list folders (with sizes, as a tree), read a file's size, search by name and read two files at once, with answers the folder itself confirms, replayed on a fresh copy", async () => {
    const { scenarios } = await generatedOnCopy();
    const others = scenarios.filter((s) => recipeOf(s) in checkAgainstFolder);
    // every one of those tools is the subject of some task
    const called = new Set(others.flatMap((s) => s.reference!.calls.map((c) => c.name)));
    for (const tool of ["list_directory", "list_directory_with_sizes", "directory_tree", "get_file_info", "search_files", "read_multiple_files"]) expect(called, tool).toContain(tool);
    // and every kind of question is asked at least once
    expect(new Set(others.map(recipeOf))).toEqual(new Set(Object.keys(checkAgainstFolder)));
    for (const s of others) {
      const calls = s.reference!.calls;
      // one call, the one the question is about: the folder, file or name is in the task
      expect(calls, s.task).toHaveLength(1);
      checkAgainstFolder[recipeOf(s)](s, calls[0].arguments, expectedValues(s));
      // never a time, never the instance's own copy
      expect(JSON.stringify(s)).not.toMatch(/train-mcp-work-|GMT|created|modified/);
    }
    const other = await tb.isolated();
    try {
      for (const s of others) expect((await replayScenario(other, s)).pass, s.task).toBe(true);
    } finally {
      await other.close();
    }
  });

  it("a search task's answer is the path's stable tail, found with the glob where the bare name finds nothing", async () => {
    const { scenarios } = await generatedOnCopy();
    const searches = scenarios.filter((s) => recipeOf(s).startsWith("generic.files.search."));
    expect(searches.length).toBeGreaterThan(0);
    for (const s of searches) {
      const [call] = s.reference!.calls;
      expect(call.arguments).toEqual({ path: ".", pattern: `**/${basename(String(expectedValues(s)[0]))}` });
      // the server answers with the absolute path of its own copy; the check holds on any copy
      const found = await tb.call(call.name, call.arguments);
      expect(found.text).toMatch(/^\/.*train-mcp-work-.*\//);
      expect(found.text.endsWith(`/${String(expectedValues(s)[0])}`)).toBe(true);
    }
  });
});

describe("the other file tools' answers as server-filesystem writes them", () => {
  const listing = text("[FILE] a.txt                                21 B\n[FILE] big.bin                             1.50 KB\n[FILE] .env                                 9 B\n[DIR] sub                            \n\nTotal: 3 files, 1 directories\nCombined size: 1.56 KB");
  it("reads a sized listing, its stated total and its one largest file; a tie in what the listing shows is no answer", () => {
    expect(parseSizedListing(listing)).toEqual([
      { name: "a.txt", dir: false, bytes: 21, shown: "21 B" },
      { name: "big.bin", dir: false, bytes: 1536, shown: "1.50 KB" },
      { name: ".env", dir: false, bytes: 9, shown: "9 B" },
      { name: "sub", dir: true },
    ]);
    expect(statedFileCount(listing)).toBe(3);
    expect(statedFileCount(text("[FILE] 3 files.txt   2 B"))).toBeUndefined();
    expect(uniqueLargest(parseSizedListing(listing))).toBe("big.bin");
    expect(uniqueLargest(parseSizedListing(text("[FILE] a.bin   1.50 KB\n[FILE] b.bin   1.50 KB")))).toBeUndefined();
    expect(uniqueLargest(parseSizedListing(text("[FILE] a.bin   1.50 KB\n[FILE] b.bin")))).toBeUndefined();
  });

  it("reads a JSON tree with each entry's folders, and refuses one with a path for a name", () => {
    const tree = JSON.stringify([{ name: "a.txt", type: "file" }, { name: "docs", type: "directory", children: [{ name: "x.md", type: "file" }] }, { name: ".git", type: "directory", children: [{ name: "HEAD", type: "file" }] }]);
    expect(parseTree(text(tree))).toEqual([
      { name: "a.txt", dir: false, folders: [], hidden: false },
      { name: "docs", dir: true, folders: [], hidden: false },
      { name: "x.md", dir: false, folders: ["docs"], hidden: false },
      { name: ".git", dir: true, folders: [], hidden: true },
      { name: "HEAD", dir: false, folders: [".git"], hidden: true },
    ]);
    expect(parseTree(text(JSON.stringify([{ name: "../etc/passwd", type: "file" }])))).toBeUndefined();
    expect(parseTree(text("[FILE] a.txt"))).toBeUndefined();
  });

  it("reads a file's size in bytes from get_file_info's lines or JSON, and nothing from other units", () => {
    expect(sizeInBytes(text("size: 17\ncreated: Sun Dec 06 2026\nisFile: true\npermissions: 644"))).toBe(17);
    expect(sizeInBytes(text('{"size": 42, "mtime": "2026-01-01"}'))).toBe(42);
    expect(sizeInBytes(text("size: 1.2 KB"))).toBeUndefined();
  });

  it("reads search hits one per line or as JSON, and each file's first line of a several-files answer", () => {
    expect(foundPaths(text("/w/copy/docs/faq.md\n/w/copy/docs/setup.md"))).toEqual(["/w/copy/docs/faq.md", "/w/copy/docs/setup.md"]);
    expect(foundPaths(text(JSON.stringify([{ path: "docs/faq.md" }, "a.txt"])))).toEqual(["docs/faq.md", "a.txt"]);
    const both = text("a.txt:\nhello\nmore\n\n---\nsub/a.txt:\n\n# Title\n\n---\nmissing.txt: Error - ENOENT");
    expect(firstLineOf(both, "a.txt")).toBe("hello");
    expect(firstLineOf(both, "sub/a.txt")).toBe("Title");
    expect(firstLineOf(both, "missing.txt")).toBeUndefined();
  });
});

describe("file recipes on server-filesystem started on absolute folders elsewhere", () => {
  it("use the folders list_allowed_directories names as roots, with absolute paths", async () => {
    const empty = await mkdtemp(join(tmpdir(), "files-empty-"));
    // no --cwd (which would be offered as the one MCP root, and replace the folders)
    const abs = await connect(`stdio:node '${SERVER}' '${empty}' '${template}'`, { timeoutMs: 20_000 });
    try {
      expect(parseListing(await abs.call("list_directory", { path: "." }))).toEqual([]);
      const roots = allowedDirectories(await abs.call("list_allowed_directories", {}));
      const root = await realpath(template);
      expect(roots).toEqual([await realpath(empty), root]);
      // no writes: without --template-dir they would land in the real folders
      const { scenarios } = await generateVerified(abs, { n: 24, seed: 3, allowWrites: false });
      expect(scenarios).toHaveLength(24);
      let finds = 0;
      // the other tools' generic tasks are not this test's subject
      const files = scenarios.filter((s) => s.tags.some((t) => t.startsWith("template:generic.files.")));
      expect(files.length).toBeGreaterThanOrEqual(4);
      // the other file tools' tasks name absolute folders too, and hold there
      for (const s of files) expect((await replayScenario(abs, s)).pass, s.task).toBe(true);
      const reads = files.filter((s) => /^generic\.files\.(read|find)\./.test(recipeOf(s)));
      expect(reads.length).toBeGreaterThan(0);
      for (const s of reads) {
        const calls = s.reference!.calls;
        const read = calls.at(-1)!;
        const path = String(read.arguments.path);
        expect(path.startsWith(`${root}/`), path).toBe(true);
        const rel = path.slice(root.length + 1);
        expect(answers[rel]).toContain(String((s.expected![0] as { value: unknown }).value));
        if (s.tags.some((t) => t.startsWith("template:generic.files.find."))) {
          finds++;
          // the solver learns the folders first, as it must
          expect(calls.map((c) => [c.name, c.arguments.path])).toEqual([["list_allowed_directories", undefined], ["list_directory", root], ["list_directory", `${root}/docs`], [read.name, path]]);
          expect(s.task).not.toContain(root);
        } else {
          expect(s.task).toContain(path);
        }
      }
      expect(finds).toBeGreaterThan(0);
    } finally {
      await abs.close();
      await rm(empty, { recursive: true, force: true });
    }
  });

  it("allowedDirectories reads the server's lines or a JSON list, never the machine's root", () => {
    expect(allowedDirectories(text("Allowed directories:\n/srv/data\n/home/u/docs/\n/"))).toEqual(["/srv/data", "/home/u/docs"]);
    expect(allowedDirectories(text('["C:\\\\data", "/x/../etc", "rel/dir"]'))).toEqual(["C:\\data"]);
    expect(allowedDirectories({ ...text("/srv/data"), isError: true })).toEqual([]);
  });
});

describe("parseListing", () => {
  it("reads tagged lines, a JSON tree's top level and bare names; hidden files and paths are left out", () => {
    expect(parseListing(text("[FILE] config.json\n[DIR] docs\n[FILE] .env\n[FILE] readme.txt                47 B"))).toEqual([
      { name: "config.json", dir: false },
      { name: "docs", dir: true },
      { name: "readme.txt", dir: false },
    ]);
    expect(parseListing(text(JSON.stringify([{ name: "a.md", type: "file" }, { name: "src", type: "directory", children: [] }, { name: "../x", type: "file" }])))).toEqual([
      { name: "a.md", dir: false },
      { name: "src", dir: true },
    ]);
    expect(parseListing(text("notes.txt\nlib/\nTotal: 2 files"))).toEqual([
      { name: "notes.txt", dir: false },
      { name: "lib", dir: true },
    ]);
  });
});

describe("documentAnswer", () => {
  it("asks a JSON document for a field (also wrapped as structured content), prose for its title, a keyed line or its first line", () => {
    expect(documentAnswer(text('{"name": "falcon"}', { content: '{"name": "falcon"}' }), { path: "c.json" })).toEqual({ label: "name", value: "falcon" });
    expect(documentAnswer(text("# Guide\n\nRun it 20 times."), { path: "g.md" })).toEqual({ label: "title", value: "Guide" });
    // the number in a sentence is no field of a document
    expect(documentAnswer(text("Falcon\nOwner: Dana\nBudget: 120\nOwner: Eve\nActive: true"), { path: "r.txt" })).toEqual({ label: "budget", value: 120 });
    expect(documentAnswer(text("Falcon notes\nsee 20 items"), { path: "r.txt" })).toEqual({ label: "first line", value: "Falcon notes" });
    expect(documentAnswer(text("one line"), { path: "one.txt" })).toEqual({ label: "result", value: "one line" });
  });

  it("accepting fewer than asked, still holds out a quarter of what it built (training tasks whose answer no other shares move over)", async () => {
    // read-only: with writes, write_file tasks (checked by reading the file back) would fill the 80
    const { scenarios } = await generateVerified(tb, { n: 80, seed: 3, acceptFewer: true, allowWrites: false });
    const test = scenarios.filter((s) => s.split === "test");
    expect(scenarios.length).toBeLessThan(80);
    expect(test.length).toBe(Math.round(scenarios.length * 0.25));
    const trainExpected = new Set(scenarios.filter((s) => s.split === "train").map((s) => JSON.stringify(s.expected)));
    for (const s of test.filter((x) => x.tags.includes("heldout:values"))) expect(trainExpected.has(JSON.stringify(s.expected)), s.id).toBe(false);
  }, 120_000);

  it("asks nothing a reply would pass by holding a bracket (a first line '{' or '/**'), and no declaration of source code as a 'Key: value' fact", () => {
    expect(documentAnswer(text("/**\n * The server.\n */\nlet value: number | undefined;\nconst expression: z"), { path: "calculator/server.ts", name: "server.ts" })).toBeUndefined();
    expect(documentAnswer(text("{\n  x\n}"), { path: "a.txt" })).toBeUndefined();
    // the same lines in a text file are facts
    expect(documentAnswer(text("Notes\nvalue: forty two"), { path: "notes.txt" })).toEqual({ label: "value", value: "forty two" });
    expect(firstLineOf(text("a.json:\n{\n}\n---\nb.md:\n# Hello there\n"), "a.json")).toBeUndefined();
    expect(firstLineOf(text("a.json:\n{\n}\n---\nb.md:\n# Hello there\n"), "b.md")).toBe("Hello there");
  });
});
