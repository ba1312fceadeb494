/**
 * onnxruntime-node's telemetry stays off (src/policy/onnx/telemetry-off.ts): a real evaluation
 * through the CLI, which samples on onnxruntime, with a HOME and temp folder of its own and no
 * ORT_DISABLE_TELEMETRY of the user's, leaves nothing of onnxruntime's in either. Without that
 * module the same run leaves a device id and an event queue under
 * ~/.cache/Microsoft/DeveloperTools/.onnxruntime, and `.ses` and `mat-debug-<pid>.log` in the
 * temp folder (checked by hand; a control run here would upload to Microsoft wherever the CI has
 * a network).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { cli, tempDir } from "../train/helpers.js";

const root = tempDir("telemetry");
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

it("an evaluation on onnxruntime writes no telemetry files and leaves the temp folder as it found it", async () => {
  const home = path.join(root, "home");
  const tmp = path.join(root, "tmp");
  fs.mkdirSync(home);
  fs.mkdirSync(tmp);
  const r = await cli(["eval", "--model", "default", "--server", "fixture:calculator", "--n", "2", "--json"], { HOME: home, TMPDIR: tmp, XDG_CACHE_HOME: undefined, ORT_DISABLE_TELEMETRY: undefined });
  expect(r.code, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout.trim().split("\n").at(-1)!)).toMatchObject({ model: "default", n: 2 });
  expect(filesUnder(home)).toEqual([]);
  // the wasm engine's worker script is train-mcp's own, kept for the next run; tsx caches its builds
  expect(filesUnder(tmp).filter((f) => !f.startsWith("tsx-") && !f.startsWith("tfjs-wasm-threaded-worker-"))).toEqual([]);
}, 120_000);
