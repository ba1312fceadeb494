/**
 * Whether an adapter's recorded base (adapter_config.json base_model_name_or_path) is the base
 * being served: the built-in model under its spellings, the same folder however it is written,
 * and, for a base that is no folder here (a Hub id, another machine's path), the same name.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { defaultModelDir } from "../../src/policy/default-model/index.js";
import { isSameBase, recordedBase } from "../../src/serve/adapter-base.js";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "adapter-base-"));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function folder(...parts: string[]): string {
  const d = path.join(root, ...parts);
  fs.mkdirSync(d, { recursive: true });
  return d;
}

describe("an adapter's base", () => {
  it("reads base_model_name_or_path, none when absent, null or unreadable", () => {
    const a = folder("a");
    fs.writeFileSync(path.join(a, "adapter_config.json"), JSON.stringify({ peft_type: "LORA", base_model_name_or_path: "Qwen/Qwen3-0.6B" }));
    expect(recordedBase(a)).toBe("Qwen/Qwen3-0.6B");
    fs.writeFileSync(path.join(a, "adapter_config.json"), JSON.stringify({ peft_type: "LORA", base_model_name_or_path: null }));
    expect(recordedBase(a)).toBeNull();
    fs.writeFileSync(path.join(a, "adapter_config.json"), "{not json");
    expect(recordedBase(a)).toBeNull();
    expect(recordedBase(folder("empty"))).toBeNull();
  });

  it("tells the served base from another one", () => {
    const adapter = folder("runs", "r", "checkpoints", "step-000002");
    const served = folder("models", "Qwen2.5-0.5B-Instruct");
    const other = folder("models", "Qwen2.5-0.5B");
    // the built-in model, as "default" or as another clone's folder
    expect(isSameBase("default", adapter, defaultModelDir())).toBe(true);
    expect(isSameBase("/elsewhere/train-mcp/src/policy/default-model", adapter, defaultModelDir())).toBe(true);
    expect(isSameBase("default", adapter, served)).toBe(false);
    // the same folder, absolute, relative to the adapter, or through a link
    expect(isSameBase(served, adapter, served)).toBe(true);
    expect(isSameBase(path.relative(adapter, served), adapter, served)).toBe(true);
    const link = path.join(root, "link");
    fs.symlinkSync(served, link);
    expect(isSameBase(link, adapter, served)).toBe(true);
    // another folder on this machine is another model, whatever its name
    expect(isSameBase(other, adapter, served)).toBe(false);
    const copy = folder("copies", "Qwen2.5-0.5B-Instruct");
    expect(isSameBase(copy, adapter, served)).toBe(false);
    // not on this machine: the name decides (a Hub id, a path on the training machine, a Hub cache snapshot)
    expect(isSameBase("Qwen/Qwen2.5-0.5B-Instruct", adapter, served)).toBe(true);
    expect(isSameBase("/mnt/train/models/qwen2.5-0.5b-instruct/", adapter, served)).toBe(true);
    expect(isSameBase("Qwen/Qwen2.5-0.5B", adapter, served)).toBe(false);
    const snapshot = folder("hub", "models--Qwen--Qwen2.5-0.5B-Instruct", "snapshots", "7ae557604adf67be50417f59c2c2f167def9a775");
    expect(isSameBase("Qwen/Qwen2.5-0.5B-Instruct", adapter, snapshot)).toBe(true);
    expect(isSameBase("Qwen/Qwen2.5-0.5B", adapter, snapshot)).toBe(false);
  });
});
