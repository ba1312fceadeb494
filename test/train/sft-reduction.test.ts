/**
 * sft_reduction through the real warm-start step: "token" is the NLL's mean over every assistant
 * token of the batch, "sequence" the mean of each sequence's own token mean (so a short answer
 * counts as much as a long one), whatever the micro-batching.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../src/policy/backend.js";
import { Transformer } from "../../src/policy/model/transformer.js";
import { Trainable } from "../../src/policy/trainable.js";
import type { Trajectory } from "../../src/rollout/trajectory.js";
import { sftStep } from "../../src/train/sft.js";
import { syntheticRollout, tinyModelDir } from "./helpers.js";

beforeAll(async () => {
  await initBackend({ device: "wasm" });
});

const demo = (seed: number, prompt: number, answer: number): Trajectory =>
  syntheticRollout({ id: `d${seed}`, groupId: `g${seed}`, seed, reward: 1, prompt, sampled: answer });

describe("sftStep reduction", () => {
  const batch = [demo(1, 8, 2), demo(2, 6, 12), demo(3, 9, 5)];

  it("reports (and so trains on) the token mean or the mean of sequence means", async () => {
    const nll = (tr: Trainable) =>
      batch.map((t) => tr.logprobs([t.tokenIds])[0].flatMap((lp, i) => (t.assistantMask[i + 1] ? [-lp] : [])));
    const expected = (tr: Trainable) => {
      const rows = nll(tr);
      const all = rows.flat();
      return { token: all.reduce((a, b) => a + b) / all.length, sequence: rows.map((r) => r.reduce((a, b) => a + b) / r.length).reduce((a, b) => a + b) / rows.length };
    };
    for (const microBatchSize of [1, 8]) {
      for (const reduction of ["token", "sequence"] as const) {
        const tr = new Trainable(await Transformer.load(tinyModelDir(7)), { lr: 1e-2 });
        const want = expected(tr)[reduction]; // the step reports the loss before its update
        const r = sftStep(tr, batch, microBatchSize, 4096, reduction);
        expect(r.loss).toBeCloseTo(want, 4);
        expect(r.tokens).toBe(19);
      }
    }
    const e = expected(new Trainable(await Transformer.load(tinyModelDir(7))));
    expect(Math.abs(e.token - e.sequence)).toBeGreaterThan(1e-3); // the two differ on this batch
  });
});
