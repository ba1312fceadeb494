/**
 * grpoLoss beyond the goldens: input validation, memory (tensor count constant across steps),
 * tensors created inside the differentiated function, the config schema's TRL defaults, and the
 * metric helpers.
 */
import * as tf from "@tensorflow/tfjs-core";
import "@tensorflow/tfjs-backend-cpu";
import { beforeAll, describe, expect, it } from "vitest";
import { countCompletionTokens, grpoLoss, type GrpoLossConfig } from "../../src/rl/grpo-loss.js";
import { GrpoConfigSchema, lossConfigOf } from "../../src/rl/config.js";
import { lossMetricRecord, MetricKey, StepMetrics } from "../../src/rl/metrics.js";

beforeAll(async () => {
  await tf.setBackend("cpu");
});

const base: GrpoLossConfig = { lossType: "bnpo", epsilon: 0.2, beta: 0 };

describe("grpoLoss", () => {
  it("on-policy (old = logp): loss −Σ m·A / Σ m and gradient −A·m / Σ m (ratio 1, its gradient not 0)", () => {
    const logp = tf.variable(tf.tensor2d([[-1, -2, -3], [-0.5, -0.5, -0.5]]));
    const mask = tf.tensor2d([[1, 1, 0], [1, 1, 1]]);
    const { value, grads } = tf.variableGrads(() => grpoLoss({ logp, oldLogp: tf.tensor2d(logp.arraySync()), mask, advantages: [2, -1] }, base).loss, [logp]);
    expect(value.dataSync()[0]).toBeCloseTo(-(2 * 2 - 1 * 3) / 5, 6);
    expect(Array.from(grads[logp.name].dataSync()).map((x) => +x.toFixed(6))).toEqual([-0.4, -0.4, 0, 0.2, 0.2, 0.2]);
    tf.dispose([logp, mask, value, grads[logp.name]]);
  });

  it("keeps the tensor count constant across update steps (inputs built inside the loss closure)", () => {
    const logp = tf.variable(tf.randomNormal<tf.Rank.R2>([4, 6], -1, 0.3, "float32", 1));
    const opt = tf.train.sgd(0.1);
    const step = () =>
      tf.tidy(() => {
        opt.minimize(() => {
          const old = tf.add(logp, tf.randomNormal([4, 6], 0, 0.1, "float32", 2)) as tf.Tensor2D;
          const mask = tf.ones([4, 6]) as tf.Tensor2D;
          const ref = tf.sub(logp, 0.1) as tf.Tensor2D;
          const sampler = tf.sub(old, 0.05) as tf.Tensor2D;
          return grpoLoss(
            { logp, oldLogp: old, refLogp: ref, mask, samplerLogp: sampler, advantages: tf.tensor1d([1, -1, 0.5, 0]), truncated: [false, true, false, false] },
            { lossType: "grpo", epsilon: 0.2, epsilonHigh: 0.28, beta: 0.04, importanceSamplingLevel: "sequence", tisCap: 2, maskTruncatedCompletions: true },
          ).loss;
        });
      });
    step();
    const before = tf.memory().numTensors;
    for (let i = 0; i < 5; i++) step();
    expect(tf.memory().numTensors).toBe(before);
    opt.dispose();
    logp.dispose();
  });

  it("metrics: loss split into policy and KL parts, tokens, TIS weight", () => {
    const logp = tf.tensor2d([[-1, -1], [-2, -2]]);
    const mask = tf.tensor2d([[1, 1], [1, 0]]);
    const { loss, metrics } = grpoLoss(
      { logp, oldLogp: logp, refLogp: tf.tensor2d([[-1.5, -1], [-2, -2]]), mask, advantages: [1, -1], samplerLogp: tf.tensor2d([[-1, -3], [-2, -2]]) },
      { ...base, beta: 0.1, tisCap: 2 },
    );
    expect(metrics.tokens).toBe(3);
    expect(metrics.policyLoss + (metrics.klLoss ?? NaN)).toBeCloseTo(metrics.loss, 6);
    expect(metrics.loss).toBeCloseTo(loss.dataSync()[0], 6);
    expect(metrics.tisMean).toBeCloseTo((1 + 2 + 1) / 3, 6); // exp(−1 + 3) = e² capped at 2
    expect(metrics.ratioMean).toBeCloseTo(1, 6);
    const rec = lossMetricRecord(metrics);
    expect(Object.keys(rec)).toEqual(expect.arrayContaining([MetricKey.lossPolicy, MetricKey.lossKl, MetricKey.kl, MetricKey.clipHigh, MetricKey.tisMean]));
  });

  it("rejects bad inputs with messages that say what and where", () => {
    const logp = tf.zeros([2, 3]) as tf.Tensor2D;
    const mask = tf.ones([2, 3]) as tf.Tensor2D;
    expect(() => grpoLoss({ logp, mask: tf.ones([2, 2]) as tf.Tensor2D, advantages: [1, 2] }, base)).toThrow(/mask has shape \[2,2\], expected \[2, 3\]/);
    expect(() => grpoLoss({ logp, mask, advantages: [1] }, base)).toThrow(/1 advantages for 2 sequences/);
    expect(() => grpoLoss({ logp, mask, advantages: [1, 2] }, { ...base, beta: 0.1 })).toThrow(/needs refLogp/);
    expect(() => grpoLoss({ logp, mask, advantages: [1, 2] }, { ...base, lossType: "dapo" })).toThrow(/totalStepTokens/);
    expect(() => grpoLoss({ logp, mask, advantages: [1, 2] }, { ...base, lossType: "dr_grpo" })).toThrow(/maxCompletionLength/);
  });

  it("countCompletionTokens sums the masks of every micro-batch", () => {
    expect(countCompletionTokens([[1, 1, 0], [0, 1], [1]])).toBe(4);
  });
});

