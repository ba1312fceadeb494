import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { latestCheckpoint, readCheckpointState, readRolloutSettings } from "../../src/train/checkpoint.js";
import { resolveTrainConfig } from "../../src/train/config.js";
import { train } from "../../src/train/loop.js";
import { startChatServer } from "../helpers/chat-server.js";
import { stdioTarget } from "../servers/launch.js";
import { calculatorScenarios, readJsonl, tempDir, tinyModelDir } from "./helpers.js";
import { readRun } from "../../src/report/read-run.js";

describe("the training loop on a tiny model and the real calculator server", () => {
  it("runs the whole trip and leaves a complete run directory", async () => {
    const out = path.join(tempDir("run"), "run");
    const logs: string[] = [];
    const config = resolveTrainConfig({
      server: ["fixture:calculator"],
      model: tinyModelDir(),
      scenarios: [calculatorScenarios(12, 6)],
      out,
      seed: 3,
      sft: "on",
      sft_steps: 3,
      sft_batch_size: 4,
      max_steps: 2,
      groups_per_step: 2,
      num_generations: 2,
      max_turns: 2,
      max_tokens_per_turn: 24,
      save_steps: 1,
      learning_rate: 1e-3,
      engine: "tfjs",
      // the trip with each layer's activations recomputed (gradients equal: checkpointing.test.ts)
      gradient_checkpointing: true,
    });
    const summary = await train({ config, hooks: { log: (l) => logs.push(l) } });
    expect(summary.steps).toBe(2);
    expect(logs.find((l) => l.startsWith("model: "))).toContain("full fine-tuning, gradient checkpointing;");
    expect(summary.sft_steps).toBe(3);
    expect(summary.heldout_n).toBe(6);
    expect(summary.heldout_before).toBeGreaterThanOrEqual(0);
    expect(Number.isFinite(summary.heldout_after)).toBe(true);
    // per template: counts add up to the held-out set, rates match the eval records
    const byTemplate = summary.heldout_by_template!;
    expect(Object.values(byTemplate).reduce((s, r) => s + r.n, 0)).toBe(6);
    for (const [name, r] of Object.entries(byTemplate)) {
      expect(name.startsWith("calculator.")).toBe(true);
      expect(r.before).toBeGreaterThanOrEqual(0);
      expect(r.after).toBeLessThanOrEqual(1);
    }

    const metrics = readJsonl(path.join(out, "metrics.jsonl"));
    expect(metrics.filter((m) => m.phase === "sft").map((m) => m.step)).toEqual([1, 2, 3]);
    const grpo = metrics.filter((m) => m.phase === "grpo");
    expect(grpo.map((m) => m.step)).toEqual([1, 2]);
    for (const m of grpo) {
      for (const k of ["reward/total", "loss/total", "grad_norm", "clip/region", "policy/entropy", "time/rollout", "time/update"]) expect(typeof m[k]).toBe("number");
    }
    const evals = readJsonl(path.join(out, "eval.jsonl"));
    expect(evals.map((e) => e.label)).toEqual(["before", "after"]);
    const afterTags = evals[1].per_tag as Record<string, number>;
    for (const [name, r] of Object.entries(byTemplate)) expect(r.after).toBeCloseTo(afterTags[`template:${name}`], 4);
    const trajectories = readJsonl(path.join(out, "trajectories.jsonl"));
    expect(trajectories.filter((t) => t.phase === "grpo")).toHaveLength(2 * 2 * 2);
    expect(trajectories.filter((t) => t.phase === "eval")).toHaveLength(12);
    // each evaluation says how its rollouts used the tools, from those very rollouts
    for (const e of evals) {
      const played = trajectories.filter((t) => t.phase === "eval" && t.label === e.label) as Array<{ toolCalls: Array<{ name: string; error?: string }> }>;
      const use = e.tool_use as { rollouts: number; without_tool: number; tools: Record<string, { calls: number }> };
      expect(use.rollouts).toBe(6);
      expect(use.without_tool).toBe(played.filter((t) => t.toolCalls.every((c) => c.error?.startsWith("parse:"))).length);
      const calls = played.flatMap((t) => t.toolCalls).filter((c) => !c.error?.startsWith("parse:"));
      expect(Object.values(use.tools).reduce((n, x) => n + x.calls, 0)).toBe(calls.length);
    }
    expect(summary.heldout_tool_use?.before?.rollouts).toBe(6);
    for (const m of grpo) {
      const own = trajectories.filter((t) => t.phase === "grpo" && t.step === m.step) as Array<{ toolCalls: Array<{ error?: string }> }>;
      expect(m["rollout/without_tool"]).toBe(own.filter((t) => t.toolCalls.every((c) => c.error?.startsWith("parse:"))).length);
    }
    expect(summary.heldout_tool_use?.after?.without_tool).toBe((evals[1].tool_use as { without_tool: number }).without_tool);
    for (const t of trajectories.filter((t) => t.phase === "grpo")) {
      expect((t.tokenIds as number[]).length).toBe((t.assistantMask as number[]).length);
      expect(typeof t.reward).toBe("number");
    }
    // checkpoints: complete folders only, the newest one loadable, the last N kept
    const latest = latestCheckpoint(path.join(out, "checkpoints"))!;
    expect(path.basename(latest)).toBe("step-000002");
    const ck = readCheckpointState(latest);
    expect(ck.state.step).toBe(2);
    expect(ck.state.sftDone).toBe(true);
    expect(ck.optimizer.m.size).toBeGreaterThan(0);
    for (const f of ["model.safetensors", "config.json", "tokenizer.json", "optimizer.safetensors", "trainer_state.json"]) expect(fs.existsSync(path.join(latest, f))).toBe(true);
    // how it was played and scored, for eval
    expect(readRolloutSettings(latest)).toMatchObject({ max_turns: 2, max_tokens_per_turn: 24, rewards: { normalize: true, rubric: true } });
    // and with which tools: what eval compares its own with
    expect(readRolloutSettings(latest)?.offered_tools).toEqual(["calculate", "compound_interest", "percentage", "statistics"]);
    expect(fs.readdirSync(path.join(out, "checkpoints")).filter((e) => e.startsWith(".tmp"))).toEqual([]);
    expect(fs.existsSync(path.join(out, "report.html"))).toBe(true);
    // the calculator's stderr is kept with the run: this run's start lines only
    expect(fs.readFileSync(path.join(out, "server.log"), "utf8").match(/^--- .* start: /gm)).toHaveLength(1);
    expect(JSON.parse(fs.readFileSync(path.join(out, "summary.json"), "utf8")).heldout_n).toBe(6);
    expect(JSON.parse(fs.readFileSync(path.join(out, "config.json"), "utf8")).max_steps).toBe(2);
  });

  let model: string | undefined; // one folder, so a resume names the model its run was started with
  const small = (out: string, scenarios: string, over: Record<string, unknown>) =>
    resolveTrainConfig({
      server: ["fixture:calculator"],
      model: (model ??= tinyModelDir()),
      scenarios: [scenarios],
      out,
      seed: 3,
      max_steps: 1,
      groups_per_step: 2,
      num_generations: 2,
      max_turns: 2,
      max_tokens_per_turn: 8,
      engine: "tfjs",
      ...over,
    });

  it("decides the warm start on at least 32 scenarios, not on the few --eval-n keeps", async () => {
    const out = path.join(tempDir("probe"), "run");
    // 1 held-out scenario kept of 3: the probe tops up with the other 2 and 27 training ones
    const logs: string[] = [];
    const summary = await train({ config: small(out, calculatorScenarios(40, 3), { eval_n: 1, sft: "auto", sft_steps: 1, sft_batch_size: 2 }), hooks: { log: (l) => logs.push(l) } });
    expect(summary.heldout_n).toBe(1);
    // the 1 measured is said to be of the 3 held out
    expect(logs).toContainEqual(expect.stringMatching(/^scenarios: 40 train, 1 held-out \(--eval-n 1 of the 3 in the held-out split\) \(/));
    const evals = readJsonl(path.join(out, "eval.jsonl"));
    expect(evals.map((e) => [e.label, e.n, e.split])).toEqual([
      ["base", 32, "test+train"],
      ["before", 1, "test"],
      ["after", 1, "test"],
    ]);
  });

  it("refuses rewards that are all weighted 0 (nothing to learn), leaving no run directory", async () => {
    const out = path.join(tempDir("zero-weights"), "run");
    const zero = { verifier: 0, ruler: 0, format: 0, tool_validity: 0, tool_errors: 0, efficiency: 0, safety: 0, reference_calls: 0 };
    await expect(train({ config: small(out, calculatorScenarios(4, 1), { sft: "off", rewards: { weights: zero } }), hooks: { log: () => undefined } })).rejects.toThrow(
      "every reward component of this run has weight 0 (rewards.weights: verifier, format, tool_validity, tool_errors, efficiency, reference_calls), so every reward is 0 and nothing is learned",
    );
    expect(fs.existsSync(out)).toBe(false);
  });

  it("trains without a held-out set, saying that success cannot be measured, and reports it as not measured", async () => {
    const out = path.join(tempDir("no-test"), "run");
    const logs: string[] = [];
    // periodic evaluations asked for, with nothing to evaluate: none run
    // (and with TRL's linear decay of the learning rate)
    const summary = await train({ config: small(out, calculatorScenarios(6, 0), { sft: "off", eval_steps: 1, max_steps: 2, lr_scheduler_type: "linear", learning_rate: 1e-5 }), hooks: { log: (l) => logs.push(l) } });
    expect(summary.steps).toBe(2);
    expect(readJsonl(path.join(out, "metrics.jsonl")).filter((m) => m.phase === "grpo").map((m) => m.lr)).toEqual([1e-5, 5e-6]);
    expect(summary.heldout_n).toBe(0);
    expect(summary.heldout_before).toBeNull();
    expect(summary.heldout_after).toBeNull();
    expect(logs.some((l) => l.startsWith('warning: no held-out scenarios (split "test")'))).toBe(true);
    // two held-out scenarios: measured, with a warning that they measure coarsely
    const few: string[] = [];
    await train({ config: small(path.join(tempDir("few-test"), "run"), calculatorScenarios(6, 2), { sft: "off", max_steps: 0, eval_n: 0 }), hooks: { log: (l) => few.push(l) } });
    expect(few.filter((l) => l.startsWith("warning: only 2 held-out scenarios: held-out success moves in steps of 50 points"))).toHaveLength(1);
    expect(fs.existsSync(path.join(out, "eval.jsonl"))).toBe(false);
    expect(logs.filter((l) => l.startsWith("report:"))).toEqual([]); // the report is built all the same
    expect(fs.existsSync(path.join(out, "report.html"))).toBe(true);
    // and its page does not call the eval.jsonl such a run never writes missing
    expect((await readRun(out)).notes.map((n) => n.message)).not.toContain("eval.jsonl is missing");
  });

  it("caps each rollout's generated tokens at max_completion_length, and saves the cap for eval", async () => {
    const out = path.join(tempDir("completion-cap"), "run");
    await train({ config: small(out, calculatorScenarios(4, 2), { sft: "off", max_completion_length: 5, loss_type: "dr_grpo" }), hooks: { log: () => undefined } });
    const rollouts = readJsonl(path.join(out, "trajectories.jsonl"));
    expect(rollouts.length).toBeGreaterThan(0);
    for (const t of rollouts) expect((t.assistantMask as number[]).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(5);
    // random weights do not end a turn within 5 tokens: the cap is what ended them
    expect(rollouts.filter((t) => t.finish === "max_tokens").length).toBeGreaterThan(rollouts.length / 2);
    expect(readRolloutSettings(path.join(out, "checkpoints", "step-000001"))?.max_completion_length).toBe(5);
    // the default (max_turns × max_tokens_per_turn) never binds, and is not saved as a cap
    const free = path.join(tempDir("completion-free"), "run");
    await train({ config: small(free, calculatorScenarios(4, 2), { sft: "off", max_steps: 0 }), hooks: { log: () => undefined } });
    expect(readRolloutSettings(path.join(free, "checkpoints", "step-000000"))?.max_completion_length).toBeUndefined();
  });

  it("with no GRPO step (max_steps 0) measures the held-out set once: after RL is the before-RL measurement", async () => {
    const out = path.join(tempDir("zero-steps"), "run");
    const logs: string[] = [];
    const summary = await train({ config: small(out, calculatorScenarios(4, 3), { sft: "off", max_steps: 0 }), hooks: { log: (l) => logs.push(l) } });
    const evals = readJsonl(path.join(out, "eval.jsonl"));
    expect(evals.map((e) => e.label)).toEqual(["before", "after"]);
    expect(evals[1]).toMatchObject({ step: 0, n: 3, success_rate: evals[0].success_rate, mean_reward: evals[0].mean_reward });
    expect(summary.heldout_after).toBe(summary.heldout_before);
    // played once: the before-RL rollouts only
    const evalRollouts = readJsonl(path.join(out, "trajectories.jsonl")).filter((t) => t.phase === "eval");
    expect(evalRollouts.map((t) => t.label)).toEqual(["before", "before", "before"]);
    expect(logs).toContain("no GRPO step trained since the before-RL evaluation (step 0): after RL is that measurement, not played again");
  });

  it("plays a server's resources as tools with --resource-tools, and keeps that for eval and resume", async () => {
    const out = path.join(tempDir("resource-tools"), "run");
    const facts = ["speed-of-light", "planck-constant", "capital-germany", "unit-bar"];
    const file = path.join(tempDir("resource-scenarios"), "facts.jsonl");
    fs.writeFileSync(
      file,
      facts
        .map((id, i) =>
          // the training tasks look the fact up with get_fact, the held-out ones read the resource
          JSON.stringify({ id: `r${i}`, task: `Read the resource fact://${id} and tell me its value.`, difficulty: 1, split: i < 2 ? "train" : "test", reference: { calls: [i < 2 ? { name: "get_fact", arguments: { id } } : { name: "read_resource", arguments: { uri: `fact://${id}` } }], answer: "The value is x." }, expected: [{ kind: "contains", value: "x" }] }),
        )
        .join("\n") + "\n",
    );
    const config = small(out, file, { server: ["fixture:knowledge"], server_resource_tools: true, sft: "off" });
    const logs: string[] = [];
    await train({ config, hooks: { log: (l) => logs.push(l) } });
    // no training task reads a resource: the two tools go unrewarded, and the log says so
    expect(logs.filter((l) => l.startsWith("note: --resource-tools: no training scenario"))).toHaveLength(1);
    expect(readRolloutSettings(path.join(out, "checkpoints", "step-000001"))?.resource_tools).toBe(true);
    expect(JSON.parse(fs.readFileSync(path.join(out, "config.json"), "utf8")).server_resource_tools).toBe(true);
    // the model was shown the two resource tools beside the server's own
    const { ChatTokenizer } = await import("../../src/policy/tokenizer.js");
    const tokenizer = await ChatTokenizer.fromDir(config.model);
    const [first] = readJsonl(path.join(out, "trajectories.jsonl"));
    const prompt = tokenizer.decode(first.tokenIds as number[]);
    for (const name of ["search", "get_fact", "list_resources", "read_resource"]) expect(prompt).toContain(`- ${name}(`);
    const refusal = await train({ config: { ...config, server_resource_tools: false, max_steps: 2 }, resume: true, hooks: { log: () => undefined } }).then(
      () => "trained",
      (e: Error) => e.message,
    );
    expect(refusal).toMatch(/^--resource-tools \(server_resource_tools\): false differs from true in /);
  });

  it("offers only server_tools less server_exclude_tools, keeps them for eval and resume, and refuses a scenario that needs a tool left out", async () => {
    const out = path.join(tempDir("tool-filter"), "run");
    const file = path.join(tempDir("tool-filter-scenarios"), "calc.jsonl");
    const row = (i: number, split: string) => ({ id: `c${i}`, task: `Calculate ${i} + ${i}.`, difficulty: 1, split, reference: { calls: [{ name: "calculate", arguments: { expression: `${i} + ${i}` } }], answer: String(2 * i) }, expected: [{ kind: "numeric", value: 2 * i }] });
    fs.writeFileSync(file, [row(1, "train"), row(2, "train"), row(3, "test")].map((r) => JSON.stringify(r)).join("\n") + "\n");
    const config = small(out, file, { server_tools: ["calc*", "percentage", "statistics"], server_exclude_tools: ["statistics"], sft: "off" });
    const logs: string[] = [];
    await train({ config, hooks: { log: (l) => logs.push(l) } });
    expect(logs).toContain("note: fixture:calculator: offering 2 of the server's 4 tools (--tools and --exclude-tools): left out compound_interest, statistics");
    const { ChatTokenizer } = await import("../../src/policy/tokenizer.js");
    const tokenizer = await ChatTokenizer.fromDir(config.model);
    const prompt = tokenizer.decode(readJsonl(path.join(out, "trajectories.jsonl"))[0].tokenIds as number[]);
    for (const name of ["calculate", "percentage"]) expect(prompt).toContain(`- ${name}(`);
    for (const name of ["compound_interest", "statistics"]) expect(prompt).not.toContain(`- ${name}(`);
    expect(readRolloutSettings(path.join(out, "checkpoints", "step-000001"))?.tools).toEqual({ include: ["calc*", "percentage", "statistics"], exclude: ["statistics"] });
    expect(JSON.parse(fs.readFileSync(path.join(out, "config.json"), "utf8")).server_exclude_tools).toEqual(["statistics"]);
    const refusal = await train({ config: { ...config, server_exclude_tools: ["percentage"], max_steps: 2 }, resume: true, hooks: { log: () => undefined } }).then(
      () => "trained",
      (e: Error) => e.message,
    );
    expect(refusal).toMatch(/^--exclude-tools \(server_exclude_tools\): \["percentage"\] differs from \["statistics"\] in /);
    // a scenario whose reference calls a left-out tool can never be played: named by file and line
    const stats = path.join(tempDir("tool-filter-stats"), "stats.jsonl");
    const mean = { id: "m1", task: "What is the mean of 2, 4 and 6?", difficulty: 1, split: "train", reference: { calls: [{ name: "statistics", arguments: { values: [2, 4, 6] } }], answer: "4" }, expected: [{ kind: "numeric", value: 4 }] };
    fs.writeFileSync(stats, [row(1, "train"), mean, row(3, "test")].map((r) => JSON.stringify(r)).join("\n") + "\n");
    const bad = await train({ config: small(path.join(tempDir("tool-filter-bad"), "run"), stats, { server_exclude_tools: ["statistics"], sft: "off" }), hooks: { log: () => undefined } }).then(
      () => "trained",
      (e: Error) => e.message,
    );
    expect(bad).toContain(`${stats}:2: field "reference.calls[0].name": the server has "statistics", but --tools / --exclude-tools leave it out of this run`);
  });

  it("shows the model the server's instructions after the system prompt with server_instructions, and keeps that for eval and resume", async () => {
    const out = path.join(tempDir("instructions"), "run");
    const file = path.join(tempDir("instructions-scenarios"), "echo.jsonl");
    const row = (i: number, split: string) => ({ id: `e${i}`, task: `Echo the word w${i}.`, difficulty: 1, split, reference: { calls: [{ name: "echo", arguments: { text: `w${i}` } }], answer: `w${i}` }, expected: [{ kind: "contains", value: `w${i}` }] });
    fs.writeFileSync(file, [row(1, "train"), row(2, "train"), row(3, "test")].map((r) => JSON.stringify(r)).join("\n") + "\n");
    const said = "Always echo words in lower case.";
    const config = small(out, file, { server: [stdioTarget("everything", "--instructions", said)], server_instructions: true, sft: "off" });
    await train({ config, hooks: { log: () => undefined } });
    const { ChatTokenizer } = await import("../../src/policy/tokenizer.js");
    const tokenizer = await ChatTokenizer.fromDir(config.model);
    const prompt = tokenizer.decode(readJsonl(path.join(out, "trajectories.jsonl"))[0].tokenIds as number[]);
    expect(prompt).toContain(`Instructions from the "everything" server:\n${said}`);
    // after the system prompt, before the tools and the task
    expect(prompt.indexOf(said)).toBeLessThan(prompt.indexOf("Echo the word"));
    expect(readRolloutSettings(path.join(out, "checkpoints", "step-000001"))?.server_instructions).toBe(true);
    const refusal = await train({ config: { ...config, server_instructions: false, max_steps: 2 }, resume: true, hooks: { log: () => undefined } }).then(
      () => "trained",
      (e: Error) => e.message,
    );
    expect(refusal).toMatch(/^--server-instructions \(server_instructions\): false differs from true in /);
    // without the setting the same server's rollouts have the system prompt alone
    const plain = path.join(tempDir("instructions-off"), "run");
    await train({ config: small(plain, file, { server: [stdioTarget("everything", "--instructions", said)], sft: "off" }), hooks: { log: () => undefined } });
    expect(tokenizer.decode(readJsonl(path.join(plain, "trajectories.jsonl"))[0].tokenIds as number[])).not.toContain(said);
  });

  it("answers a server's sampling requests from server_sampling's model, with the key from the caller, never saved", async () => {
    const llm = await startChatServer(() => ({ content: "a summary" }));
    try {
      const out = path.join(tempDir("sampling"), "run");
      const file = path.join(tempDir("sampling-scenarios"), "s.jsonl");
      const row = (i: number, split: string) => ({ id: `s${i}`, task: `Summarize text number ${i}.`, difficulty: 1, split, reference: { calls: [{ name: "summarize", arguments: { text: `text ${i}` } }], answer: "A summary." }, expected: [{ kind: "contains", value: "summary" }] });
      fs.writeFileSync(file, [row(1, "train"), row(2, "train"), row(3, "test")].map((r) => JSON.stringify(r)).join("\n") + "\n");
      const config = small(out, file, { server: [stdioTarget("everything", "--sampling")], server_sampling: { model: "m-test", base_url: llm.url, api_key_env: "TEST_SAMPLING_KEY" }, sft: "on", sft_steps: 1, sft_batch_size: 2, max_steps: 0 });
      // the warm start plays the reference calls for real: `summarize` is listed (the capability
      // is declared) and its sampling request reaches the model
      await train({ config, samplingApiKey: "sk-sampling-0123456789", hooks: { log: () => undefined } });
      expect(llm.requests.length).toBeGreaterThan(0);
      expect(llm.requests.every((r) => r.model === "m-test")).toBe(true);
      expect(llm.headers[0].authorization).toBe("Bearer sk-sampling-0123456789");
      const saved = fs.readFileSync(path.join(out, "config.json"), "utf8");
      expect(JSON.parse(saved).server_sampling).toEqual({ model: "m-test", base_url: llm.url, max_tokens: 1024, api_key_env: "TEST_SAMPLING_KEY" });
      expect(saved).not.toContain("sk-sampling");
    } finally {
      await llm.close();
    }
  });

  it("answers a server's elicitation forms as server_elicitation says, saves the setting, and a resume keeps it", async () => {
    const out = path.join(tempDir("elicitation"), "run");
    const file = path.join(tempDir("elicitation-scenarios"), "s.jsonl");
    const row = (i: number, split: string) => ({ id: `e${i}`, task: `Delete the note n${i}.`, difficulty: 1, split, reference: { calls: [{ name: "delete_note", arguments: { note: `n${i}` } }], answer: `Deleted n${i}.` }, expected: [{ kind: "contains", value: `n${i}` }] });
    fs.writeFileSync(file, [row(1, "train"), row(2, "train"), row(3, "test")].map((r) => JSON.stringify(r)).join("\n") + "\n");
    const config = small(out, file, { server: [stdioTarget("everything", "--elicitation")], server_elicitation: "defaults", sft: "on", sft_steps: 1, sft_batch_size: 2, max_steps: 1 });
    const logs: string[] = [];
    await train({ config, hooks: { log: (l) => logs.push(l) } });
    // the warm start plays the reference calls for real, and keeps those whose calls succeed: a
    // declined form would have failed delete_note and dropped both
    expect(logs).toContain("warm start: 2 demonstrations from reference solutions");
    expect(readRolloutSettings(path.join(out, "checkpoints", "step-000001"))?.elicitation).toBe("defaults");
    const refusal = await train({ config: { ...config, server_elicitation: "decline", max_steps: 2 }, resume: true, hooks: { log: () => undefined } }).then(
      () => "trained",
      (e: Error) => e.message,
    );
    expect(refusal).toMatch(/^--elicitation \(server_elicitation\): "decline" differs from "defaults" in /);
  });

  it("a resume from the checkpoint taken after the warm start keeps the warm start's metrics, once", async () => {
    const out = path.join(tempDir("resume-sft"), "run");
    const config = small(out, calculatorScenarios(6, 2), { sft: "on", sft_steps: 3, sft_batch_size: 2, max_steps: 2, save_steps: 1 });
    await train({ config, hooks: { log: () => undefined } });
    // back to the checkpoint right after the warm start, as if the run had died there
    for (const s of ["step-000001", "step-000002"]) fs.rmSync(path.join(out, "checkpoints", s), { recursive: true, force: true });
    // (a damaged latest.json: the newest complete folder is found without it)
    fs.writeFileSync(path.join(out, "checkpoints", "latest.json"), '{"step": 2, "dir": "step-0');
    const resumed = await train({ config, resume: true, hooks: { log: () => undefined } });
    expect(resumed).toMatchObject({ steps: 2, sft_steps: 3 });
    const metrics = readJsonl(path.join(out, "metrics.jsonl"));
    expect(metrics.map((m) => `${m.phase}${m.step}`)).toEqual(["sft1", "sft2", "sft3", "grpo1", "grpo2"]);
  });

  it("keeps the best checkpoint a periodic evaluation finds, also between save_steps", async () => {
    const out = path.join(tempDir("best"), "run");
    await train({ config: small(out, calculatorScenarios(6, 2), { sft: "off", max_steps: 2, eval_steps: 1, save_steps: 5 }), hooks: { log: () => undefined } });
    const state = readCheckpointState(path.join(out, "checkpoints", "step-000002")).state;
    expect(state.bestStep).toBe(1);
    expect(fs.existsSync(path.join(out, "checkpoints", "step-000001", "trainer_state.json"))).toBe(true);
  });

  it("a finished run resumed as it was changes nothing; a run in use by a live process is refused", async () => {
    const out = path.join(tempDir("resume-done"), "run");
    const config = small(out, calculatorScenarios(6, 2), { sft: "off" });
    const first = await train({ config, hooks: { log: () => undefined } });
    const files = ["eval.jsonl", "metrics.jsonl", "trajectories.jsonl", "summary.json"].map((f) => fs.readFileSync(path.join(out, f), "utf8"));
    const logs: string[] = [];
    expect(await train({ config, resume: true, hooks: { log: (l) => logs.push(l) } })).toEqual(first);
    expect(logs).toContain("the run is finished (1/1 steps): nothing to resume; pass --steps N (more than 1) to go on training it");
    expect(["eval.jsonl", "metrics.jsonl", "trajectories.jsonl", "summary.json"].map((f) => fs.readFileSync(path.join(out, f), "utf8"))).toEqual(files);
    expect(fs.existsSync(path.join(out, "run.lock"))).toBe(false);
    // another process holds the directory (a run still going): a second one may not write under it
    const other = spawn("sleep", ["30"]);
    try {
      fs.writeFileSync(path.join(out, "run.lock"), `${other.pid}\n`);
      await expect(train({ config: { ...config, max_steps: 2 }, resume: true, hooks: { log: () => undefined } })).rejects.toThrow(`${out} is in use by another train-mcp run (pid ${other.pid})`);
    } finally {
      other.kill("SIGKILL");
      await new Promise((r) => other.once("exit", r));
    }
    // its process gone (kill -9), the lock is stale and taken over
    expect((await train({ config, resume: true, hooks: { log: () => undefined } })).steps).toBe(1);
  });

  it("a finished run resumed for more steps measures its own 'after', in place of the earlier one", async () => {
    const out = path.join(tempDir("resume-after"), "run");
    const scenarios = calculatorScenarios(6, 2);
    await train({ config: small(out, scenarios, { sft: "off" }), hooks: { log: () => undefined } });
    const ckWall = readCheckpointState(path.join(out, "checkpoints", "step-000001")).state.wall_s!;
    expect(ckWall).toBeGreaterThan(0);
    // what defines the run stays: another server or seed is refused before anything runs
    const refused = async (over: Record<string, unknown>) =>
      train({ config: small(out, scenarios, { sft: "off", max_steps: 2, ...over }), resume: true, hooks: { log: () => undefined } }).then(
        () => "trained",
        (e: Error) => e.message,
      );
    expect(await refused({ server: ["fixture:knowledge"] })).toMatch(/^--server \(server\): \["fixture:knowledge"\] differs from \["fixture:calculator"\] in .*config\.json; a resumed run keeps what defines it/);
    expect(await refused({ seed: 4 })).toMatch(/^--seed \(seed\): 4 differs from 3 in /);
    // a completion cap changes how held-out success is measured, as the turn limits do
    expect(await refused({ max_completion_length: 5 })).toMatch(/^--max-completion-length \(max_completion_length\): 5 differs from null in /);
    expect(readCheckpointState(path.join(out, "checkpoints", "step-000001")).state.step).toBe(1);
    const t0 = performance.now();
    const logs: string[] = [];
    // each checkpoint, once complete, is told (what a second Ctrl-C says was kept)
    const checkpoints: Array<[number, string]> = [];
    const resumed = await train({
      config: small(out, scenarios, { sft: "off", max_steps: 2, learning_rate: 4e-7 }),
      resume: true,
      hooks: { log: (l) => logs.push(l), onCheckpoint: (step, dir) => checkpoints.push([step, dir]) },
    });
    expect(checkpoints.at(-1)).toEqual([2, path.resolve(out)]);
    const thisProcess = (performance.now() - t0) / 1000;
    expect(resumed.steps).toBe(2);
    // other settings may change: named in the log, and config.json says what the run now uses
    expect(logs.filter((l) => l.startsWith("resumed with"))).toEqual(["resumed with changes (saved in config.json once the run goes on): learning_rate 0.000001 → 4e-7, max_steps 1 → 2"]);
    expect(JSON.parse(fs.readFileSync(path.join(out, "config.json"), "utf8"))).toMatchObject({ max_steps: 2, learning_rate: 4e-7 });
    // metrics keep significant digits: a small learning rate is not written as 0
    expect(readJsonl(path.join(out, "metrics.jsonl")).filter((m) => m.phase !== "sft").map((m) => m.lr)).toEqual([1e-6, 4e-7]);
    // the run's wall time counts the first process's, up to its checkpoint
    expect(resumed.wall_s).toBeGreaterThanOrEqual(thisProcess + ckWall / 2);
    expect(readJsonl(path.join(out, "eval.jsonl")).map((e) => [e.label, e.step])).toEqual([
      ["before", 0],
      ["after", 2],
    ]);
    const evalRollouts = readJsonl(path.join(out, "trajectories.jsonl")).filter((t) => t.phase === "eval");
    expect(evalRollouts.map((t) => `${t.label}@${t.step}`)).toEqual(["before@0", "before@0", "after@2", "after@2"]);
  });
});
