/**
 * test/servers/memory-graph.ts (a stand-in for server-memory) started on a seeded graph, each in
 * its own --template-dir copy; the servers and folders go when the test file's tests are done.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";
import { connect } from "../../src/mcp/connect.js";
import type { Toolbox } from "../../src/mcp/types.js";
import { stdioTarget } from "../servers/launch.js";

/** Call at a test file's top level: returns `graph(lines, ...flags)`, which starts a server on those JSONL lines. */
export function memoryGraphs(): (lines: object[], ...flags: string[]) => Promise<Toolbox> {
  const dirs: string[] = [];
  const boxes: Toolbox[] = [];
  afterAll(async () => {
    for (const b of boxes) await b.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });
  return async (lines, ...flags) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memory-graph-"));
    dirs.push(dir);
    fs.writeFileSync(path.join(dir, "memory.jsonl"), lines.map((l) => JSON.stringify(l)).join("\n"));
    const box = await connect(stdioTarget("memory-graph", ...flags), { templateDir: dir });
    boxes.push(box);
    return box;
  };
}
