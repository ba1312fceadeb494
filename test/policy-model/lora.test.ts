/**
 * LoRA: B = 0 leaves the model unchanged, training moves only the adapters, the reference
 * (adapters off) stays the base model, PEFT export round-trips with PEFT's names and shapes, and
 * the merged Hugging Face export gives the adapted model's log-probs.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../src/policy/backend.js";
import { Transformer } from "../../src/policy/model/transformer.js";
import { loadAdapter, mergeAdapter, saveAdapter, saveMerged } from "../../src/policy/peft.js";
import { loadCheckpoint } from "../../src/policy/weights.js";
import { readSafetensors } from "../../src/policy/safetensors.js";
import { Trainable } from "../../src/policy/trainable.js";
import { loadGolden, relErr } from "./helpers.js";

beforeAll(async () => {
  await initBackend({ device: "wasm" });
});

const flat = (x: number[][]) => x.flat();
const lossFn = (logp: tf.Tensor2D) => tf.neg(tf.mean(logp)) as tf.Scalar;

describe("LoRA", () => {
  it("trains adapters only, keeps the reference, exports PEFT and merged models that round-trip", async () => {
    const { dir, inputs } = loadGolden("qwen2-untied");
    const model = await Transformer.load(dir);
    const base = model.exportWeights();
    const tr = new Trainable(model, { lr: 5e-2, lora: { r: 4, alpha: 8, dropout: 0, targetModules: ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"], seed: 11 } });
    const lp0 = tr.logprobs(inputs.ids);
    expect(relErr(flat(lp0), flat(tr.referenceLogprobs(inputs.ids)))).toBe(0); // B = 0
    for (let i = 0; i < 3; i++) tr.step([{ ids: inputs.ids }], lossFn);
    const lp1 = tr.logprobs(inputs.ids);
    expect(relErr(flat(lp1), flat(lp0))).toBeGreaterThan(1e-3); // adapters moved the outputs
    expect(relErr(flat(tr.referenceLogprobs(inputs.ids)), flat(lp0))).toBe(0); // the base did not move
    for (const [k, v] of model.params) expect(relErr(v.dataSync(), base.get(k)!.data), k).toBe(0);

    const out = fs.mkdtempSync(path.join(os.tmpdir(), "h3-lora-"));
    saveAdapter(path.join(out, "adapter"), model, "tiny/qwen2");
    const cfg = JSON.parse(fs.readFileSync(path.join(out, "adapter", "adapter_config.json"), "utf8"));
    expect(cfg).toMatchObject({ peft_type: "LORA", r: 4, lora_alpha: 8, base_model_name_or_path: "tiny/qwen2" });
    const { tensors } = readSafetensors(path.join(out, "adapter", "adapter_model.safetensors"));
    expect(tensors.get("base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight")!.shape).toEqual([4, 32]);
    expect(tensors.get("base_model.model.model.layers.1.mlp.down_proj.lora_B.weight")!.shape).toEqual([32, 4]);
    expect(tensors.size).toBe(2 * 2 * 7);

    const again = await Transformer.load(dir);
    loadAdapter(path.join(out, "adapter"), again);
    const { logp } = again.tokenLogprobs(inputs.ids);
    const trAgain = new Trainable(again);
    expect(relErr(flat(trAgain.logprobs(inputs.ids)), flat(lp1))).toBeLessThan(1e-6);
    logp.dispose();

    saveMerged(path.join(out, "merged"), model);
    const merged = await Transformer.load(path.join(out, "merged"));
    expect(merged.adapters()).toBeNull();
    expect(relErr(flat(new Trainable(merged).logprobs(inputs.ids)), flat(lp1))).toBeLessThan(1e-5);

    // the same fold in plain JavaScript (for onnxruntime, no tfjs model): the weights tfjs merges
    const { config, weights } = await loadCheckpoint(dir);
    const folded = mergeAdapter(path.join(out, "adapter"), config, weights);
    const tfjsFolded = model.exportWeights(true);
    expect([...folded.keys()].sort()).toEqual([...tfjsFolded.keys()].sort());
    let moved = 0;
    for (const [name, w] of folded) {
      expect(relErr(w.data, tfjsFolded.get(name)!.data), name).toBeLessThan(1e-6);
      if (relErr(w.data, weights.get(name)!.data) > 1e-4) moved++;
    }
    expect(moved).toBe(2 * 7); // every adapted projection, and only those
    expect(relErr(weights.get("model.layers.0.self_attn.q_proj.weight")!.data, base.get("model.layers.0.self_attn.q_proj.weight")!.data)).toBe(0); // the input is left as it was
    // tensors of a module the config does not target: refused by both, not folded by one and ignored by the other
    const narrowed = path.join(out, "narrowed");
    fs.mkdirSync(narrowed);
    fs.copyFileSync(path.join(out, "adapter", "adapter_model.safetensors"), path.join(narrowed, "adapter_model.safetensors"));
    fs.writeFileSync(path.join(narrowed, "adapter_config.json"), JSON.stringify({ ...cfg, target_modules: cfg.target_modules.filter((m: string) => m !== "v_proj") }));
    expect(() => mergeAdapter(narrowed, config, weights)).toThrow(/unexpected tensor "base_model\.model\.model\.layers\.\d\.self_attn\.v_proj\.lora_[AB]\.weight"/);
    const fresh = await Transformer.load(dir);
    expect(() => loadAdapter(narrowed, fresh)).toThrow(/unexpected tensor .*v_proj/);
    fresh.dispose();
    [tr, model, again, merged].forEach((x) => x.dispose());
  });

  it("rejects a malformed adapter folder with the field named", async () => {
    const { dir } = loadGolden("llama-tied");
    const model = await Transformer.load(dir);
    const out = fs.mkdtempSync(path.join(os.tmpdir(), "h3-lora-"));
    fs.writeFileSync(path.join(out, "adapter_config.json"), JSON.stringify({ peft_type: "LORA", r: 0, lora_alpha: 8, target_modules: ["q_proj"] }));
    expect(() => loadAdapter(out, model)).toThrow(/field "r"/);
    // what PEFT writes empty is accepted empty and refused filled: folded without it the weights would differ from PEFT's
    const cfg = { peft_type: "LORA", r: 4, lora_alpha: 8, target_modules: ["q_proj"] };
    const refused = (extra: Record<string, unknown>) => {
      fs.writeFileSync(path.join(out, "adapter_config.json"), JSON.stringify({ ...cfg, ...extra }));
      try {
        loadAdapter(out, model);
      } catch (e) {
        return (e as Error).message;
      }
      return "accepted";
    };
    expect(refused({ alpha_pattern: { q_proj: 64 } })).toMatch(/field "alpha_pattern": per-module lora_alpha is not supported/);
    expect(refused({ rank_pattern: { q_proj: 2 } })).toMatch(/field "rank_pattern": per-module ranks are not supported/);
    expect(refused({ modules_to_save: ["lm_head"] })).toMatch(/field "modules_to_save": fully trained extra modules are not supported/);
    expect(refused({ layers_to_transform: [0] })).toMatch(/field "layers_to_transform": LoRA on a subset of layers is not supported/);
    // empty ones pass the config check (and fail later only for the missing weights file)
    expect(refused({ alpha_pattern: {}, rank_pattern: {}, modules_to_save: null, layers_to_transform: null })).not.toMatch(/field "/);
    model.dispose();
  });
});
