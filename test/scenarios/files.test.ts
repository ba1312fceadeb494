/**
 * Verified scenarios on a server that addresses files by path: the real
 * @modelcontextprotocol/server-filesystem (a devDependency) over stdio, in a --template-dir copy
 * of a small folder; tasks read a listed file, or find one in a subfolder by its name alone.
 * Started on absolute folders away from its working directory where "." shows no files (here: the
 * first folder, which relative paths resolve against, is empty; older versions resolved them
 * against the working directory), it is read through the folders list_allowed_directories names.
 */
import { mkdtemp, mkdir, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type McpToolbox } from "../../src/mcp/connect.js";
import type { ToolResult } from "../../src/mcp/types.js";
import { replayScenario } from "../../src/scenarios/replay.js";
import { documentAnswer } from "../../src/scenarios/verified/document-answer.js";
import { allowedDirectories, parseListing } from "../../src/scenarios/verified/files.js";
import { generateVerified } from "../../src/scenarios/verified/generate.js";

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

describe("file recipes on server-filesystem", () => {
  it("read listed files and find one in a subfolder by its name, with answers from what the files say, replayed on a fresh copy", async () => {
    const { scenarios } = await generateVerified(tb, { n: 8, seed: 3 });
    expect(scenarios).toHaveLength(8);
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
      const { scenarios } = await generateVerified(abs, { n: 8, seed: 3, allowWrites: false });
      expect(scenarios).toHaveLength(8);
      let finds = 0;
      // the other tools' generic tasks are not this test's subject
      const files = scenarios.filter((s) => s.tags.some((t) => t.startsWith("template:generic.files.")));
      expect(files.length).toBeGreaterThanOrEqual(4);
      for (const s of files) {
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
        expect((await replayScenario(abs, s)).pass, s.task).toBe(true);
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
});
