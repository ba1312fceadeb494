/**
 * Writes a realistic run directory for the report tests, seeded: 30 steps of metrics under the
 * trainer's own key names (src/rl/metrics.ts, src/rewards/combine.ts, src/train/loop.ts: 4 SFT
 * warm-start steps then GRPO, with an unknown metric key and a cut last line), 4 evaluations
 * (the warm-start probe "base", before, periodic, after), ~200 trajectories with tool calls,
 * tool errors, failed rollouts, a tool call that did not parse, an invalid line, a tool result
 * carrying `</script>` and HTML, secrets in the config and a key echoed by a tool, and a cut
 * last line in trajectories.jsonl (a run killed mid-write).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { EvalLine, MetricsLine, TrajectoryLine } from "../../src/report/run-files.js";
import { mulberry32 } from "../../src/policy/weights.js";
import { toolUse } from "../../src/rollout/tool-use.js";

export const SECRETS = ["sk-test-LEAKED0123456789abcdef", "LEAKEDBEARER123456", "hf_LEAKEDabcdefghijklmnopqrstu", "plain-secret-value-42", "sk-proj-ECHOEDBYTOOL0123456789xyz"];
export const INJECTED = '</script><script>window.__pwned = 1</script><b id="injected">bold</b><img src="x" onerror="window.__pwned = 2">';
export const INJECTED_SCENARIO = "shop-injection-7";
export const TRAIN_STEPS = 30;
export const SFT_STEPS = 4;
export const UNPARSED_SCENARIO = "calc-unparsed";
/** the held-out scenario whose tool result broke the tool's outputSchema (after RL) */
export const OUTPUT_PROBLEM_SCENARIO = "calc-schema-broken";
/** what the model wrote in the turn whose tool call did not parse */
export const UNPARSED_RAW = '<tool_call>{"name": "add", "arguments": {"a": 1, }</tool_call>';

export interface FakeRun {
  dir: string;
  /** every valid trajectory written, in file order */
  trajectories: TrajectoryLine[];
  metrics: MetricsLine[];
  evals: EvalLine[];
}

/** a small seeded PRNG, so the run is the same on every machine */
const rng = mulberry32;

const round = (x: number, d = 4): number => Number(x.toFixed(d));

