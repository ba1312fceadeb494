/**
 * Change tasks on a server whose instances share their data (test/servers/todo-file.ts keeps its
 * items in a file of its working directory: every process started in one folder sees the same
 * file, as every process of a database server sees one database). A change made on the
 * generator's own instance shows on the untouched one too, so its checks would pass with nothing
 * done: the generator stops building changes, says why, and keeps only tasks that still replay.
 * With a copy per instance (--template-dir) the same tools give change tasks.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { connect } from "../../src/mcp/connect.js";
import type { Toolbox } from "../../src/mcp/types.js";
import { generateVerified } from "../../src/scenarios/verified/generate.js";
import { replaysOnFresh } from "../helpers/checks-after.js";
import { stdioTarget } from "../servers/launch.js";

const boxes: Toolbox[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const b of boxes) await b.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "shared-data-"));
  dirs.push(d);
  return d;
};
const changes = ["add_todo", "spring_clean"];

describe("a server whose instances share their data", () => {
  it("builds no change task, says the instances share their data, and keeps only tasks that still replay", async () => {
    const box = await connect(stdioTarget("todo-file"), { cwd: tempDir() });
    boxes.push(box);
    const notes: string[] = [];
    // (spring_clean may have emptied the shared file before the sharing showed: then nothing is left to ask)
    const scenarios = await generateVerified(box, { n: 16, seed: 1, allowWrites: true, acceptFewer: true, onNote: (l) => notes.push(l) }).then(
      (r) => r.scenarios,
      (e: unknown) => {
        expect(e).toMatchObject({ code: "ConfigInvalid", message: expect.stringMatching(/^could not build any verified scenario/) });
        return [];
      },
    );
    expect(notes.find((l) => l.startsWith("no change task built"))).toMatch(/the instances share their data .*; run the server on a throwaway copy of its data/);
    expect(scenarios.filter((s) => s.reference!.calls.some((c) => changes.includes(c.name)))).toEqual([]);
    for (const s of scenarios) expect(await replaysOnFresh(box, s), s.task).toBe(true);
  }, 180_000);

  it("with a copy of the data per instance (--template-dir), builds change tasks and says nothing of sharing", async () => {
    const template = tempDir();
    const box = await connect(stdioTarget("todo-file"), { templateDir: template });
    boxes.push(box);
    const notes: string[] = [];
    const { scenarios } = await generateVerified(box, { n: 16, seed: 1, allowWrites: true, acceptFewer: true, onNote: (l) => notes.push(l) });
    expect(scenarios.filter((s) => s.reference!.calls.some((c) => c.name === "add_todo")).length).toBeGreaterThan(0);
    expect(notes.filter((l) => /share their data/.test(l))).toEqual([]);
  }, 180_000);
});
