/**
 * What a folder named as a run directory holds: a run (known by the files only a run writes, or a
 * config.json with a run's fields), a model folder (its config.json is a model's), a folder of the
 * user's own files, or nothing yet. Only the last is run into; a run only by --resume.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { TrainMcpError } from "../../src/errors.js";
import { inspectRunDir, RunDir, runDirRefusal } from "../../src/train/run-dir.js";
import { tempDir } from "./helpers.js";

/** `dir` with these files (a trailing "/" makes a folder) */
function folder(files: Record<string, string>): string {
  const dir = tempDir("out");
  for (const [name, text] of Object.entries(files)) {
    if (name.endsWith("/")) fs.mkdirSync(path.join(dir, name), { recursive: true });
    else {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), text);
    }
  }
  return dir;
}

const HF_CONFIG = JSON.stringify({ architectures: ["LlamaForCausalLM"], model_type: "llama", hidden_size: 64 });

describe("inspectRunDir", () => {
  it("takes a missing or empty folder (an empty checkpoints/ too) as free", () => {
    expect(inspectRunDir(path.join(tempDir("none"), "run"))).toEqual({ kind: "free" });
    expect(inspectRunDir(folder({}))).toEqual({ kind: "free" });
    expect(inspectRunDir(folder({ "checkpoints/": "" }))).toEqual({ kind: "free" });
  });

  it("knows a run by more than config.json: metrics.jsonl, run.lock, checkpoints, or a config.json with a run's fields", () => {
    expect(inspectRunDir(folder({ "metrics.jsonl": "" }))).toEqual({ kind: "run", evidence: ["metrics.jsonl"] });
    expect(inspectRunDir(folder({ "run.lock": "1\n" }))).toEqual({ kind: "run", evidence: ["run.lock"] });
    expect(inspectRunDir(folder({ "checkpoints/step-000002/": "" }))).toEqual({ kind: "run", evidence: ["checkpoints/"] });
    expect(inspectRunDir(folder({ "config.json": JSON.stringify({ server: ["fixture:calculator"] }) }))).toEqual({ kind: "run", evidence: ["config.json"] });
  });

  it("never calls a model folder a run, nor a folder of other files", () => {
    expect(inspectRunDir(folder({ "config.json": HF_CONFIG, "tokenizer.json": "{}" }))).toEqual({ kind: "model", evidence: 'config.json with model_type "llama"' });
    expect(inspectRunDir(folder({ "config.json": "{}", "model.safetensors": "" }))).toEqual({ kind: "model", evidence: "model.safetensors" });
    expect(inspectRunDir(folder({ "notes.txt": "mine", "photos/": "", "config.json": '{"theme": "dark"}' }))).toEqual({ kind: "other", entries: ["config.json", "notes.txt", "photos/"] });
  });
});

describe("RunDir.refuseOccupied", () => {
  const refusal = (dir: string, resume = false) => {
    try {
      RunDir.refuseOccupied(dir, { resume });
      return undefined;
    } catch (e) {
      expect(e).toBeInstanceOf(TrainMcpError);
      expect((e as TrainMcpError).usage).toBe(true); // exit 2
      return (e as Error).message;
    }
  };

  it("refuses a non-empty folder that holds no run, naming what is in it and a new path, new run or resume", () => {
    const dir = folder({ "a.txt": "", "b.txt": "", "c.txt": "", "d.txt": "", "e.txt": "", "src/": "" });
    expect(refusal(dir)).toBe(
      `${dir} is not empty (a.txt, b.txt, c.txt, d.txt and 2 more) and holds no train-mcp run: a run writes config.json, checkpoints/, metrics.jsonl, report.html… into its folder, so --out names a new or empty one, e.g. --out ${path.join(dir, "run")}`,
    );
    expect(refusal(dir, true)).toBe(`${dir} holds no train-mcp run (it has a.txt, b.txt, c.txt, d.txt and 2 more): --resume takes the folder a run wrote (its --out)`);
    expect(fs.readdirSync(dir).sort()).toEqual(["a.txt", "b.txt", "c.txt", "d.txt", "e.txt", "src"]);
  });

  it("refuses a model folder as a model folder, never as a run to resume", () => {
    const dir = folder({ "config.json": HF_CONFIG, "model.safetensors": "" });
    expect(refusal(dir)).toBe(`${dir} is a model folder (config.json with model_type "llama"), not a run directory: --out names a new or empty folder for the run (e.g. --out ${dir}-run); a model is given with --model`);
    expect(refusal(dir, true)).toMatch(/is a model folder \(config\.json with model_type "llama"\), not a run directory: --resume takes the folder a run wrote/);
    expect(runDirRefusal(dir, false)).not.toMatch(/--resume/);
  });

  it("takes a free folder, and a run only to resume it", () => {
    expect(refusal(folder({}))).toBeUndefined();
    expect(refusal(folder({ "checkpoints/": "" }))).toBeUndefined();
    const run = folder({ "config.json": JSON.stringify({ server: ["fixture:calculator"] }), "metrics.jsonl": "" });
    expect(refusal(run)).toBe(`${run} already holds a run (config.json, metrics.jsonl): pass --resume ${run} to continue it, or choose another --out`);
    expect(refusal(run, true)).toBeUndefined();
  });
});
