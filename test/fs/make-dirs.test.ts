/**
 * makeDirs: `mkdir -p` one level at a time, which fails at once where Node 20's recursive mkdir
 * never returns (a path under /proc), and returns the first folder it made.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { makeDirs } from "../../src/fs-dirs.js";

describe("makeDirs", () => {
  it("makes the missing levels and returns the first it made; nothing when all are there", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "make-dirs-"));
    const target = path.join(root, "a", "b", "c");
    expect(makeDirs(target)).toBe(path.join(root, "a"));
    expect(fs.statSync(target).isDirectory()).toBe(true);
    expect(makeDirs(target)).toBeUndefined();
  });

  it("fails at once, naming the folder, under /proc", () => {
    expect(() => makeDirs("/proc/train-mcp-no/run")).toThrow(/ENOENT.*mkdir '\/proc\/train-mcp-no'/);
  });
});