describe("GrpoConfigSchema", () => {
  it("defaults match TRL's GRPOConfig", () => {
    const c = GrpoConfigSchema.parse({});
    expect(c).toMatchObject({
      loss_type: "dapo",
      epsilon: 0.2,
      beta: 0,
      num_generations: 8,
      importance_sampling_level: "token",
      scale_rewards: "group",
      mask_truncated_completions: false,
      learning_rate: 1e-6,
      num_iterations: 1,
      // TRL's 256 caps generation too; here rollouts are capped per turn, and the train config
      // derives dr_grpo's divisor from max_turns × max_tokens_per_turn
      max_completion_length: null,
    });
    expect(lossConfigOf(c)).toMatchObject({ lossType: "dapo", epsilon: 0.2, epsilonHigh: 0.2, tisCap: 2 });
  });

  it("accepts TRL's boolean scale_rewards and DAPO's clip-higher; rejects a group of one", () => {
    expect(GrpoConfigSchema.parse({ scale_rewards: false }).scale_rewards).toBe("none");
    expect(GrpoConfigSchema.parse({ scale_rewards: true }).scale_rewards).toBe("group");
    expect(lossConfigOf(GrpoConfigSchema.parse({ epsilon_high: 0.28 })).epsilonHigh).toBe(0.28);
    expect(lossConfigOf(GrpoConfigSchema.parse({ importance_sampling_correction: false })).tisCap).toBeUndefined();
    const bad = GrpoConfigSchema.safeParse({ num_generations: 1 });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0].path).toEqual(["num_generations"]);
    expect(GrpoConfigSchema.safeParse({ los_type: "grpo" }).success).toBe(false); // typo caught
  });
});

describe("StepMetrics", () => {
  it("averages per-micro-batch values, sums token counts and times", () => {
    const s = new StepMetrics();
    s.add({ [MetricKey.lossPolicy]: 1, [MetricKey.tokens]: 10, [MetricKey.kl]: 0.5 });
    s.add({ [MetricKey.lossPolicy]: 3, [MetricKey.tokens]: 5 });
    s.add({ "reward/verifier": 1, "reward/format": 1 });
    s.add({ "reward/verifier": 0 });
    s.set(MetricKey.groupsZeroVariance, 2);
    const out = s.summary();
    expect(out[MetricKey.lossPolicy]).toBe(2);
    expect(out[MetricKey.tokens]).toBe(15);
    expect(out[MetricKey.kl]).toBe(0.5);
    // keys missing from some records average over the records that have them
    expect(out["reward/verifier"]).toBe(0.5);
    expect(out["reward/format"]).toBe(1);
    expect(out[MetricKey.groupsZeroVariance]).toBe(2);
  });
});

