/**
 * A server that dies on every call during training: no step trains on the outage (no update, no
 * metrics line, no checkpoint: the weights stay those of the last sound step and the step is
 * played again after a wait, so a server that comes back in time costs a try), each try says so, and after three in a row the run stops with a usage error
 * naming what failed and how to resume, its rollouts kept. A server that dies now and then during an evaluation, and tools that refuse
 * every call, are named in warnings.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { TrainMcpError } from "../../src/errors.js";
import { resolveTrainConfig } from "../../src/train/config.js";
import { summaryOfFailedRun, train } from "../../src/train/loop.js";
import { startEverything, stdioTarget } from "../servers/launch.js";
import { readJsonl, tempDir, tinyModelDir } from "./helpers.js";

/** Compound-interest scenarios of the bundled calculator set: the built-in model calls a tool on
 *  every one. */
function compoundScenarios(split: "train" | "test", n: number): string[] {
  return fs
    .readFileSync(path.resolve("scenarios/calculator.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.includes('"template:calculator.compound"') && l.includes(`"split":"${split}"`))
    .slice(0, n);
}

describe("a server outage during training", () => {
  it("does not count a step the outage spoiled: no update, metrics or checkpoint, the step played again; three tries in a row stop the run (exit 2) with the last step that trained checkpointed, and a resume goes on from it", async () => {
    const scenarios = path.join(tempDir("outage-scenarios"), "train-only.jsonl");
    fs.writeFileSync(scenarios, compoundScenarios("train", 8).join("\n") + "\n");
    const out = path.join(tempDir("outage"), "run");
    const down = path.join(tempDir("outage-switch"), "down");
    const config = resolveTrainConfig({
      server: [stdioTarget("crash-calc", "--down-when", down)], model: "default", scenarios: [scenarios], out, seed: 2, sft: "off",
      // save_steps beyond the run: the checkpoint of step 2 is the one the outage's stop writes
      max_steps: 3, groups_per_step: 2, num_generations: 4, max_turns: 2, max_tokens_per_turn: 64, save_steps: 10, tool_timeout_ms: 10_000, outage_wait_s: 0.05,
    });
    const logs: string[] = [];
    // the server goes down once step 2 has trained
    const log = (l: string) => {
      logs.push(l);
      if (l.startsWith("step 2/3:")) fs.writeFileSync(down, "");
    };
    const e = await train({ config, hooks: { log } }).then(() => undefined, (x: unknown) => x as TrainMcpError);
    expect(e).toBeInstanceOf(TrainMcpError);
    expect(e!.usage).toBe(true);
    expect(e!.message).toMatch(/^the MCP server failed every tool call 3 times in a row at step 3, so the run stopped \(the first failure: connection to the server lost during \w+: .*outage: crashing on purpose.*\); nothing was trained on those tries, and the run stands at step 2 \(its checkpoint is kept\): resume with --resume /);
    // a stdio server's stderr is kept with the run (an HTTP server's would not be named)
    expect(e!.message.endsWith(`once the server works (its stderr: ${path.join(out, "server.log")})`)).toBe(true);
    const outageTries = logs.flatMap((l) => /^warning: step (\d+): every tool call \(\d+\) failed on the server's side, so nothing was trained and the step is played again/.exec(l)?.[1] ?? []).map(Number);
    expect(outageTries).toEqual([3, 3, 3]);
    // a wait before each try but the first, doubled each time, none after the last
    expect(logs.filter((l) => l.startsWith("waiting"))).toEqual(["waiting 0.05 s before try 2 of 3 of step 3", "waiting 0.1 s before try 3 of 3 of step 3"]);
    // no summary line of a step that trained nothing
    expect(logs.filter((l) => /^step \d+\/3:/.test(l)).map((l) => l.slice(0, 8))).toEqual(["step 1/3", "step 2/3"]);
    const grpoSteps = () => readJsonl(path.join(out, "metrics.jsonl")).filter((m) => m.phase === "grpo").map((m) => m.step);
    expect(grpoSteps()).toEqual([1, 2]);
    expect(fs.readdirSync(path.join(out, "checkpoints")).filter((d) => d.startsWith("step-")).sort()).toEqual(["step-000000", "step-000002"]);
    // every rollout played is kept: the outage's as phase "outage"
    const phases = () => readJsonl(path.join(out, "trajectories.jsonl")).map((t) => t.phase);
    expect(phases().filter((p) => p === "grpo")).toHaveLength(8 * 2);
    expect(phases().filter((p) => p === "outage")).toHaveLength(8 * 3);

    // the server back: the resume trains step 3 from step 2's checkpoint, the outage's rollouts stay
    fs.rmSync(down);
    const resumed = await train({ config, resume: true, hooks: { log: () => undefined } });
    expect(resumed.steps).toBe(3);
    expect(grpoSteps()).toEqual([1, 2, 3]);
    expect(phases().filter((p) => p === "grpo")).toHaveLength(8 * 3);
    expect(phases().filter((p) => p === "outage")).toHaveLength(8 * 3);
  }, 300_000);

  it("waits before playing an outage's step again, so a server back within the wait costs one try and the run trains every step", async () => {
    const scenarios = path.join(tempDir("outage-back-scenarios"), "train-only.jsonl");
    fs.writeFileSync(scenarios, compoundScenarios("train", 4).join("\n") + "\n");
    const out = path.join(tempDir("outage-back"), "run");
    const down = path.join(tempDir("outage-back-switch"), "down");
    fs.writeFileSync(down, ""); // down from the first step
    const config = resolveTrainConfig({
      server: [stdioTarget("crash-calc", "--down-when", down)], model: "default", scenarios: [scenarios], out, seed: 2, sft: "off",
      max_steps: 2, groups_per_step: 1, num_generations: 4, max_turns: 2, max_tokens_per_turn: 64, tool_timeout_ms: 10_000, outage_tries: 2, outage_wait_s: 0.2,
    });
    const logs: string[] = [];
    // the server comes back while the run waits
    const log = (l: string) => {
      logs.push(l);
      if (l.startsWith("waiting")) fs.rmSync(down);
    };
    const result = await train({ config, hooks: { log } });
    expect(result.steps).toBe(2);
    expect(logs.filter((l) => l.startsWith("waiting"))).toEqual(["waiting 0.2 s before try 2 of 2 of step 1"]);
    expect(readJsonl(path.join(out, "metrics.jsonl")).filter((m) => m.phase === "grpo").map((m) => m.step)).toEqual([1, 2]);
    expect(readJsonl(path.join(out, "trajectories.jsonl")).filter((t) => t.phase === "outage")).toHaveLength(4);
  }, 300_000);

  it.each([
    ["with tools that change state: each rollout opens its own session, which fails", [] as string[], /^warning: step 1: every rollout \(2\) failed, so nothing was trained and the step is played again; the first with: server: cannot reach MCP server/],
    ["with read-only tools: the rollouts share the session and call nothing, and a ping finds it gone", ["--sampling"], /^warning: step 1: no rollout called a tool, and http:\/\/127\.0\.0\.1:\d+\/mcp does not answer a ping \(/],
  ])("says so when an HTTP server is gone before a step (%s)", async (_what, mode, expected) => {
    const server = await startEverything("http", 0, ...mode);
    const scenarios = path.join(tempDir("gone-scenarios"), "echo.jsonl");
    const task = (id: string, split: string) => JSON.stringify({ id, task: `Echo the word ${id}.`, difficulty: 1, split, tags: [], expected: [{ kind: "contains", value: id }] });
    fs.writeFileSync(scenarios, [task("alpha", "train"), task("beta", "train"), task("gamma", "test")].join("\n") + "\n");
    const config = resolveTrainConfig({
      server: [server.url], model: tinyModelDir(3), scenarios: [scenarios], out: path.join(tempDir("gone"), "run"), seed: 1, sft: "off",
      max_steps: 1, groups_per_step: 1, num_generations: 2, max_turns: 1, max_tokens_per_turn: 4, engine: "tfjs", outage_wait_s: 0,
    });
    const logs: string[] = [];
    let killed: Promise<void> | undefined;
    // measured before RL, then the server goes away before the first step's rollouts
    const progress = (label: string, done: number, total: number) => {
      if (!killed && label === "eval before" && done === total) killed = server.close();
    };
    await train({ config, hooks: { log: (l) => logs.push(l), progress } }).catch(() => undefined);
    expect(killed).toBeDefined();
    expect(logs.some((l) => expected.test(l)), logs.join("\n")).toBe(true);
  });

  it("plays again the evaluation scenarios whose rollouts lost the server (a crash is no evidence about the model), keeping the lost rollouts as phase outage", async () => {
    const scenarios = path.join(tempDir("outage-eval-scenarios"), "compound.jsonl");
    fs.writeFileSync(scenarios, [...compoundScenarios("train", 4), ...compoundScenarios("test", 8)].join("\n") + "\n");
    const out = path.join(tempDir("outage-eval"), "run");
    const config = resolveTrainConfig({
      server: [stdioTarget("crash-calc", "--crash-every", "3")], model: "default", scenarios: [scenarios], out, seed: 2, sft: "off",
      max_steps: 1, groups_per_step: 1, num_generations: 2, max_turns: 2, max_tokens_per_turn: 64, eval_n: 8, tool_timeout_ms: 10_000, outage_wait_s: 0.05,
    });
    const logs: string[] = [];
    await train({ config, hooks: { log: (l) => logs.push(l) } });
    const replay = logs.find((l) => l.startsWith("eval before:"));
    expect(replay).toMatch(/^eval before: \d+ of 8 scenarios lost the server mid-rollout: played again in 0\.05 s \(try 1 of 2\)$/);
    const lostFirst = Number(/(\d+) of 8/.exec(replay!)![1]);
    expect(lostFirst).toBeGreaterThan(0);
    const rows = readJsonl(path.join(out, "trajectories.jsonl"));
    const lostServer = (t: Record<string, unknown>) => (t.toolCalls as { error?: string }[]).some((c) => c.error === "connection");
    // one measured rollout per scenario; the ones that lost the server kept beside them
    const before = rows.filter((t) => t.phase === "eval" && t.label === "before");
    expect(before).toHaveLength(8);
    const replaced = rows.filter((t) => t.phase === "outage" && t.label === "before");
    expect(replaced.length).toBeGreaterThanOrEqual(lostFirst);
    expect(replaced.every(lostServer)).toBe(true);
    expect(new Set([...before, ...replaced].map((t) => t.id)).size).toBe(before.length + replaced.length);
    // what lost the server on every try counts as a failure, and says so
    const stillLost = before.filter(lostServer);
    expect(stillLost.every((t) => t.success !== true)).toBe(true);
    const warning = logs.find((l) => l.startsWith("warning: eval before:"));
    if (stillLost.length > 0) expect(warning).toMatch(new RegExp(`^warning: eval before: ${stillLost.length} of 8 rollouts lost the server mid-rollout on every try \\(counted as failures\\)`));
    else expect(warning).toBeUndefined();
  });

  it("a final evaluation the outage makes fail still leaves the report, the summary and the checkpoint; a resume measures it", async () => {
    const scenarios = path.join(tempDir("final-eval-scenarios"), "compound.jsonl");
    fs.writeFileSync(scenarios, [...compoundScenarios("train", 2), ...compoundScenarios("test", 3)].join("\n") + "\n");
    const out = path.join(tempDir("final-eval"), "run");
    const down = path.join(tempDir("final-eval-switch"), "down");
    const config = resolveTrainConfig({
      server: [stdioTarget("crash-calc", "--down-when", down)], model: "default", scenarios: [scenarios], out, seed: 2, sft: "off",
      max_steps: 1, groups_per_step: 1, num_generations: 2, max_turns: 2, max_tokens_per_turn: 64, eval_n: 3, tool_timeout_ms: 10_000, outage_wait_s: 0.05,
    });
    const logs: string[] = [];
    // the server goes down once the (only) step has trained, before the final evaluation
    const log = (l: string) => {
      logs.push(l);
      if (l.startsWith("step 1/1:")) fs.writeFileSync(down, "");
    };
    const e = await train({ config, hooks: { log } }).then(() => undefined, (x: unknown) => x as TrainMcpError);
    expect(e).toBeInstanceOf(TrainMcpError);
    expect(e!.usage).toBe(true);
    const why = `final evaluation failed: evaluation: every tool call failed on the server's side`;
    expect(e!.message.startsWith(why), e!.message).toBe(true);
    expect(e!.message).toContain(`resume with --resume ${out} to measure it again (the checkpoint of step 1 is kept)`);
    expect(e!.message).toContain(`\nreport: ${path.join(out, "report.html")}\nrun directory: ${out}`);
    // what the run has is all there: summary (no "after"), report with the note, checkpoint, rollouts
    const summary = JSON.parse(fs.readFileSync(path.join(out, "summary.json"), "utf8")) as Record<string, unknown>;
    expect(summary).toMatchObject({ steps: 1, heldout_after: null, heldout_n: 3, report: path.join(out, "report.html") });
    expect(typeof summary.heldout_before).toBe("number");
    expect(String(summary.final_eval_error).startsWith(why)).toBe(true);
    // the summary travels with the error too: `train --json` still ends with its line
    expect(summaryOfFailedRun(e)).toEqual(summary);
    const html = fs.readFileSync(path.join(out, "report.html"), "utf8");
    const data = JSON.parse(/<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html)![1]) as { notes: Array<{ message: string }>; metrics: unknown[] };
    expect(data.notes.map((n) => n.message)).toContain(summary.final_eval_error);
    expect(fs.existsSync(path.join(out, "checkpoints", "step-000001", "model.safetensors"))).toBe(true);
    const evalRollouts = readJsonl(path.join(out, "trajectories.jsonl")).filter((t) => t.phase === "eval");
    expect(evalRollouts.filter((t) => t.label === "before")).toHaveLength(3);
    expect(evalRollouts.filter((t) => t.label === "after")).toHaveLength(3);
    expect(readJsonl(path.join(out, "metrics.jsonl")).filter((m) => m.phase === "grpo")).toHaveLength(1);

    // the server back: the resume measures "after" from the kept checkpoint, and the run is whole
    fs.rmSync(down);
    const resumed = await train({ config, resume: true, hooks: { log: () => undefined } });
    expect(resumed.steps).toBe(1);
    expect(typeof resumed.heldout_after).toBe("number");
    expect(resumed.final_eval_error).toBeUndefined();
    expect(readJsonl(path.join(out, "eval.jsonl")).map((r) => r.label)).toEqual(["before", "after"]);
  }, 300_000);

  it("warns when every tool call of a step came back as the tool's own error, and still trains (and on other setup mistakes)", async () => {
    const scenarios = path.join(tempDir("tool-error-scenarios"), "train-only.jsonl");
    // one without expected checks: named in a warning too
    const rows = compoundScenarios("train", 4).map((l) => JSON.parse(l) as Record<string, unknown>);
    delete rows[3].expected;
    fs.writeFileSync(scenarios, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const out = path.join(tempDir("tool-error"), "run");
    const config = resolveTrainConfig({
      server: [stdioTarget("crash-calc", "--tool-error")], model: "default", scenarios: [scenarios], out, seed: 2, sft: "off",
      max_steps: 1, groups_per_step: 2, num_generations: 4, max_turns: 2, max_tokens_per_turn: 64, max_completion_length: 1000, loss_type: "dapo", temperature: 0, lora_rank: 2,
      // chosen, so warned about (unset, a LoRA run gets 1e-5)
      learning_rate: 1e-6,
    });
    const logs: string[] = [];
    await train({ config, hooks: { log: (l) => logs.push(l) } });
    expect(logs).toContainEqual(expect.stringMatching(/^warning: step 1: every tool call \(\d+\) came back as the tool's error, the first: database is locked$/));
    expect(logs).toContain("warning: learning_rate 0.000001 with LoRA (rank 2): the adapters start at zero and barely move at a full-fine-tuning rate; LoRA runs use about 1e-5 to 1e-4 (--lr; unset, a LoRA run's default is 1e-5)");
    expect(logs).toContain("warning: temperature 0 plays the 4 rollouts of a group alike, so their rewards do not differ and GRPO learns nothing from them");
    // a TRL user's max_completion_length above what the turn caps allow: said to change nothing
    expect(logs).toContain("warning: max_completion_length 1000 is more than a rollout can generate (max_turns 2 × max_tokens_per_turn 64 = 128): with loss_type dapo it has no effect");
    expect(logs).toContain('warning: 1 of 4 scenarios have no "expected" checks, so their success is never measured (they count as failures) and they train on the rule rubric alone (format and tool hygiene: no judge is configured)');
    const [m] = readJsonl(path.join(out, "metrics.jsonl")).filter((x) => x.phase === "grpo");
    expect(m["update/skipped"]).not.toBe(1);
    expect(m["rollout/tool_errors"]).toBe(m["rollout/tool_calls"]);
  });
});
