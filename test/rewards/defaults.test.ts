/**
 * The default reward lists and the reward config schema the training config embeds.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_WEIGHTS, RewardConfigSchema, defaultRewards, rewardsFromConfig } from "../../src/rewards/defaults.js";

const names = (cs: Array<{ name: string }>) => cs.map((c) => c.name);

describe("defaultRewards", () => {
  it("verifier + rubric with expectations; rubric alone without; RULER when a judge is configured", () => {
    expect(names(defaultRewards({ hasExpectations: true }))).toEqual(["verifier", "format", "tool_validity", "tool_errors", "efficiency", "reference_calls"]);
    expect(names(defaultRewards({ hasExpectations: false }))).toEqual(["format", "tool_validity", "tool_errors", "efficiency", "reference_calls"]);
    expect(names(defaultRewards({ hasExpectations: false, hasReferences: false }))).toEqual(["format", "tool_validity", "tool_errors", "efficiency"]);
    const withJudge = defaultRewards({ hasExpectations: true, judge: { baseURL: "http://127.0.0.1:1/v1", model: "m" }, dangerous: { tools: ["delete_*"] } });
    expect(names(withJudge)).toEqual(["verifier", "ruler", "format", "tool_validity", "tool_errors", "efficiency", "safety", "reference_calls"]);
    expect(withJudge.find((c) => c.name === "ruler")?.judge).toBe(true);
  });

  it("takes weights by name and keeps the defaults for the rest", () => {
    const cs = defaultRewards({ hasExpectations: true, weights: { verifier: 10, efficiency: 0 } });
    expect(Object.fromEntries(cs.map((c) => [c.name, c.weight]))).toEqual({
      verifier: 10,
      format: DEFAULT_WEIGHTS.format,
      tool_validity: DEFAULT_WEIGHTS.tool_validity,
      tool_errors: DEFAULT_WEIGHTS.tool_errors,
      efficiency: 0,
      reference_calls: 0,
    });
  });

  it("rejects a bad judge setting at construction, naming the field", () => {
    expect(() => defaultRewards({ hasExpectations: true, judge: { baseURL: "127.0.0.1:8000", model: "m" } })).toThrow(/judge\.baseURL/);
    expect(() => defaultRewards({ hasExpectations: true, judge: { baseURL: "http://127.0.0.1:8000/v1", model: "m", maxAttempts: 0 } })).toThrow(/judge\.maxAttempts/);
  });

  it("keeps an explicitly asked-for safety penalty when the rubric is off", () => {
    expect(names(defaultRewards({ hasExpectations: true, rubric: false, dangerous: { args: ["rm -rf"] } }))).toEqual(["verifier", "safety"]);
  });
});

describe("RewardConfigSchema", () => {
  it("fills defaults", () => {
    expect(RewardConfigSchema.parse({})).toEqual({
      weights: {},
      normalize: true,
      verifierMode: "all",
      rubric: true,
      dangerous: { tools: [], args: [] },
    });
    const judge = RewardConfigSchema.parse({ judge: { baseURL: "http://127.0.0.1:8000/v1", model: "qwen" } }).judge;
    expect(judge).toMatchObject({ apiKeyEnv: "OPENAI_API_KEY", maxAttempts: 4, timeoutMs: 120_000, baseDelayMs: 1_000 });
  });

  it("rejects typos and bad values with the field's path", () => {
    const bad = (v: unknown) => {
      const r = RewardConfigSchema.safeParse(v);
      expect(r.success).toBe(false);
      return r.success ? "" : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    };
    expect(bad({ weights: { verfier: 1 } })).toMatch(/weights/);
    expect(bad({ judge: { baseURL: "not a url", model: "m" } })).toMatch(/judge\.baseURL/);
    expect(bad({ judge: { baseURL: "http://x/v1", model: "m", apiKey: "sk-…" } })).toMatch(/judge/); // keys never live in the config
    expect(bad({ verifierMode: "most" })).toMatch(/verifierMode/);
  });

  it("builds the components from a parsed config, with the key passed in by the caller", () => {
    const cfg = RewardConfigSchema.parse({
      weights: { ruler: 2 },
      dangerous: { tools: ["drop_*"] },
      judge: { baseURL: "http://127.0.0.1:8000/v1", model: "qwen", rubric: "- be strict" },
    });
    const cs = rewardsFromConfig(cfg, { hasExpectations: false, judgeApiKey: "k" });
    expect(cs.map((c) => [c.name, c.weight])).toEqual([
      ["ruler", 2],
      ["format", 0.5],
      ["tool_validity", 0.5],
      ["tool_errors", 0.5],
      ["efficiency", 0.5],
      ["safety", 2],
      ["reference_calls", 0],
    ]);
  });
});