describe("gradient accumulation (stepDivisors)", () => {
  it("dapo and grpo: summed or averaged micro-batch gradients equal the full-batch gradient", async () => {
    const { stepDivisors } = await import("../../src/rl/grpo-loss.js");
    const lp = [[-1, -2, -0.5], [-0.3, -0.9, -1.2], [-2, -1, -1], [-0.1, -0.4, -3]];
    const old = lp.map((r, i) => r.map((x, j) => x + 0.1 * Math.sin(3 * i + j)));
    const mask = [[1, 1, 0], [1, 1, 1], [1, 0, 0], [1, 1, 1]];
    const adv = [1, -0.5, 0.7, -1.2];
    const stepTokens = countCompletionTokens(mask);
    const rows = (xs: number[][], a: number, b: number) => tf.tensor2d(xs.slice(a, b));
    const gradOf = (a: number, b: number, cfg: GrpoLossConfig) =>
      Array.from(
        tf.grad((x: tf.Tensor) => grpoLoss({ logp: x as tf.Tensor2D, oldLogp: rows(old, a, b), mask: rows(mask, a, b), advantages: adv.slice(a, b) }, cfg).loss)(rows(lp, a, b)).dataSync(),
      );
    for (const lossType of ["dapo", "grpo"] as const) {
      const c = { lossType, epsilon: 0.2, beta: 0 };
      const full = gradOf(0, 4, { ...c, ...stepDivisors(1, stepTokens, "sum") });
      const sum = [...gradOf(0, 2, { ...c, ...stepDivisors(2, stepTokens, "sum") }), ...gradOf(2, 4, { ...c, ...stepDivisors(2, stepTokens, "sum") })];
      const mean = [...gradOf(0, 2, { ...c, ...stepDivisors(2, stepTokens, "mean") }), ...gradOf(2, 4, { ...c, ...stepDivisors(2, stepTokens, "mean") })].map((g) => g / 2);
      full.forEach((g, i) => {
        expect(sum[i]).toBeCloseTo(g, 6);
        expect(mean[i]).toBeCloseTo(g, 6);
      });
    }
  });

  it("grpo and dr_grpo: an uneven split (3 rows + 1, as a token budget makes) still weighs every sequence the same", async () => {
    const { stepDivisors } = await import("../../src/rl/grpo-loss.js");
    const lp = [[-1, -2, -0.5], [-0.3, -0.9, -1.2], [-2, -1, -1], [-0.1, -0.4, -3]];
    const mask = [[1, 1, 0], [1, 1, 1], [1, 0, 0], [1, 1, 1]];
    const adv = [-0.5, -0.5, -0.5, 1.5];
    const stepTokens = countCompletionTokens(mask);
    const rows = (xs: number[][], a: number, b: number) => tf.tensor2d(xs.slice(a, b));
    const run = (a: number, b: number, cfg: GrpoLossConfig) => {
      const f = (x: tf.Tensor) => grpoLoss({ logp: x as tf.Tensor2D, mask: rows(mask, a, b), advantages: adv.slice(a, b) }, cfg).loss;
      return { loss: f(rows(lp, a, b)).dataSync()[0], grad: Array.from(tf.grad(f)(rows(lp, a, b)).dataSync()) };
    };
    for (const lossType of ["grpo", "dr_grpo"] as const) {
      const c = { lossType, epsilon: 0.2, beta: 0, maxCompletionLength: 3 };
      const full = run(0, 4, { ...c, ...stepDivisors(1, stepTokens, "sum", 4) });
      // on-policy (ratio 1), grpo's loss is −mean(A) = 0 for these advantages
      if (lossType === "grpo") expect(full.loss).toBeCloseTo(0, 6);
      for (const mode of ["sum", "mean"] as const) {
        const d = stepDivisors(2, stepTokens, mode, 4);
        const [x, y] = [run(0, 3, { ...c, ...d }), run(3, 4, { ...c, ...d })];
        const k = mode === "mean" ? 2 : 1;
        expect((x.loss + y.loss) / k).toBeCloseTo(full.loss, 6);
        [...x.grad, ...y.grad].forEach((g, i) => expect(g / k).toBeCloseTo(full.grad[i], 6));
      }
      // without the step's sequence count the lone row weighs 3× the others (the old behaviour)
      const d = stepDivisors(2, stepTokens, "mean");
      expect(Math.abs((run(0, 3, { ...c, ...d }).loss + run(3, 4, { ...c, ...d }).loss) / 2 - full.loss)).toBeGreaterThan(0.1);
    }
  });
});
