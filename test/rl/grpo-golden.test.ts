/**
 * Golden test: train-mcp's grpoLoss against the PyTorch re-implementation of TRL's
 * `_compute_loss` (test/golden-rl/make_goldens.py → goldens.json). For every loss type, token
 * and sequence level, with and without KL, clip-higher, truncated IS, delta, masked truncation
 * and no old log-probs: the loss and d loss / d logp (tf.grad) within 1e-5, and the metrics.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as tf from "@tensorflow/tfjs-core";
import "@tensorflow/tfjs-backend-cpu";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grpoLoss, type GrpoLossConfig, type GrpoLossInputs } from "../../src/rl/grpo-loss.js";
import { computeAdvantages } from "../../src/rl/advantages.js";
import type { LossType } from "../../src/rl/config.js";

interface GoldenCase {
  name: string;
  cfg: {
    loss_type: LossType;
    importance_sampling_level: "token" | "sequence";
    beta: number;
    epsilon: number;
    epsilon_high: number | null;
    delta: number | null;
    tis_cap: number | null;
    mask_truncated_completions: boolean;
    max_completion_length: number;
    num_micro_batches: number;
    total_step_tokens: number;
  };
  no_old: boolean;
  loss: number;
  grad: number[][];
  metrics: { clip_low: number; clip_high: number; clip_region: number; ratio_mean: number; kl?: number };
}
interface Golden {
  inputs: { logp: number[][]; old: number[][]; ref: number[][]; sampler: number[][]; mask: number[][]; advantages: number[]; truncated: boolean[] };
  cases: GoldenCase[];
  advantages: {
    groups: number[][];
    cases: { scale_rewards: "group" | "batch" | "none"; std_kind: "sample" | "population"; eps: number; advantages: number[]; zero_variance: boolean[] }[];
  };
}

const golden = JSON.parse(
  readFileSync(fileURLToPath(new URL("../golden-rl/goldens.json", import.meta.url)), "utf8"),
) as Golden;
const TOL = 1e-5;
const errors: string[] = [];

beforeAll(async () => {
  await tf.setBackend("cpu");
});
afterAll(() => {
  console.log(`grpoLoss vs PyTorch/TRL goldens (tolerance ${TOL}):\n${errors.join("\n")}`);
});

function maxAbsDiff(a: number[], b: number[]): number {
  expect(a.length).toBe(b.length);
  return a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);
}

describe("grpoLoss equals TRL's _compute_loss (PyTorch goldens)", () => {
  it("covers every loss type × level × KL × clip-higher", () => {
    const names = new Set(golden.cases.map((c) => c.name));
    for (const lt of ["grpo", "bnpo", "dr_grpo", "dapo"])
      for (const lvl of ["token", "sequence"])
        for (const kl of ["kl", "nokl"])
          for (const clip of ["sym", "cliphigh"]) expect(names.has(`${lt}-${lvl}-${kl}-${clip}`)).toBe(true);
    expect(golden.cases.length).toBeGreaterThanOrEqual(46);
  });

  for (const c of golden.cases) {
    it(c.name, () => {
      const g = golden.inputs;
      const t = {
        logp: tf.tensor2d(g.logp),
        old: tf.tensor2d(g.old),
        ref: tf.tensor2d(g.ref),
        sampler: tf.tensor2d(g.sampler),
        mask: tf.tensor2d(g.mask),
      };
      const cfg: GrpoLossConfig = {
        lossType: c.cfg.loss_type,
        epsilon: c.cfg.epsilon,
        epsilonHigh: c.cfg.epsilon_high ?? undefined,
        delta: c.cfg.delta ?? undefined,
        beta: c.cfg.beta,
        importanceSamplingLevel: c.cfg.importance_sampling_level,
        maxCompletionLength: c.cfg.max_completion_length,
        totalStepTokens: c.cfg.total_step_tokens,
        numMicroBatches: c.cfg.num_micro_batches,
        tisCap: c.cfg.tis_cap ?? undefined,
        maskTruncatedCompletions: c.cfg.mask_truncated_completions,
      };
      const inputsFor = (logp: tf.Tensor2D): GrpoLossInputs => ({
        logp,
        oldLogp: c.no_old ? undefined : t.old,
        refLogp: t.ref,
        mask: t.mask,
        advantages: g.advantages,
        samplerLogp: c.cfg.tis_cap !== null ? t.sampler : undefined,
        truncated: g.truncated,
      });
      const { loss, metrics } = grpoLoss(inputsFor(t.logp), cfg);
      const lossErr = Math.abs(loss.dataSync()[0] - c.loss);
      const grad = tf.grad((x: tf.Tensor) => grpoLoss(inputsFor(x as tf.Tensor2D), { ...cfg, computeMetrics: false }).loss)(t.logp);
      const gradErr = maxAbsDiff(Array.from(grad.dataSync()), c.grad.flat());
      errors.push(`${c.name.padEnd(36)} |Δloss| ${lossErr.toExponential(1)}  max|Δgrad| ${gradErr.toExponential(1)}`);
      expect(lossErr).toBeLessThan(TOL);
      expect(gradErr).toBeLessThan(TOL);
      expect(metrics.loss).toBeCloseTo(c.loss, 5);
      expect(metrics.clipLow).toBeCloseTo(c.metrics.clip_low, 5);
      expect(metrics.clipHigh).toBeCloseTo(c.metrics.clip_high, 5);
      expect(metrics.clipRegion).toBeCloseTo(c.metrics.clip_region, 5);
      expect(metrics.ratioMean).toBeCloseTo(c.metrics.ratio_mean, 5);
      if (c.metrics.kl !== undefined) expect(metrics.kl).toBeCloseTo(c.metrics.kl, 5);
      else expect(metrics.kl).toBeUndefined();
      tf.dispose([loss, grad, ...Object.values(t)]);
    });
  }

  it("the gradient is not trivially zero and differs across loss types", () => {
    const a = golden.cases.find((c) => c.name === "grpo-token-nokl-sym")!;
    const b = golden.cases.find((c) => c.name === "dapo-token-nokl-sym")!;
    expect(Math.max(...a.grad.flat().map(Math.abs))).toBeGreaterThan(1e-3);
    expect(maxAbsDiff(a.grad.flat(), b.grad.flat())).toBeGreaterThan(1e-3);
  });
});

describe("advantages equal TRL's (and ART's population-std variant)", () => {
  for (const c of golden.advantages.cases) {
    it(`${c.scale_rewards} / ${c.std_kind} std / eps ${c.eps}`, () => {
      const r = computeAdvantages(golden.advantages.groups, { scaleRewards: c.scale_rewards, stdKind: c.std_kind, eps: c.eps });
      expect(maxAbsDiff(r.flat, c.advantages)).toBeLessThan(1e-9);
      expect(r.zeroVariance).toEqual(c.zero_variance);
    });
  }
});
