/**
 * The tfjs model against the PyTorch reference (test/golden/make_goldens.py, float64): logits,
 * per-token log-probs, entropy, and the gradient of a masked mean log-prob loss w.r.t. every
 * weight, on the default wasm backend with the replaced kernels. Metric: relErr (max abs
 * difference over max abs reference value) below 1e-4.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../src/policy/backend.js";
import { Transformer } from "../../src/policy/model/transformer.js";
import { GOLDEN_CASES, loadGolden, relErr } from "./helpers.js";

beforeAll(async () => {
  await initBackend({ device: "wasm" });
});

describe.each(GOLDEN_CASES)("golden %s", (name) => {
  it("matches PyTorch logits, log-probs, entropy and gradients within 1e-4", async () => {
    const { dir, tensors, inputs } = loadGolden(name);
    const model = await Transformer.load(dir);
    const errs: Record<string, number> = {};
    const logits = model.logits(inputs.ids);
    errs.logits = relErr(logits.dataSync(), tensors.get("logits")!.data);
    logits.dispose();
    const mask = tf.tensor2d(inputs.mask);
    const vars = model.trainableVariables();
    const { value, grads } = tf.variableGrads(() => {
      const { logp, entropy } = model.tokenLogprobs(inputs.ids, { entropy: true });
      errs.logp = relErr(logp.dataSync(), tensors.get("logp")!.data);
      errs.entropy = relErr(entropy!.dataSync(), tensors.get("entropy")!.data);
      return tf.div(tf.sum(tf.mul(logp, mask)), tf.sum(mask)) as tf.Scalar;
    }, [...vars.values()]);
    errs.loss = relErr(value.dataSync(), tensors.get("loss")!.data);
    let worst = 0, worstName = "";
    for (const [hf, v] of vars) {
      const e = relErr(grads[v.name].dataSync(), tensors.get("grad." + hf)!.data);
      if (e > worst) [worst, worstName] = [e, hf];
    }
    errs.grad = worst;
    console.log(`golden ${name}: ${JSON.stringify(errs)} (worst grad: ${worstName})`);
    for (const [k, e] of Object.entries(errs)) expect(e, `${name} ${k}`).toBeLessThan(1e-4);
    tf.dispose([value, mask, ...Object.values(grads)]);
    model.dispose();
  });

  it("computes the head only where the mask is 1 (`only`), with the same log-probs and gradients there", async () => {
    const { dir, tensors, inputs } = loadGolden(name);
    const model = await Transformer.load(dir);
    const mask = tf.tensor2d(inputs.mask);
    const vars = model.trainableVariables();
    const ref = tensors.get("logp")!.data;
    let logpErr = 0;
    let offMask = 0;
    const { value, grads } = tf.variableGrads(() => {
      const { logp, entropy } = model.tokenLogprobs(inputs.ids, { entropy: true, only: inputs.mask });
      const got = logp.dataSync();
      const ent = entropy!.dataSync();
      const T1 = inputs.mask[0].length;
      inputs.mask.forEach((row, b) =>
        row.forEach((m, t) => {
          const i = b * T1 + t;
          if (m > 0) logpErr = Math.max(logpErr, Math.abs(got[i] - ref[i]) / Math.max(...Array.from(ref, Math.abs)));
          else offMask = Math.max(offMask, Math.abs(got[i]), Math.abs(ent[i]));
        }),
      );
      return tf.div(tf.sum(tf.mul(logp, mask)), tf.sum(mask)) as tf.Scalar;
    }, [...vars.values()]);
    expect(inputs.mask.flat().some((m) => m === 0), "the golden mask leaves some positions out").toBe(true);
    expect(logpErr).toBeLessThan(1e-4);
    expect(offMask).toBe(0);
    expect(relErr(value.dataSync(), tensors.get("loss")!.data)).toBeLessThan(1e-4);
    for (const [hf, v] of vars) expect(relErr(grads[v.name].dataSync(), tensors.get("grad." + hf)!.data), hf).toBeLessThan(1e-4);
    tf.dispose([value, mask, ...Object.values(grads)]);
    model.dispose();
  });
});

describe.each(GOLDEN_CASES)("golden %s, config in transformers 5's form", (name) => {
  it("reads rope_parameters (rope_theta, rope_type and scaling) as transformers 4's rope_theta / rope_scaling", async () => {
    const { dir, tensors, inputs } = loadGolden(name);
    // what save_pretrained writes with transformers >= 5: no top-level rope_theta / rope_scaling
    const { rope_theta, rope_scaling, ...rest } = JSON.parse(fs.readFileSync(path.join(dir, "config.json"), "utf8")) as Record<string, unknown>;
    const v5 = fs.mkdtempSync(path.join(os.tmpdir(), `golden-v5-${name}-`));
    fs.writeFileSync(path.join(v5, "config.json"), JSON.stringify({ ...rest, rope_parameters: { rope_theta, rope_type: "default", ...((rope_scaling as object | undefined) ?? {}) } }));
    fs.copyFileSync(path.join(dir, "model.safetensors"), path.join(v5, "model.safetensors"));
    const model = await Transformer.load(v5);
    const logits = model.logits(inputs.ids);
    expect(relErr(logits.dataSync(), tensors.get("logits")!.data)).toBeLessThan(1e-4);
    logits.dispose();
    model.dispose();
  });
});
