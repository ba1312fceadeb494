/**
 * rft_coef: the best successful rollout of each group gets `coef` added to its advantage, which
 * must equal adding coef × that rollout's NLL (normalised as the DAPO loss is) to the GRPO loss.
 */
import * as tf from "@tensorflow/tfjs-core";
import "@tensorflow/tfjs-backend-cpu";
import { beforeAll, describe, expect, it } from "vitest";
import { grpoLoss } from "../../src/rl/grpo-loss.js";
import { bestOfGroupBonus } from "../../src/rl/rejection-sampling.js";
import { sftLoss } from "../../src/rl/sft-loss.js";
import { GrpoConfigSchema } from "../../src/rl/config.js";

beforeAll(async () => {
  await tf.setBackend("cpu");
});

interface Roll {
  ok: boolean;
  r: number;
}
const opts = (coef: number) => ({ coef, success: (t: Roll) => t.ok, reward: (t: Roll) => t.r });

describe("bestOfGroupBonus", () => {
  it("marks the highest-reward success of each group, the earlier one on ties, nothing where no success tops its group", () => {
    const groups: Roll[][] = [
      [{ ok: false, r: 0.6 }, { ok: true, r: 0.7 }, { ok: true, r: 0.8 }, { ok: true, r: 0.8 }],
      [{ ok: false, r: 0.9 }, { ok: false, r: 0.1 }],
      [{ ok: true, r: 0 }, { ok: true, r: 0 }],
      // a success penalised (e.g. for a dangerous call) below a failure is not imitated
      [{ ok: false, r: 0.5 }, { ok: true, r: -2 }],
      [{ ok: false, r: -3 }, { ok: true, r: -2 }],
    ];
    expect(bestOfGroupBonus(groups, opts(0.5))).toEqual([[0, 0, 0.5, 0], [0, 0], [0.5, 0], [0, 0], [0, 0.5]]);
  });

  it("is all zeros when coef is 0 (the default in the config)", () => {
    expect(bestOfGroupBonus([[{ ok: true, r: 1 }]], opts(0))).toEqual([[0]]);
    expect(GrpoConfigSchema.parse({}).rft_coef).toBe(0);
    expect(() => GrpoConfigSchema.parse({ rft_coef: -1 })).toThrow();
  });

  it("advantage + coef has the gradient of the GRPO loss + coef × the DAPO-normalised NLL of that rollout", () => {
    const logp = tf.variable(tf.tensor2d([[-1, -2, -0.5], [-0.3, -0.7, -1.2], [-2, -0.1, -0.4]])); // [B=3, T=3]
    const maskRows = [[1, 1, 0], [1, 1, 1], [0, 1, 1]];
    const advantages = [1.2, -0.4, -0.8];
    const coef = 0.7;
    const best = 0; // the rollout that gets the bonus
    const stepTokens = 7;
    const cfg = { lossType: "dapo" as const, epsilon: 0.2, epsilonHigh: 0.28, beta: 0, totalStepTokens: stepTokens };
    const mask = tf.tensor2d(maskRows);

    const withBonus = tf.variableGrads(
      () => grpoLoss({ logp, mask, advantages: advantages.map((a, i) => a + (i === best ? coef : 0)) }, cfg).loss,
      [logp],
    ).grads[logp.name];
    const bestMask = tf.tensor2d(maskRows.map((row, i) => (i === best ? row : row.map(() => 0))));
    // the two gradients added by hand (tfjs-core alone registers no gradient for tf.add)
    const gGrpo = tf.variableGrads(() => grpoLoss({ logp, mask, advantages }, cfg).loss, [logp]).grads[logp.name];
    const gNll = tf.variableGrads(() => sftLoss({ logp, mask: bestMask as tf.Tensor2D }, { totalStepTokens: stepTokens }).loss, [logp]).grads[logp.name];
    const summed = tf.add(gGrpo, tf.mul(coef, gNll));
    const a = Array.from(withBonus.dataSync());
    const b = Array.from(summed.dataSync());
    expect(a.some((x) => x !== 0)).toBe(true);
    a.forEach((x, i) => expect(x).toBeCloseTo(b[i], 6));
    tf.dispose([logp, mask, bestMask, withBonus, gGrpo, gNll, summed]);
  });
});