export function makeRun(dir: string, seed = 7): FakeRun {
  mkdirSync(join(dir, "checkpoints"), { recursive: true });
  const r = rng(seed);
  const t0 = Date.parse("2026-11-30T05:00:00Z");

  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify(
      {
        model: "default",
        server: "fixture:calculator",
        max_steps: TRAIN_STEPS,
        num_generations: 3,
        learning_rate: 1e-4,
        loss_type: "dr_grpo",
        beta: 0.04,
        rewards: { weights: { ruler: 2 }, normalize: true, verifierMode: "all", rubric: true },
        max_tokens: 512,
        tokenizer: "bundled-bpe",
        judge: { base_url: "http://127.0.0.1:9/v1", model: "judge", api_key: SECRETS[0] },
        headers: { Authorization: `Bearer ${SECRETS[1]}` },
        hf_token: SECRETS[2],
        db: { password: SECRETS[3] },
      },
      null,
      2,
    ),
  );

  const metrics: MetricsLine[] = [];
  for (let step = 1; step <= TRAIN_STEPS; step++) {
    const time = new Date(t0 + step * 9000).toISOString();
    if (step <= SFT_STEPS) {
      metrics.push({ step, time, phase: "sft", "loss/sft": round(2.5 - step * 0.4 + r() * 0.1), grad_norm: round(3 + r()), "time/update": round(1 + r()), "time/step": round(1.5 + r()) });
      continue;
    }
    const p = (step - SFT_STEPS) / (TRAIN_STEPS - SFT_STEPS);
    const success = Math.min(1, 0.3 + 0.55 * p + (r() - 0.5) * 0.1);
    const policyLoss = round((r() - 0.5) * 0.05);
    const klLoss = round(0.001 * step * r());
    metrics.push({
      step,
      time,
      phase: "grpo",
      "time/reward/verifier": round(0.0009 + r() * 0.0003, 7),
      "time/reward/format": round(0.0004 + r() * 0.0001, 7),
      "reward/total": round(0.2 + 0.6 * p + (r() - 0.5) * 0.08),
      "reward/total_std": round(0.2 + r() * 0.1),
      "reward/verifier": round(success),
      "reward/verifier_std": round(0.3 + r() * 0.2),
      "reward/format": round(0.6 + 0.4 * p),
      "reward/format_std": round(r() * 0.1),
      "reward/ruler": round(0.3 + 0.5 * p + (r() - 0.5) * 0.1),
      "reward/ruler_std": round(r() * 0.2),
      "reward/success_rate": round(success),
      "advantage/abs_mean": round(0.5 + r() * 0.3),
      "loss/policy": policyLoss,
      "loss/kl": klLoss,
      "loss/total": round(policyLoss + klLoss),
      "kl/mean": round(0.002 * step * (0.5 + r())),
      "policy/entropy": round(1.8 - p * 0.9 + r() * 0.05),
      lr: round(5.4e-5 * (1 - p / 2), 9),
      "clip/low": round(r() * 0.02),
      "clip/high": round(r() * 0.04),
      "clip/region": round(r() * 0.06),
      "ratio/mean": round(1 + (r() - 0.5) * 0.01),
      grad_norm: round(0.5 + r()),
      "groups/zero_variance": Math.floor(r() * 3),
      "groups/kept": 2 + Math.floor(r() * 3),
      "tokens/completion": Math.floor(120 + r() * 80),
      "rollout/turns": round(1.5 + r(), 3),
      "rollout/tool_calls": 4 + Math.floor(r() * 6),
      "rollout/tool_errors": Math.floor(r() * 2),
      "time/rollout": round(4 + r() * 2),
      "time/reward": round(0.2 + r() * 0.1),
      "time/update": round(2 + r()),
      "time/step": round(6.5 + r() * 3),
      "custom/unknown_metric": round(r()),
    });
  }
  writeFileSync(join(dir, "metrics.jsonl"), metrics.map((m) => JSON.stringify(m)).join("\n") + '\n{"step":31,"time":"2026-11-30T05:0');

  const evals: EvalLine[] = [
    // the warm-start probe, topped up with training scenarios (so not on the held-out curve)
    { step: 0, label: "base", split: "test+train", n: 12, success_rate: 0.1, mean_reward: 0.2, mean_turns: 3.9, time: "2026-11-30T05:00:01Z" },    { step: 0, label: "before", split: "test", n: 10, success_rate: 0.3, mean_reward: 0.31, mean_turns: 3.4, pass_at_k: 0.5, k: 4, per_tag: { arithmetic: 0.4, multi_step: 0.2 } },
    { step: 15, label: "periodic", split: "test", n: 10, success_rate: 0.6, mean_reward: 0.55, mean_turns: 2.9 },
    { step: TRAIN_STEPS, label: "after", split: "test", n: 10, success_rate: 0.9, mean_reward: 0.82, mean_turns: 2.1, pass_at_k: 1, k: 4, per_tag: { arithmetic: 1, multi_step: 0.8 } },
  ];

  const trajectories: TrajectoryLine[] = [];
  let serial = 0;
  const make = (step: number, scenarioNo: number, groupId: string, extra: Partial<TrajectoryLine>, successP: number): TrajectoryLine => {
    const id = `t${String(serial++).padStart(4, "0")}`;
    const scenarioId = extra.scenarioId ?? `calc-${String(scenarioNo).padStart(3, "0")}`;
    const a = Math.floor(r() * 90) + 10;
    const b = Math.floor(r() * 90) + 10;
    const toolError = r() < 0.15;
    const failedRollout = r() < 0.05;
    const success = !failedRollout && !toolError && r() < successP;
    const args = { a, b };
    const result = toolError ? `Error: argument "b" must be a number, got "${b}x"` : String(a + b);
    const toolCalls: TrajectoryLine["toolCalls"] = failedRollout ? [] : [{ name: "add", args, result, isError: toolError, ...(toolError ? { error: "invalid_arguments" } : {}), ms: Math.floor(r() * 40) + 1 }];
    const messages: TrajectoryLine["messages"] = [
      { role: "system", content: "You are an agent. Use the tools to answer. Tools: add(a, b), mul(a, b)." },
      { role: "user", content: `What is ${a} + ${b}?` },
    ];
    if (!failedRollout) {
      messages.push({ role: "assistant", content: "", tool_calls: [{ id: `call_${id}`, type: "function", function: { name: "add", arguments: JSON.stringify(args) } }] });
      messages.push({ role: "tool", content: result, tool_call_id: `call_${id}`, name: "add" });
      messages.push({ role: "assistant", content: success ? `The answer is ${a + b}.` : "I could not compute it." });
    }
    // reference_calls has weight 0 by default: logged, never counted
    const rewards = { verifier: success ? 1 : 0, format: round(0.5 + r() * 0.5), ruler: round(success ? 0.7 + r() * 0.3 : r() * 0.5), reference_calls: round(r()) };
    return {
      id,
      scenarioId,
      groupId,
      step,
      messages,
      tokenIds: Array.from({ length: 40 }, (_, i) => (i * 7919) % 151_000),
      assistantMask: Array.from({ length: 40 }, (_, i) => (i > 20 ? 1 : 0)),
      sampleLogprobs: Array.from({ length: 40 }, () => 0),
      toolCalls,
      finish: failedRollout ? "error" : "answer",
      ...(failedRollout ? { error: "MCP server exited with code 1 while calling add" } : {}),
      finalAnswer: success ? String(a + b) : "",
      turns: failedRollout ? 0 : 2,
      rewards,
      reward: round(0.5 * rewards.verifier + 0.2 * rewards.format + 0.3 * rewards.ruler),
      success,
      judgeExplanation: `Trajectory ${id} ${success ? "used add correctly and answered" : "did not reach the right answer"}.`,
      ms: Math.floor(r() * 3000),
      ...extra,
    };
  };

  const evalBatch = (label: string, step: number, successP: number): void => {
    for (let i = 0; i < 10; i++) trajectories.push(make(step, 100 + i, `eval-${label}-${i}`, { phase: "eval", label }, successP));
  };
  for (let i = 0; i < 12; i++) trajectories.push(make(0, 100 + i, `eval-base-${i}`, { phase: "eval", label: "base" }, 0.1));
  evalBatch("before", 0, 0.3);
  for (let step = 1; step <= TRAIN_STEPS; step++) {
    const sft = step <= SFT_STEPS;
    const groups = sft ? 2 : 2;
    const size = sft ? 2 : 3;
    for (let g = 0; g < groups; g++) {
      const scenarioNo = (step * 2 + g) % 20;
      for (let k = 0; k < size; k++) {
        trajectories.push(make(step, scenarioNo, `s${step}g${g}`, { phase: sft ? "sft" : "grpo" }, 0.3 + 0.6 * (step / TRAIN_STEPS)));
      }
    }
    if (step === 15) evalBatch("periodic", 15, 0.6);
  }
  evalBatch("after", TRAIN_STEPS, 0.9);

  // The hostile one: a tool result with HTML and a script end tag, and a key echoed back.
  const hostile = trajectories.find((t) => t.step === 12 && t.phase === "grpo") as TrajectoryLine;
  hostile.scenarioId = INJECTED_SCENARIO;
  hostile.toolCalls = [
    { name: "search_products", args: { query: "<b>shoes</b>" }, result: INJECTED, isError: false, ms: 12 },
    { name: "get_env", args: {}, result: `OPENAI_API_KEY=${SECRETS[4]}`, isError: true, error: "tool_error", ms: 3 },
  ];
  hostile.messages.push({ role: "tool", content: INJECTED, tool_call_id: "x", name: "search_products" });

  // A turn whose tool call did not parse, then a good call; a failed rollout that still answered.
  const unparsed = trajectories.find((t) => t.step === 13 && t.phase === "grpo" && t.toolCalls.length === 1) as TrajectoryLine;
  unparsed.scenarioId = UNPARSED_SCENARIO;
  unparsed.toolCalls.unshift({ name: "", args: null, result: "tool_call 1: invalid JSON at position 30: unexpected }", isError: true, error: "parse:invalid_json", ms: 0 });
  unparsed.messages.splice(2, 0, { role: "assistant", content: "", raw_content: UNPARSED_RAW }, { role: "tool", content: "Error: tool_call 1: invalid JSON at position 30: unexpected }" });
  Object.assign(unparsed, { success: false, finalAnswer: "42", finish: "answer", reward: 1 / 3 });

  // A held-out result that broke its tool's outputSchema; then each before/after line gets the
  // tool use of its rollouts, as src/train/evaluate.ts records it
  const afterCall = trajectories.find((t) => t.label === "after" && t.toolCalls.length === 1 && !t.toolCalls[0].isError) as TrajectoryLine;
  afterCall.toolCalls[0].outputProblem = 'add: structuredContent does not match the outputSchema: must have required property "sum"';
  afterCall.scenarioId = OUTPUT_PROBLEM_SCENARIO;
  const refused = trajectories.find((t) => t.label === "before" && t.toolCalls.length === 1 && !t.toolCalls[0].isError) as TrajectoryLine;
  Object.assign(refused.toolCalls[0], { isError: true, error: "invalid_arguments", result: 'Error: argument "a" must be a number' });
  Object.assign(refused, { success: false, finalAnswer: "" });
  for (const e of evals) if (e.label === "before" || e.label === "after") e.tool_use = toolUse(trajectories.filter((t) => t.label === e.label));
  writeFileSync(join(dir, "eval.jsonl"), evals.map((e) => JSON.stringify(e)).join("\n") + "\n");

  const lines = trajectories.map((t) => JSON.stringify(t));
  lines.splice(50, 0, JSON.stringify({ id: "broken", scenarioId: 5 })); // schema-invalid line 51
  writeFileSync(join(dir, "trajectories.jsonl"), lines.join("\n") + '\n{"id":"t9999","scenarioId":"calc-001","messages":[{"role":"user","cont');

  writeFileSync(join(dir, "summary.json"), JSON.stringify({ heldout_before: 0.3, heldout_after: 0.9, heldout_n: 10, wall_s: 312.5, steps: TRAIN_STEPS, run_dir: dir }));
  return { dir, trajectories, metrics, evals };
}
