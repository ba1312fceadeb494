/**
 * What `npm pack` puts in the package a user installs (`npm i -g train-mcp-0.1.0.tgz`): the CLI,
 * its sources with the built-in model's weights and tokenizer, the bundled scenario sets and the
 * fixture servers — and not the tests, benchmarks, base-model scripts or CI files, which only a
 * clone needs. (Installing the tarball in a fresh folder and running `train-mcp train` from it
 * was done by hand: README "Installing as a package".)
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";

describe("npm pack", () => {
  it("ships what the CLI runs on, and no test, bench, script or CI file", () => {
    const r = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    const [pack] = JSON.parse(r.stdout) as Array<{ files: Array<{ path: string }> }>;
    const files = new Set(pack.files.map((f) => f.path));
    for (const needed of [
      "bin/train-mcp.mjs",
      "package.json",
      "README.md",
      "tsconfig.json",
      "src/cli/main.ts",
      "src/policy/default-model/model.safetensors",
      "src/policy/default-model/tokenizer.json",
      "src/policy/default-model/config.json",
      ...readdirSync("scenarios").map((f) => `scenarios/${f}`),
    ])
      expect(files.has(needed), needed).toBe(true);
    // every fixture server's entry point
    for (const fixture of ["calculator", "knowledge", "code-runner", "codefix", "shop"]) expect([...files].some((f) => f.startsWith(`mcp-fixtures/${fixture}/`)), fixture).toBe(true);
    const top = new Set([...files].map((f) => f.split("/")[0]));
    for (const clonesOnly of ["test", "bench", "scripts", ".ci", "runs", "node_modules"]) expect(top.has(clonesOnly), clonesOnly).toBe(false);
  });
});
