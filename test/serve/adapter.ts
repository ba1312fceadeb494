/**
 * Writes a PEFT LoRA adapter for the default model's shape with src/policy/peft.ts, with
 * non-zero B (PEFT initializes B to 0, which would change nothing), so outputs under it differ.
 * `base` is what its adapter_config.json records as base_model_name_or_path (default "default").
 */
import { initBackend } from "../../src/policy/backend.js";
import type { ModelConfig } from "../../src/policy/config.js";
import { Transformer } from "../../src/policy/model/transformer.js";
import { saveAdapter } from "../../src/policy/peft.js";
import { initRandomWeights, mulberry32 } from "../../src/policy/weights.js";

export async function makeAdapter(dir: string, config: ModelConfig, seed = 7, base = "default"): Promise<void> {
  await initBackend();
  const model = new Transformer(config, initRandomWeights(config, 123), false);
  try {
    const rand = mulberry32(seed);
    const r = 4;
    const init = new Map<string, { a: Float32Array; b: Float32Array }>();
    for (let l = 0; l < config.numLayers; l++) {
      for (const m of ["q_proj", "v_proj", "o_proj"]) {
        const prefix = `model.layers.${l}.self_attn.${m}`;
        const [out, inn] = model.get(`${prefix}.weight`).shape;
        init.set(prefix, {
          a: Float32Array.from({ length: r * inn }, () => (rand() - 0.5) * 0.5),
          b: Float32Array.from({ length: out * r }, () => (rand() - 0.5) * 0.5),
        });
      }
    }
    model.enableLora({ r, alpha: 8, dropout: 0, targetModules: ["q_proj", "v_proj", "o_proj"], seed }, init);
    saveAdapter(dir, model, base);
  } finally {
    model.dispose();
  }
}
