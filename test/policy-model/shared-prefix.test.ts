/**
 * tokenLogprobs with `only`: rows that share a prefix run it once (its keys/values tiled to every
 * row). Checked against each row run alone (no sharing possible with one row): the same
 * log-probs where asked, 0 elsewhere, and the same gradient of a masked loss — for the golden
 * architectures (Qwen2 biases, tied/untied heads, Qwen3 q/k norms, Llama 3 RoPE scaling) and
 * with LoRA adapters on.
 */
import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../src/policy/backend.js";
import { sharedPrefix, Transformer } from "../../src/policy/model/transformer.js";
import { mulberry32 } from "../../src/policy/weights.js";
import { GOLDEN_CASES, loadGolden, relErr } from "./helpers.js";

beforeAll(async () => {
  await initBackend({ device: "wasm" });
});

/** Four rows: a shared 20-token prefix, then rows of different lengths; the mask covers "assistant" spans. */
function batch(vocab: number, seed: number) {
  const rand = mulberry32(seed);
  const tok = () => 1 + Math.floor(rand() * (vocab - 1));
  const prefix = Array.from({ length: 20 }, tok);
  const ids = [9, 17, 4, 26].map((n) => [...prefix, ...Array.from({ length: n }, tok)]);
  const T = Math.max(...ids.map((r) => r.length));
  // positions t (predicting ids[t+1]) from 22 on, skipping a "tool result" span, within the row
  const only = ids.map((r) => Array.from({ length: T - 1 }, (_, t) => (t >= 21 && t + 1 < r.length && !(t >= 28 && t < 33) ? 1 : 0)));
  return { ids, only };
}

describe.each(GOLDEN_CASES)("shared prefix %s", (name) => {
  it.each([false, true])("matches row-by-row log-probs and gradients (LoRA %s)", async (lora) => {
    const { dir } = loadGolden(name);
    const model = await Transformer.load(dir);
    if (lora) model.enableLora({ r: 4, alpha: 8, dropout: 0, targetModules: ["q_proj", "v_proj", "down_proj"], seed: 3 });
    // LoRA B starts at 0; make it non-zero so the adapters matter in both paths
    for (const l of model.adapters()?.values() ?? []) l.b.assign(tf.randomNormal(l.b.shape, 0, 0.1, "float32", 5));
    const { ids, only } = batch(model.config.vocabSize, 11);
    expect(sharedPrefix(ids, only)).toBe(20);
    const vars = [...model.trainableVariables().values()];
    const lossOf = (logp: tf.Tensor2D, mask: number[][]) => tf.sum(tf.mul(logp, tf.tensor2d(mask, logp.shape))) as tf.Scalar;

    let shared: Float32Array = new Float32Array();
    const a = tf.variableGrads(() => {
      const { logp } = model.tokenLogprobs(ids, { only });
      shared = logp.dataSync() as Float32Array;
      return lossOf(logp, only);
    }, vars);
    const T1 = only[0].length;
    let worstLogp = 0;
    const b = tf.variableGrads(() => {
      const parts = ids.map((row, r) => {
        const rowOnly = [only[r].slice(0, row.length - 1)];
        const { logp } = model.tokenLogprobs([row], { only: rowOnly });
        const got = logp.dataSync();
        for (let t = 0; t < T1; t++) {
          const want = t < row.length - 1 && only[r][t] ? got[t] : 0;
          worstLogp = Math.max(worstLogp, Math.abs(shared[r * T1 + t] - want));
        }
        return lossOf(logp, rowOnly);
      });
      return tf.addN(parts) as tf.Scalar;
    }, vars);
    expect(worstLogp).toBeLessThan(1e-4);
    expect(relErr(a.value.dataSync(), b.value.dataSync())).toBeLessThan(1e-5);
    for (const v of vars) expect(relErr(a.grads[v.name].dataSync(), b.grads[v.name].dataSync()), v.name).toBeLessThan(1e-4);
    tf.dispose([a.value, b.value, ...Object.values(a.grads), ...Object.values(b.grads)]);
    model.dispose();
  });
});

describe("sharedPrefix", () => {
  it("stops at the first difference, the first asked-for position and each row's last token; short prefixes are not shared", () => {
    const base = Array.from({ length: 30 }, (_, i) => i + 1);
    const none = [Array(29).fill(0), Array(29).fill(0)];
    expect(sharedPrefix([base, [...base.slice(0, 25), 99, 98, 97, 96, 95]], none)).toBe(25);
    const asked = none.map((r) => r.map((_, t) => (t === 18 ? 1 : 0)));
    expect(sharedPrefix([base, base], asked)).toBe(18);
    expect(sharedPrefix([base, base.slice(0, 22)], none)).toBe(21);
    expect(sharedPrefix([base, [...base.slice(0, 10), 0]], none)).toBe(0);
  });
});
