/**
 * The learning-rate schedules against transformers' get_scheduler values (warmup, then constant,
 * linear decay to 0, or a half cosine to 0), and warmup_steps winning over warmup_ratio.
 */
import { describe, expect, it } from "vitest";
import { scheduledLr, warmupStepsOf } from "../../src/rl/lr-schedule.js";

const rates = (type: "constant" | "constant_with_warmup" | "linear" | "cosine", maxSteps: number, warmupSteps: number) =>
  Array.from({ length: maxSteps }, (_, i) => scheduledLr({ type, learningRate: 1, maxSteps, warmupSteps }, i + 1));

describe("scheduledLr", () => {
  it("linear with warmup: get_linear_schedule_with_warmup(2, 10)", () => {
    const want = [0, 0.5, 1, 7 / 8, 6 / 8, 5 / 8, 4 / 8, 3 / 8, 2 / 8, 1 / 8];
    rates("linear", 10, 2).forEach((r, i) => expect(r).toBeCloseTo(want[i], 12));
  });

  it("cosine without warmup: get_cosine_schedule_with_warmup(0, 4)", () => {
    const want = [1, 0.5 * (1 + Math.cos(Math.PI / 4)), 0.5, 0.5 * (1 + Math.cos((3 * Math.PI) / 4))];
    rates("cosine", 4, 0).forEach((r, i) => expect(r).toBeCloseTo(want[i], 12));
  });

  it("constant has no warmup (transformers' constant); constant_with_warmup has one", () => {
    expect(rates("constant", 5, 2)).toEqual([1, 1, 1, 1, 1]);
    expect(rates("constant_with_warmup", 5, 2)).toEqual([0, 0.5, 1, 1, 1]);
    expect(scheduledLr({ type: "constant", learningRate: 3e-5, maxSteps: 5, warmupSteps: 0 }, 4)).toBe(3e-5);
  });

  it("a warmup longer than the run never reaches the peak, as in transformers", () => {
    expect(rates("linear", 3, 6)).toEqual([0, 1 / 6, 2 / 6]);
  });

  it("warmup_steps above 0 wins over warmup_ratio, which rounds up; warmup_steps 0 (TRL's default) leaves the ratio", () => {
    expect(warmupStepsOf(10, 0.15)).toBe(2);
    expect(warmupStepsOf(10, 0.15, 0)).toBe(2);
    expect(warmupStepsOf(10, 0.15, 3)).toBe(3);
    expect(warmupStepsOf(40, 0)).toBe(0);
  });
});
