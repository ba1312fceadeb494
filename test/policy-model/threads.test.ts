/**
 * The threaded wasm build under Node (kernels/wasm-threads.ts): it starts with 2 threads and the
 * model's outputs and gradients still match the PyTorch goldens. Its own file, so its process
 * gets the threaded backend from the start.
 */
import * as tf from "@tensorflow/tfjs-core";
import { getThreadsCount } from "@tensorflow/tfjs-backend-wasm";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../src/policy/backend.js";
import { Transformer } from "../../src/policy/model/transformer.js";
import { loadGolden, relErr } from "./helpers.js";

beforeAll(async () => {
  await initBackend({ device: "wasm", threads: 2 });
});

describe("threaded wasm backend", () => {
  it("runs with 2 threads and matches the goldens", async () => {
    expect(tf.getBackend()).toBe("wasm");
    expect(getThreadsCount()).toBe(2);
    const { dir, tensors, inputs } = loadGolden("qwen2-untied");
    const model = await Transformer.load(dir);
    const mask = tf.tensor2d(inputs.mask);
    const vars = model.trainableVariables();
    const { value, grads } = tf.variableGrads(() => {
      const { logp } = model.tokenLogprobs(inputs.ids);
      expect(relErr(logp.dataSync(), tensors.get("logp")!.data)).toBeLessThan(1e-4);
      return tf.div(tf.sum(tf.mul(logp, mask)), tf.sum(mask)) as tf.Scalar;
    }, [...vars.values()]);
    let worst = 0;
    for (const [hf, v] of vars) worst = Math.max(worst, relErr(grads[v.name].dataSync(), tensors.get("grad." + hf)!.data));
    expect(worst).toBeLessThan(1e-4);
    tf.dispose([value, mask, ...Object.values(grads)]);
    model.dispose();
  });
});
