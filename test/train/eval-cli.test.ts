import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../src/policy/backend.js";
import { Transformer } from "../../src/policy/model/transformer.js";
import { saveAdapter, saveMerged } from "../../src/policy/peft.js";
import { mulberry32 } from "../../src/policy/weights.js";
import { TrajectorySchema } from "../../src/rollout/trajectory.js";
import { stdioTarget } from "../servers/launch.js";
import { calculatorScenarios, cli, readJsonl, tempDir, tinyModelDir } from "./helpers.js";

describe("train-mcp eval", () => {
  let a: string;
  let b: string;
  let scenarios: string;
  beforeAll(() => {
    a = tinyModelDir(11);
    b = tinyModelDir(12);
    scenarios = calculatorScenarios(2, 5);
  });

  it("scores two checkpoints side by side on the same held-out scenarios, with pass@k", async () => {
    const dump = path.join(tempDir("eval"), "rollouts.jsonl");
    const r = await cli(["eval", "--model", a, "--model", b, "--server", "fixture:calculator", "--scenarios", scenarios, "--k", "2", "--max-tokens-per-turn", "8", "--engine", "tfjs", "--json", "--trajectories", dump]);
    expect(r.stderr).not.toMatch(/train-mcp:/);
    expect(r.code).toBe(0);
    const rows = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.map((x) => x.model)).toEqual([a, b]);
    for (const row of rows) {
      expect(row.n).toBe(5);
      for (const k of ["success_rate", "mean_reward", "mean_turns", "pass@2"]) expect(typeof row[k]).toBe("number");
      expect(row["pass@2"] as number).toBeGreaterThanOrEqual(row.success_rate as number);
      // success by tool and by template, each a share
      const perTag = row.per_tag as Record<string, number>;
      expect(Object.keys(perTag).some((k) => k.startsWith("template:calculator."))).toBe(true);
      expect(Object.keys(perTag).some((k) => k.startsWith("tool:"))).toBe(true);
      for (const v of Object.values(perTag)) expect(v).toBeGreaterThanOrEqual(0);
      // rounded to 4 significant digits: no float noise such as 0.5999999999999999
      for (const v of [...["success_rate", "mean_reward", "mean_turns", "pass@2"].map((k) => row[k] as number), ...Object.values(perTag)]) expect(Number(v.toPrecision(4))).toBe(v);
    }
    // every rollout (5 scenarios x k=2, per model), each a whole trajectory with its model and template
    const rollouts = readJsonl(dump);
    expect(rollouts).toHaveLength(20);
    expect(rollouts.filter((t) => t.model === a)).toHaveLength(10);
    for (const t of rollouts) {
      expect(String(t.template)).toMatch(/^template:calculator\./);
      expect(TrajectorySchema.safeParse(t).success).toBe(true);
    }
    // each row says how that model's rollouts used the tools, as its rollouts show
    for (const row of rows) {
      const use = row.tool_use as { rollouts: number; without_tool: number; tools: Record<string, { calls: number }> };
      const own = rollouts.filter((t) => t.model === row.model).map((t) => (t.toolCalls as Array<{ error?: string }>).filter((c) => !c.error?.startsWith("parse:")));
      expect(use.rollouts).toBe(10);
      expect(use.without_tool).toBe(own.filter((calls) => calls.length === 0).length);
      expect(Object.values(use.tools).reduce((n, x) => n + x.calls, 0)).toBe(own.flat().length);
    }
  });

  it("with k > 1, gives success, reward and turns as means over all k samples of each scenario, not over one of them", async () => {
    const dump = path.join(tempDir("eval-k"), "rollouts.jsonl");
    const r = await cli(["eval", "--model", "default", "--server", "fixture:calculator", "--scenarios", calculatorScenarios(1, 6), "--k", "4", "--temperature", "1.5", "--engine", "tfjs", "--seed", "3", "--json", "--trajectories", dump]);
    expect(r.code, r.stderr).toBe(0);
    const row = JSON.parse(r.stdout.trim().split("\n").pop()!) as Record<string, number>;
    const rollouts = readJsonl(dump);
    expect(rollouts).toHaveLength(24);
    const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
    expect(row.success_rate).toBe(Number(mean(rollouts.map((t) => (t.success ? 1 : 0))).toPrecision(4)));
    expect(row.mean_reward).toBe(Number(mean(rollouts.map((t) => t.reward as number)).toPrecision(4)));
    expect(row.mean_turns).toBe(Number(mean(rollouts.map((t) => t.turns as number)).toPrecision(4)));
    // the samples differ (else this would not tell the two readings apart)
    expect(new Set(rollouts.map((t) => t.reward)).size).toBeGreaterThan(1);
  });

  it("without --scenarios, scores a run's checkpoint on that run's own generated scenarios, not a fresh set", async () => {
    const run = path.join(tempDir("eval-run"), "run");
    const target = stdioTarget("everything");
    const ck = path.join(run, "checkpoints", "step-000001");
    fs.mkdirSync(path.dirname(ck), { recursive: true });
    fs.cpSync(a, ck, { recursive: true });
    fs.writeFileSync(path.join(run, "config.json"), JSON.stringify({ server: [target], scenarios: ["auto"] }));
    const row = (id: string, split: string) => JSON.stringify({ id, task: `Echo the word ${id}.`, difficulty: 1, split, tags: [], expected: [{ kind: "contains", value: id }] });
    fs.writeFileSync(path.join(run, "scenarios-0.jsonl"), [row("alpha", "train"), row("beta", "test"), row("gamma", "test")].join("\n") + "\n");
    const r = await cli(["eval", "--model", ck, "--server", target, "--max-turns", "1", "--max-tokens-per-turn", "4", "--engine", "tfjs", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`scenarios: those of ${run}`);
    expect(r.stderr).not.toContain("generating");
    expect(JSON.parse(r.stdout.trim().split("\n").pop()!)).toMatchObject({ n: 2 });
    // without --server too: the run's servers, said so
    const bare = await cli(["eval", "--model", ck, "--max-turns", "1", "--max-tokens-per-turn", "4", "--engine", "tfjs", "--json"]);
    expect(bare.code, bare.stderr).toBe(0);
    expect(bare.stderr).toContain(`servers: those of ${run} (${target})`);
    expect(JSON.parse(bare.stdout.trim().split("\n").pop()!)).toMatchObject({ n: 2 });
    // a model that is no run's checkpoint still needs --server
    const none = await cli(["eval", "--model", "default"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe("train-mcp: eval needs --server <target>: no --model is a checkpoint of a run that records its servers\n");
  });

  it("without --scenarios, checkpoints of runs with different scenario sets are refused (exit 2); runs with the same set are scored on it", async () => {
    const target = stdioTarget("everything");
    const row = (id: string, split: string) => JSON.stringify({ id, task: `Echo the word ${id}.`, difficulty: 1, split, tags: [], expected: [{ kind: "contains", value: id }] });
    const makeRun = (name: string, rows: string[]) => {
      const run = path.join(tempDir("eval-runs"), name);
      const ck = path.join(run, "checkpoints", "step-000001");
      fs.mkdirSync(path.dirname(ck), { recursive: true });
      fs.cpSync(a, ck, { recursive: true });
      fs.writeFileSync(path.join(run, "config.json"), JSON.stringify({ server: [target], scenarios: ["auto"] }));
      fs.writeFileSync(path.join(run, "scenarios-0.jsonl"), rows.join("\n") + "\n");
      return { run, ck };
    };
    // rA holds out what rB trained on
    const rA = makeRun("rA", [row("alpha", "train"), row("beta", "test")]);
    const rB = makeRun("rB", [row("beta", "train"), row("alpha", "test")]);
    for (const order of [[rA, rB], [rB, rA]]) {
      const r = await cli(["eval", "--model", order[0].ck, "--model", order[1].ck, "--server", target, "--max-turns", "1", "--max-tokens-per-turn", "4", "--engine", "tfjs", "--json"]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("the models come from runs with different scenario sets");
      expect(r.stderr).toContain("pass --scenarios FILE");
      expect(r.stdout).toBe("");
    }
    const rC = makeRun("rC", [row("alpha", "train"), row("beta", "test")]);
    const same = await cli(["eval", "--model", rA.ck, "--model", rC.ck, "--server", target, "--max-turns", "1", "--max-tokens-per-turn", "4", "--engine", "tfjs", "--json"]);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).toContain(`scenarios: those of ${rA.run} and ${rC.run} (auto), the same set in each run`);
    expect(same.stdout.trim().split("\n").map((l) => (JSON.parse(l) as { n: number }).n)).toEqual([1, 1]);
  });

  it("warns naming a model whose run lost its scenario files; a run saved with the default rewards is not 'different settings'; the table has one format per column", async () => {
    const target = stdioTarget("everything");
    const row = (id: string, split: string) => JSON.stringify({ id, task: `Echo the word ${id}.`, difficulty: 1, split, tags: [], expected: [{ kind: "contains", value: id }] });
    const makeRun = (name: string, specs: string[]) => {
      const run = path.join(tempDir("eval-lost"), name);
      const ck = path.join(run, "checkpoints", "step-000001");
      fs.mkdirSync(path.dirname(ck), { recursive: true });
      fs.cpSync(a, ck, { recursive: true });
      fs.writeFileSync(path.join(run, "config.json"), JSON.stringify({ server: [target], scenarios: specs }));
      return { run, ck };
    };
    const kept = makeRun("kept", ["auto"]);
    fs.writeFileSync(path.join(kept.run, "scenarios-0.jsonl"), [row("alpha", "train"), row("beta", "test")].join("\n") + "\n");
    // what train saves for a run on the default rewards
    fs.writeFileSync(path.join(kept.ck, "train_mcp.json"), JSON.stringify({ max_turns: 1, max_tokens_per_turn: 4, rewards: { weights: {}, normalize: true, verifierMode: "all", rubric: true, dangerous: { tools: [], args: [] } } }));
    const lostFile = path.join(tempDir("eval-lost-file"), "gone.jsonl");
    const lost = makeRun("lost", [lostFile]);
    const r = await cli(["eval", "--model", kept.ck, "--model", lost.ck, "--server", target, "--max-turns", "1", "--max-tokens-per-turn", "4", "--engine", "tfjs"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`warning: ${lost.ck}: its run ${lost.run} lists scenario files that are gone (${lostFile})`);
    expect(r.stderr).not.toContain("different settings");
    const [scores, toolUse] = r.stdout.trim().split("\n\n");
    const [header, ...lines] = scores.split("\n").map((l) => l.trim().split(/\s+/));
    expect(lines).toHaveLength(2);
    // then how each model used the tools, a column each
    const useLines = toolUse.split("\n");
    expect(useLines[0]).toBe("tool use:");
    expect(useLines[1]).toMatch(new RegExp(`^tool +${kept.ck} +${lost.ck}$`));
    expect(useLines[2]).toMatch(/^\(no tool call\) +\d of 1 rollouts +\d of 1 rollouts$/);
    for (const cells of lines) {
      expect(cells[header.indexOf("n")]).toBe("1");
      for (const k of ["success_rate", "mean_reward", "mean_turns"]) expect(cells[header.indexOf(k)], k).toMatch(/^\d+\.\d{3}$/);
    }
  });

  it("scores a LoRA checkpoint on onnxruntime, its adapters folded in without tfjs, as the model tfjs merges", async () => {
    // an adapter folder (non-zero A and B, seeded) and, as the reference, the model tfjs merges
    await initBackend({ device: "wasm" });
    const model = await Transformer.load(a);
    const targets = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"] as const;
    const rand = mulberry32(7);
    const init = new Map<string, { a: Float32Array; b: Float32Array }>();
    for (let l = 0; l < model.config.numLayers; l++)
      for (const m of targets) {
        const prefix = `model.layers.${l}.${["gate_proj", "up_proj", "down_proj"].includes(m) ? "mlp" : "self_attn"}.${m}`;
        const [rows, cols] = model.get(prefix + ".weight").shape;
        init.set(prefix, { a: Float32Array.from({ length: 4 * cols }, () => (rand() - 0.5) * 0.4), b: Float32Array.from({ length: rows * 4 }, () => (rand() - 0.5) * 0.4) });
      }
    model.enableLora({ r: 4, alpha: 8, dropout: 0, targetModules: [...targets], seed: 1 }, init);
    const ck = tempDir("adapter");
    saveAdapter(ck, model, a);
    const merged = tempDir("merged");
    saveMerged(merged, model);
    model.dispose();
    for (const f of ["tokenizer.json", "tokenizer_config.json"]) fs.copyFileSync(path.join(a, f), path.join(merged, f));
    const played = async (m: string) => {
      const dump = path.join(tempDir("t"), "rollouts.jsonl");
      const r = await cli(["eval", "--model", m, "--server", "fixture:calculator", "--scenarios", scenarios, "--max-tokens-per-turn", "8", "--engine", "ort", "--json", "--trajectories", dump]);
      expect(r.code, r.stderr).toBe(0);
      return readJsonl(dump).map((x) => x.tokenIds);
    };
    const [adapted, reference, base] = [await played(ck), await played(merged), await played(a)];
    expect(adapted).toEqual(reference);
    expect(adapted).not.toEqual(base); // the adapters changed what the model writes
  });

  it("exits 2 for a model folder that does not exist", async () => {
    const r = await cli(["eval", "--model", "/nope", "--server", "fixture:calculator", "--scenarios", scenarios]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    // a checkpoint its run has pruned since, servers and scenarios left to the run: one line still
    const run = path.join(tempDir("eval-pruned"), "run");
    fs.mkdirSync(path.join(run, "checkpoints"), { recursive: true });
    fs.writeFileSync(path.join(run, "config.json"), JSON.stringify({ server: ["fixture:calculator"], scenarios: ["auto"] }));
    const pruned = path.join(run, "checkpoints", "step-000001");
    const gone = await cli(["eval", "--model", pruned]);
    expect([gone.code, gone.stderr]).toEqual([2, `train-mcp: --model ${pruned}: no such folder (expected a Hugging Face model folder, a checkpoint, or "default")\n`]);
  });

  it("exits 2 on the tfjs engine for weights the wasm heap cannot hold, before reading them", async () => {
    const dir = tempDir("big");
    fs.copyFileSync(path.join(a, "tokenizer.json"), path.join(dir, "tokenizer.json"));
    // a 1.5B-parameter shape; the weights file is never opened
    fs.writeFileSync(path.join(dir, "config.json"), JSON.stringify({ model_type: "qwen2", vocab_size: 151936, hidden_size: 1536, intermediate_size: 8960, num_hidden_layers: 28, num_attention_heads: 12, num_key_value_heads: 2, rms_norm_eps: 1e-6, rope_theta: 1e6, max_position_embeddings: 32768, tie_word_embeddings: true, hidden_act: "silu" }));
    fs.writeFileSync(path.join(dir, "model.safetensors"), "");
    const r = await cli(["eval", "--model", dir, "--server", "fixture:calculator", "--scenarios", scenarios, "--engine", "tfjs"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/this 1544M-parameter model's weights take 5\.8 GiB as float32, more than the tfjs wasm backend's 4 GiB heap holds/);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("exits 2 naming a number flag out of its range, before a server starts", async () => {
    for (const [flag, value, want] of [
      ["--k", "0", "--k expects a whole number of at least 1, got \"0\""],
      ["--n", "0", "--n expects a whole number of at least 1, got \"0\""],
      ["--max-turns", "0", "--max-turns expects a whole number of at least 1, got \"0\""],
      ["--max-tokens-per-turn", "0", "--max-tokens-per-turn expects a whole number of at least 1, got \"0\""],
      ["--temperature", "-1", "--temperature expects a number of at least 0, got \"-1\""],
      ["--temperature", "abc", "--temperature expects a number of at least 0, got \"abc\""],
    ]) {
      const r = await cli(["eval", "--model", a, "--server", "fixture:calculator", "--scenarios", scenarios, flag, value]);
      expect(r.code, `${flag} ${value}`).toBe(2);
      expect(r.stderr.trim()).toBe(`train-mcp: ${want}`);
    }
  }, 180_000); // six processes, each a fresh Node: slow on a loaded 2-core machine

  it("evaluates a file of held-out scenarios alone, and exits 2 for a split the file lacks", async () => {
    const heldOutOnly = path.join(tempDir("held-out-only"), "test.jsonl");
    fs.writeFileSync(heldOutOnly, fs.readFileSync(scenarios, "utf8").split("\n").filter((l) => l.includes('"split":"test"')).join("\n") + "\n");
    const ok = await cli(["eval", "--model", a, "--server", "fixture:calculator", "--scenarios", heldOutOnly, "--n", "2", "--max-tokens-per-turn", "8", "--json"]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout.trim()).n).toBe(2);
    const none = await cli(["eval", "--model", a, "--server", "fixture:calculator", "--scenarios", heldOutOnly, "--split", "train"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`no scenarios in split "train" of ${heldOutOnly}; try --split all`);
  });

  it("warns that scenarios without expected checks count as failures", async () => {
    const file = path.join(tempDir("unchecked"), "test.jsonl");
    const rows = fs.readFileSync(scenarios, "utf8").split("\n").filter((l) => l.includes('"split":"test"')).slice(0, 2).map((l) => JSON.parse(l) as Record<string, unknown>);
    delete rows[1].expected;
    fs.writeFileSync(file, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const r = await cli(["eval", "--model", a, "--server", "fixture:calculator", "--scenarios", file, "--max-tokens-per-turn", "8", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('warning: 1 of 2 scenarios have no "expected" checks: eval cannot tell their success, so they count as failures');
  });

  it("exits 2 naming --trajectories when its file cannot be written", async () => {
    const r = await cli(["eval", "--model", a, "--server", "fixture:calculator", "--scenarios", scenarios, "--trajectories", "/no/such/dir/out.jsonl"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--trajectories \/no\/such\/dir\/out\.jsonl: cannot write it/);
  });

  it("exits 2 naming the flag for a --split or --engine it does not know", async () => {
    for (const [flag, value] of [["--split", "held-out"], ["--engine", "cuda"]]) {
      const r = await cli(["eval", "--model", a, "--server", "fixture:calculator", "--scenarios", scenarios, flag, value]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`'${flag} <`);
      expect(r.stderr).toContain(`'${value}' is invalid`);
    }
    // one server twice: named as such, before any scenario is read
    const twice = await cli(["eval", "--model", a, "--server", "fixture:calculator", "--server", "fixture:calculator", "--scenarios", scenarios]);
    expect([twice.code, twice.stderr]).toEqual([2, "train-mcp: --server fixture:calculator is given twice: name each server once\n"]);
    // the connection flags are eval's too
    const r = await cli(["eval", "--model", a, "--server", "fixture:calculator", "--scenarios", scenarios, "--header", "no-colon-here"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--header expects 'Name: value'");
  });

  it("caps each rollout's generated tokens as the checkpoint was trained (train_mcp.json), or as --max-completion-length says", async () => {
    const sampled = (file: string) => readJsonl(file).map((t) => (t.assistantMask as number[]).reduce((x, y) => x + y, 0));
    const dir = tempDir("eval-cap");
    fs.writeFileSync(path.join(a, "train_mcp.json"), JSON.stringify({ max_turns: 2, max_tokens_per_turn: 8, max_completion_length: 5, resource_tools: true, sampling: true, elicitation: "defaults", tools: { include: ["calc*", "percentage", "compound_interest", "statistics"] }, server_instructions: true }));
    try {
      const trained = await cli(["eval", "--model", a, "--server", "fixture:calculator", "--scenarios", scenarios, "--n", "3", "--engine", "tfjs", "--trajectories", path.join(dir, "trained.jsonl")]);
      expect(trained.code, trained.stderr).toBe(0);
      expect(Math.max(...sampled(path.join(dir, "trained.jsonl")))).toBe(5);
      // (and it was trained seeing the server's resources as tools: said, not silently dropped)
      expect(trained.stderr).toContain(`warning: ${a} was trained with --resource-tools (list_resources, read_resource); without that flag here it is played without them`);
      expect(trained.stderr).toContain(`warning: ${a} was trained with --elicitation defaults; here the capability is not declared, so tools that ask the user for input may be missing or fail`);
      expect(trained.stderr).toContain(`warning: ${a} was trained with --tools calc*,percentage,compound_interest,statistics; here every tool is offered, so its prompt shows other tools than it learned with`);
      expect(trained.stderr).toContain(`warning: ${a} was trained with its servers' instructions in the system prompt (--server-instructions); here it is played without them`);
      expect(trained.stderr).toContain(`warning: ${a} was trained with a sampling model (--sampling-model); without one here, tools that ask the client's model for a completion may be missing`);
      const flag = await cli(["eval", "--model", a, "--server", "fixture:calculator", "--scenarios", scenarios, "--n", "3", "--engine", "tfjs", "--max-completion-length", "3", "--resource-tools", "--tools", "calc*,percentage", "--tools", "compound_interest,statistics", "--server-instructions", "--trajectories", path.join(dir, "flag.jsonl")]);
      expect(flag.code, flag.stderr).toBe(0);
      expect(flag.stderr).not.toContain("was trained with --resource-tools");
      expect(flag.stderr).not.toContain("was trained with --tools");
      expect(flag.stderr).not.toContain("instructions in the system prompt");
      expect(flag.stderr).toContain("note: fixture:calculator: --server-instructions: the server gives no instructions, so its rollouts have the system prompt alone");
      expect(flag.stderr).toContain("--resource-tools: the server declares no resources capability");
      expect(Math.max(...sampled(path.join(dir, "flag.jsonl")))).toBe(3);
    } finally {
      fs.rmSync(path.join(a, "train_mcp.json"));
    }
  });

  it("compares the tools offered with those the run wrote down, not the filters' spelling", async () => {
    const settings = (offered: string[]) =>
      fs.writeFileSync(path.join(a, "train_mcp.json"), JSON.stringify({ max_turns: 1, max_tokens_per_turn: 4, tools: { include: ["fixture:calculator:calc*", "fixture:calculator:percentage"] }, offered_tools: offered }));
    // scenarios that call `calculate` alone, so that every filter below leaves their tools in
    const file = path.join(tempDir("eval-offered"), "calculate.jsonl");
    const lines = fs.readFileSync(scenarios, "utf8").split("\n").filter((l) => l && (JSON.parse(l) as { reference?: { calls: Array<{ name: string }> } }).reference?.calls.every((c) => c.name === "calculate"));
    expect(lines.length).toBeGreaterThan(0);
    fs.writeFileSync(file, lines.join("\n") + "\n");
    const play = (...flags: string[]) => cli(["eval", "--model", a, "--server", "fixture:calculator", "--scenarios", file, "--n", "1", "--engine", "tfjs", ...flags]);
    try {
      settings(["calculate", "percentage"]);
      // the same two tools, filtered another way: no warning
      const same = await play("--tools", "calculator:calc*,percentage");
      expect(same.code, same.stderr).toBe(0);
      expect(same.stderr).not.toContain("other tools than it learned with");
      // a tool more here, one fewer: named
      const other = await play("--tools", "calculate,statistics");
      expect(other.code, other.stderr).toBe(0);
      expect(other.stderr).toContain(`warning: ${a} was trained with --tools fixture:calculator:calc*,fixture:calculator:percentage; here --tools calculate,statistics is offered, so its prompt shows other tools than it learned with (not offered here: percentage; new here: statistics)`);
      // the server changed its tools since: said too, though the filters are spelt alike
      settings(["calculate", "percentage", "sqrt"]);
      const changed = await play("--tools", "fixture:calculator:calc*,fixture:calculator:percentage");
      expect(changed.stderr).toContain("(not offered here: sqrt)");
    } finally {
      fs.rmSync(path.join(a, "train_mcp.json"));
    }
  });

  it("scores a checkpoint with the reward settings its run saved in train_mcp.json", async () => {
    const run = async (settings: unknown) => {
      fs.writeFileSync(path.join(a, "train_mcp.json"), JSON.stringify(settings));
      const r = await cli(["eval", "--model", a, "--server", "fixture:calculator", "--scenarios", scenarios, "--max-tokens-per-turn", "8", "--engine", "tfjs", "--json"]);
      fs.rmSync(path.join(a, "train_mcp.json"));
      return r;
    };
    // side by side with a model scored on the defaults: mean rewards do not compare, and it says so
    fs.writeFileSync(path.join(a, "train_mcp.json"), JSON.stringify({ max_turns: 2, max_tokens_per_turn: 8, rewards: { rubric: false, weights: { verifier: 1 } } }));
    const both = await cli(["eval", "--model", a, "--model", b, "--server", "fixture:calculator", "--scenarios", scenarios, "--n", "2", "--max-tokens-per-turn", "8", "--engine", "tfjs", "--json"]);
    fs.rmSync(path.join(a, "train_mcp.json"));
    expect(both.code, both.stderr).toBe(0);
    expect(both.stderr).toContain("warning: the models' rewards were scored with different settings");
    // the verifier alone: the mean reward is the success rate; with the default rubric it is not
    const verifierOnly = await run({ max_turns: 2, max_tokens_per_turn: 8, rewards: { rubric: false, weights: { verifier: 1 } } });
    expect(verifierOnly.code).toBe(0);
    const v = JSON.parse(verifierOnly.stdout.trim()) as { success_rate: number; mean_reward: number; reward_settings: string };
    expect(v.mean_reward).toBe(v.success_rate);
    expect(v.reward_settings).toBe("run");
    const withRubric = await run({ max_turns: 2, max_tokens_per_turn: 8 });
    const d = JSON.parse(withRubric.stdout.trim()) as { success_rate: number; mean_reward: number; reward_settings: string };
    expect(d.mean_reward).not.toBe(d.success_rate);
    expect(d.reward_settings).toBe("default");
    // reward settings this version cannot read (a newer one's component) fall back to the defaults
    const newer = await run({ max_turns: 2, max_tokens_per_turn: 8, rewards: { weights: { judge_v2: 1 } } });
    expect(newer.code).toBe(0);
    expect((JSON.parse(newer.stdout.trim()) as { reward_settings: string }).reward_settings).toBe("default");
    // a bad file is a usage error naming it and the field
    const bad = await run({ max_turns: "three", max_tokens_per_turn: 8 });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/train_mcp\.json: max_turns: /);
  });
});
