/**
 * A rollout longer than the model's context (a tool that answers with pages of text) trains on
 * the part that fits, in the GRPO update and in the warm start, instead of failing the run.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../src/policy/backend.js";
import { Transformer } from "../../src/policy/model/transformer.js";
import { Trainable } from "../../src/policy/trainable.js";
import { GrpoConfigSchema } from "../../src/rl/config.js";
import { MetricKey } from "../../src/rl/metrics.js";
import type { Trajectory } from "../../src/rollout/trajectory.js";
import { grpoUpdate } from "../../src/train/grpo-update.js";
import { sftStep } from "../../src/train/sft.js";
import { syntheticRollout, tinyModelDir } from "./helpers.js";

beforeAll(async () => {
  await initBackend({ device: "wasm" });
});

/** 1,000 prompt tokens, 6 sampled, then `toolTail` tokens of a tool result (mask 0) */
function long(id: string, seed: number, reward: number, toolTail: number): Trajectory {
  const t = syntheticRollout({ id, groupId: "g", seed, reward, prompt: 1000 });
  const tail = Array.from({ length: toolTail }, (_, i) => 20 + ((seed + i) % 100));
  return { ...t, tokenIds: [...t.tokenIds, ...tail], assistantMask: [...t.assistantMask, ...tail.map(() => 0)], sampleLogprobs: [...t.sampleLogprobs, ...tail.map(() => 0)] };
}

const weights = (tr: Trainable) => [...tr.model.trainableVariables().values()].map((v) => [...(v.dataSync() as Float32Array)]);

describe("rollouts longer than the context (1,024 positions here)", () => {
  it("GRPO trains on the first 1,024 tokens, as if the tool result had been cut there", async () => {
    const cfg = GrpoConfigSchema.parse({ loss_type: "grpo", mask_truncated_completions: false });
    const over = [long("a", 1, 1, 300), long("b", 2, 0, 18), long("c", 3, 0.5, 0)];
    const cut = over.map((t) => ({ ...t, tokenIds: t.tokenIds.slice(0, 1024), assistantMask: t.assistantMask.slice(0, 1024), sampleLogprobs: t.sampleLogprobs.slice(0, 1024), finish: t.tokenIds.length > 1024 ? ("max_tokens" as const) : t.finish }));
    const a = new Trainable(await Transformer.load(tinyModelDir(3)), { lr: 1e-2 });
    const m = grpoUpdate(a, { groups: [over], cfg, microBatchSize: 4, microBatchTokens: 8192, samplerIsOtherEngine: false });
    expect(m[MetricKey.clippedToContext]).toBe(1); // 1,306 tokens; 1,024 exactly is not clipped
    expect(m["update/skipped"]).toBeUndefined();
    const b = new Trainable(await Transformer.load(tinyModelDir(3)), { lr: 1e-2 });
    grpoUpdate(b, { groups: [cut], cfg, microBatchSize: 4, microBatchTokens: 8192, samplerIsOtherEngine: false });
    expect(weights(a)).toEqual(weights(b));
  });

  it("the warm start trains on a reference solution longer than the context", async () => {
    const tr = new Trainable(await Transformer.load(tinyModelDir(4)), { lr: 1e-2 });
    const r = sftStep(tr, [long("a", 1, 1, 500), long("b", 2, 1, 0)], 4, 8192);
    expect(Number.isFinite(r.loss)).toBe(true);
    expect(r.tokens).toBe(12);
  });
});
