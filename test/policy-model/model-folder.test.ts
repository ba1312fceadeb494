/**
 * What --model names for eval, serve and export-onnx: a model folder, a LoRA run's checkpoint
 * (adapters folded into the base it names, the base's tokenizer when it has none), "default",
 * and a run directory, refused with the checkpoint to name instead. serve and export-onnx take
 * a LoRA checkpoint on the real CLI.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { TrainMcpError } from "../../src/errors.js";
import { defaultModelDir } from "../../src/policy/default-model/index.js";
import { loadModelFolder, resolveModelFolder } from "../../src/policy/model-folder.js";
import { mergeAdapter } from "../../src/policy/peft.js";
import { loadCheckpoint, readModelConfig } from "../../src/policy/weights.js";
import { startServer } from "../../src/serve/server.js";
import { makeAdapter } from "../serve/adapter.js";
import { tempDir, tinyModelDir } from "../train/helpers.js";

const BIN = path.resolve("bin/train-mcp.mjs");

function thrown(f: () => unknown): TrainMcpError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(TrainMcpError);
    return e as TrainMcpError;
  }
  throw new Error("expected an error");
}

describe("--model folders", () => {
  let base: string;
  let adapter: string;
  beforeAll(async () => {
    base = tinyModelDir(3);
    // a LoRA checkpoint as a LoRA run writes it: adapter files, no tokenizer, its base named
    const defaultAdapter = tempDir("adapter");
    await makeAdapter(defaultAdapter, readModelConfig(base));
    adapter = tempDir("lora-ck");
    fs.copyFileSync(path.join(defaultAdapter, "adapter_model.safetensors"), path.join(adapter, "adapter_model.safetensors"));
    const cfg = JSON.parse(fs.readFileSync(path.join(defaultAdapter, "adapter_config.json"), "utf8")) as Record<string, unknown>;
    fs.writeFileSync(path.join(adapter, "adapter_config.json"), JSON.stringify({ ...cfg, base_model_name_or_path: base }));
  });

  it("folds a LoRA checkpoint into the base it names, with the base's tokenizer", async () => {
    const folder = resolveModelFolder(adapter);
    expect(folder).toEqual({ dir: adapter, weightsDir: base, adapterDir: adapter });
    const loaded = await loadModelFolder(folder);
    expect(loaded.tokenizerDir).toBe(base);
    expect(loaded.source).toBe(`${adapter} (LoRA on ${base})`);
    const plain = await loadCheckpoint(base);
    const q = "model.layers.0.self_attn.q_proj.weight";
    expect(loaded.weights.get(q)!.data).toEqual(mergeAdapter(adapter, plain.config, plain.weights).get(q)!.data);
    expect(loaded.weights.get(q)!.data).not.toEqual(plain.weights.get(q)!.data);
  });

  it("refuses a run directory, naming its latest checkpoint", () => {
    const run = tempDir("run");
    fs.writeFileSync(path.join(run, "config.json"), JSON.stringify({ seed: 1, max_steps: 10 }));
    for (const s of ["step-000005", "step-000010"]) fs.mkdirSync(path.join(run, "checkpoints", s), { recursive: true });
    const e = thrown(() => resolveModelFolder(run));
    expect(e.usage).toBe(true);
    expect(e.message).toBe(`--model ${run} is a run directory, not a model: name one of its checkpoints, e.g. ${path.join(run, "checkpoints", "step-000010")} (the latest)`);
    // its checkpoints/ folder too
    fs.writeFileSync(path.join(run, "checkpoints", "latest.json"), JSON.stringify({ step: 10, dir: "step-000010" }));
    const inner = path.join(run, "checkpoints");
    expect(thrown(() => resolveModelFolder(inner)).message).toBe(`--model ${inner} is a run's checkpoints folder, not a model: name one of its checkpoints, e.g. ${path.join(inner, "step-000010")} (the latest)`);
  });

  it("eval without --server given a run directory names its checkpoint, not the missing --server", () => {
    const run = tempDir("run-eval");
    fs.writeFileSync(path.join(run, "config.json"), JSON.stringify({ server: ["fixture:calculator"] }));
    fs.mkdirSync(path.join(run, "checkpoints", "step-000003"), { recursive: true });
    const refused = spawnSync(process.execPath, [BIN, "eval", "--model", run, "--n", "2"], { encoding: "utf8" });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toBe(`train-mcp: --model ${run} is a run directory, not a model: name one of its checkpoints, e.g. ${path.join(run, "checkpoints", "step-000003")} (the latest)\n`);
  });

  it("names what is missing from a folder that is no model, and an adapter whose base is gone", () => {
    const empty = tempDir("empty");
    expect(thrown(() => resolveModelFolder(empty)).message).toBe(`--model ${empty}: no model.safetensors, model.safetensors.index.json or adapter_config.json in the folder`);
    const orphan = tempDir("orphan");
    fs.writeFileSync(path.join(orphan, "adapter_config.json"), JSON.stringify({ base_model_name_or_path: "/no/such/base" }));
    expect(thrown(() => resolveModelFolder(orphan)).message).toBe(
      `${path.join(orphan, "adapter_config.json")}: base model "/no/such/base" not found; put the base model there, or set base_model_name_or_path to its folder (absolute, or relative to the adapter's folder)`,
    );
  });

  it("finds an adapter's base after a move: relative to the adapter's folder, and the built-in model named by another clone's path or \"default\"", () => {
    const root = tempDir("moved");
    const moved = path.join(root, "adapter");
    fs.mkdirSync(moved);
    fs.cpSync(base, path.join(root, "base"), { recursive: true });
    const write = (b: string) => fs.writeFileSync(path.join(moved, "adapter_config.json"), JSON.stringify({ base_model_name_or_path: b }));
    write("../base"); // relative to the adapter, whatever the working directory
    expect(resolveModelFolder(moved).weightsDir).toBe(path.join(root, "base"));
    write("/home/alice/old-clone/src/policy/default-model");
    expect(resolveModelFolder(moved).weightsDir).toBe(defaultModelDir());
    write("default");
    expect(resolveModelFolder(moved).weightsDir).toBe(defaultModelDir());
  });

  it('"default" is the built-in model with its shipped weights', () => {
    expect(resolveModelFolder("default")).toEqual({ dir: defaultModelDir(), weightsDir: defaultModelDir() });
  });

  it("the built-in model's config is a plain llama one (transformers, vLLM, PEFT load it); its checkpoints without a tokenizer take the embedded one", async () => {
    const raw = JSON.parse(fs.readFileSync(path.join(defaultModelDir(), "config.json"), "utf8")) as Record<string, unknown>;
    expect(raw).toMatchObject({ model_type: "llama", architectures: ["LlamaForCausalLM"], train_mcp_builtin: true });
    // a checkpoint as training writes it: weights and config only
    const ckpt = tempDir("ckpt");
    for (const f of ["config.json", "model.safetensors"]) fs.copyFileSync(path.join(defaultModelDir(), f), path.join(ckpt, f));
    expect((await loadModelFolder(resolveModelFolder(ckpt))).tokenizerDir).toBe(defaultModelDir());
    // another llama without the marker gets no borrowed tokenizer
    fs.writeFileSync(path.join(ckpt, "config.json"), JSON.stringify({ ...raw, train_mcp_builtin: undefined }));
    expect((await loadModelFolder(resolveModelFolder(ckpt))).tokenizerDir).toBeNull();
  });

  it("serve --model <LoRA checkpoint> serves the folded model; a run directory exits 2", async () => {
    const run = tempDir("run-serve");
    fs.writeFileSync(path.join(run, "config.json"), "{}");
    fs.mkdirSync(path.join(run, "checkpoints", "step-000003"), { recursive: true });
    const refused = spawnSync(process.execPath, [BIN, "serve", "--model", run, "--port", "0"], { encoding: "utf8" });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain(`--model ${run} is a run directory, not a model`);

    const child = spawn(process.execPath, [BIN, "serve", "--model", adapter, "--port", "0", "--quiet", "--engine", "ort"], { stdio: ["ignore", "pipe", "pipe"] });
    try {
      const out = await new Promise<string>((resolve, reject) => {
        let text = "";
        child.stdout.on("data", (d: Buffer) => {
          text += d.toString();
          if (text.split("\n").length > 2) resolve(text);
        });
        child.on("exit", (code) => reject(new Error(`serve exited early (${code})`)));
      });
      expect(out).toContain(`${path.basename(adapter)}: ${adapter} (LoRA on ${base})`);
    } finally {
      child.kill("SIGTERM");
    }
  });

  it("serve of a LoRA checkpoint names its folder as root and loads no adapter on top of it", async () => {
    const server = await startServer({ model: adapter, port: 0, engine: "tfjs" });
    try {
      const listed = (await (await fetch(`${server.url}/models`)).json()) as { data: Array<{ root: string; parent: string | null }> };
      expect(listed.data).toEqual([expect.objectContaining({ root: adapter, parent: null })]);
      const r = await fetch(`${server.url}/load_lora_adapter`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ lora_name: "other", lora_path: adapter }) });
      expect(r.status).toBe(400);
      expect(((await r.json()) as { error: { message: string } }).error.message).toBe(
        `the served model is a LoRA checkpoint folded into ${base}: serve that base model (--model ${base}) and load each adapter onto it`,
      );
    } finally {
      await server.close();
    }
  });

  it("export-onnx --model <LoRA checkpoint> writes the folded model", () => {
    const out = path.join(tempDir("onnx"), "m.onnx");
    const r = spawnSync(process.execPath, [BIN, "export-onnx", "--model", adapter, "--out", out], { encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(fs.statSync(out).size).toBeGreaterThan(100_000);
    // a folder as --out: model.onnx inside it
    const folder = tempDir("onnx-folder");
    const inFolder = spawnSync(process.execPath, [BIN, "export-onnx", "--model", adapter, "--out", folder], { encoding: "utf8" });
    expect(inFolder.stdout).toMatch(new RegExp(`^wrote ${path.join(folder, "model.onnx").replace(/[.]/g, "\\.")} `));
    expect(fs.readdirSync(folder)).toEqual(["model.onnx"]);
  });
});
