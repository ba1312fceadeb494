/** Shared helpers for the policy-model tests: golden loading and the relative error metric. */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { readSafetensors } from "../../src/policy/safetensors.js";

export const GOLDEN_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "golden");
export const GOLDEN_CASES = ["qwen2-untied", "llama-tied", "qwen3-qknorm", "llama3-rope-bias"];

export function loadGolden(name: string) {
  const dir = path.join(GOLDEN_DIR, name);
  const { tensors } = readSafetensors(path.join(dir, "goldens.safetensors"));
  const inputs = JSON.parse(fs.readFileSync(path.join(dir, "inputs.json"), "utf8")) as { ids: number[][]; mask: number[][] };
  return { dir, tensors, inputs };
}

/** max|a - b| / (max|b| + 1e-8): the error relative to the tensor's scale. */
export function relErr(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`length ${a.length} vs ${b.length}`);
  let d = 0, m = 0;
  for (let i = 0; i < a.length; i++) {
    d = Math.max(d, Math.abs(a[i] - b[i]));
    m = Math.max(m, Math.abs(b[i]));
  }
  return d / (m + 1e-8);
}
