/** The run config's cross-field rules: what needs what, and what is derived from what. */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_LORA_LEARNING_RATE, loraLearningRateWarning, readConfigFile, resolveTrainConfig, scrubSecrets } from "../../src/train/config.js";
import { resumeChanges } from "../../src/train/resume-changes.js";
import { DEMO_CONFIG } from "../../src/train/demo.js";
import { warmStartEstimate, warmupIgnoredWarning } from "../../src/train/loop.js";

const server = ["fixture:calculator"];

describe("resolveTrainConfig", () => {
  it("rejects a KL coefficient without LoRA, naming the field and the source", () => {
    expect(() => resolveTrainConfig({ beta: 0.04 }, { server }, "train.json")).toThrow(/train\.json: field "beta": beta = 0\.04 needs a reference model: set lora_rank > 0/);
    expect(resolveTrainConfig({ beta: 0.04, lora_rank: 8 }, { server }).beta).toBe(0.04);
  });

  it("points loss_type \"gspo\" to importance_sampling_level, where TRL has GSPO", () => {
    expect(() => resolveTrainConfig({ loss_type: "gspo" }, { server }, "train.json")).toThrow('train.json: field "loss_type": GSPO is not a loss_type: it is importance_sampling_level: "sequence"');
    expect(() => resolveTrainConfig({ loss_type: "ppo" }, { server }, "train.json")).toThrow(/field "loss_type": Invalid option: expected one of "grpo"\|"bnpo"\|"dr_grpo"\|"dapo"/);
    expect(resolveTrainConfig({ importance_sampling_level: "sequence", loss_type: "grpo" }, { server }).importance_sampling_level).toBe("sequence");
    // the flag says the same (commander's list of choices did not)
    const flag = spawnSync(process.execPath, ["bin/train-mcp.mjs", "train", "--server", "fixture:calculator", "--loss-type", "gspo"], { encoding: "utf8" });
    expect(flag.status).toBe(2);
    expect(flag.stderr).toBe('train-mcp: --loss-type (loss_type): GSPO is not a loss_type: it is importance_sampling_level: "sequence" (with any loss_type; TRL\'s GSPO recipe uses "grpo")\n');
  });

  it("gives a LoRA run a LoRA learning rate when none is set, and warns only about a rate the user chose", () => {
    expect(DEFAULT_LORA_LEARNING_RATE).toBe(1e-5);
    expect(resolveTrainConfig({}, { server }).learning_rate).toBe(1e-6);
    const lora = resolveTrainConfig({ lora_rank: 4 }, { server });
    expect(lora.learning_rate).toBe(1e-5);
    expect(loraLearningRateWarning(lora, true)).toBeUndefined();
    // chosen, by flag or file: kept, and a full-fine-tuning rate with LoRA is warned about
    expect(resolveTrainConfig({ lora_rank: 4, learning_rate: 3e-4 }, { server }).learning_rate).toBe(3e-4);
    const low = resolveTrainConfig({ lora_rank: 4 }, { server, learning_rate: 1e-6 });
    expect(low.learning_rate).toBe(1e-6);
    expect(loraLearningRateWarning(low, true)).toBe(
      "warning: learning_rate 0.000001 with LoRA (rank 4): the adapters start at zero and barely move at a full-fine-tuning rate; LoRA runs use about 1e-5 to 1e-4 (--lr; unset, a LoRA run's default is 1e-5)",
    );
    // a resume that does not change the rate (a finished run, say) does not say it again
    expect(loraLearningRateWarning(low, false)).toBeUndefined();
    expect(loraLearningRateWarning({ lora_rank: 0, learning_rate: 1e-6 }, true)).toBeUndefined();
    // the demo's preset is full fine-tuning at its own rate, as before
    const demo = resolveTrainConfig({}, DEMO_CONFIG as Record<string, unknown>);
    expect([demo.lora_rank, demo.learning_rate]).toEqual([0, 5e-5]);
    // the flag's help says both defaults
    const help = spawnSync(process.execPath, ["bin/train-mcp.mjs", "train", "--help"], { encoding: "utf8", env: { ...process.env, COLUMNS: "400" } });
    expect(help.stdout.replace(/\s+/g, " ")).toMatch(/--lr <x> learning rate .*default: 1e-6, TRL's for full fine-tuning; 1e-5 with --lora-rank\)/);
  });

  it("leaves max_completion_length unset unless one is given (the turn limits stand for it)", () => {
    expect(resolveTrainConfig({}, { server, max_turns: 3, max_tokens_per_turn: 64 }).max_completion_length).toBeNull();
    expect(resolveTrainConfig({ max_completion_length: 100 }, { server, max_turns: 3 }).max_completion_length).toBe(100);
  });

  it("server_sampling: the model and endpoint, a token cap and the key's variable, which a saved config keeps (the key it never holds)", () => {
    const cfg = resolveTrainConfig({}, { server, server_sampling: { model: "qwen", base_url: "http://127.0.0.1:8000/v1" } });
    expect(cfg.server_sampling).toEqual({ model: "qwen", base_url: "http://127.0.0.1:8000/v1", max_tokens: 1024, api_key_env: "OPENAI_API_KEY" });
    expect(scrubSecrets(cfg).server_sampling).toEqual(cfg.server_sampling);
    // every *_api_key_env names a variable: a saved config keeps it, so a resume can read it back
    const withPolicy = resolveTrainConfig({}, { server, policy_url: "http://127.0.0.1:8000/v1", lora_rank: 4, policy_api_key_env: "MY_POLICY_KEY" });
    expect(scrubSecrets(withPolicy).policy_api_key_env).toBe("MY_POLICY_KEY");
    expect(() => resolveTrainConfig({}, scrubSecrets(withPolicy) as Record<string, unknown>, "config.json")).not.toThrow();
    expect(() => resolveTrainConfig({}, { server, server_sampling: { model: "qwen", base_url: "nope" } }, "train.json")).toThrow(/train\.json: field "server_sampling\.base_url"/);
    expect(() => resolveTrainConfig({}, { server, server_sampling: { model: "qwen", base_url: "ftp://127.0.0.1/v1" } }, "train.json")).toThrow('train.json: field "server_sampling.base_url": expects an http(s) URL');
    expect(() => resolveTrainConfig({}, { server, server_sampling: { model: "qwen", base_url: "http://x/v1", api_key: "sk-1" } }, "train.json")).toThrow(/server_sampling/);
  });

  it("server_elicitation: one of the four answers; `model` needs server_sampling's model", () => {
    expect(resolveTrainConfig({}, { server }).server_elicitation).toBeUndefined();
    expect(resolveTrainConfig({ server_elicitation: "defaults" }, { server }).server_elicitation).toBe("defaults");
    expect(() => resolveTrainConfig({}, { server, server_elicitation: "yes" }, "train.json")).toThrow(/train\.json: field "server_elicitation"/);
    expect(() => resolveTrainConfig({}, { server, server_elicitation: "model" }, "train.json")).toThrow('train.json: field "server_elicitation": "model" fills forms in with the client\'s model: set server_sampling');
    expect(resolveTrainConfig({}, { server, server_elicitation: "model", server_sampling: { model: "q", base_url: "http://127.0.0.1:1/v1" } }).server_elicitation).toBe("model");
  });

  it("a config file that is not JSON is named with the line and column; a learning rate above 1 is refused", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "cfg-")), "train.json");
    fs.writeFileSync(file, '{\n  "server": ["fixture:calculator"],\n  max_steps: 3\n}\n');
    expect(() => readConfigFile(file)).toThrow(new RegExp(`^${file.replace(/[.]/g, "\\.")}:3:3: invalid JSON: Expected double-quoted property name$`));
    // valid JSON that is not an object is no syntax error
    fs.writeFileSync(file, "[1, 2]\n");
    expect(() => readConfigFile(file)).toThrow(`${file}: expected a JSON object of config fields ({"server": …, "max_steps": …}), got an array`);
    expect(() => readConfigFile(file)).not.toThrow(/invalid JSON/);
    expect(() => resolveTrainConfig({}, { server: ["fixture:calculator"], learning_rate: 1e10 }, "train.json")).toThrow(/train\.json: field "learning_rate": a learning rate above 1 makes every update diverge/);
  });

  it("reads the shapes a TRL / PEFT user writes: one server as a string, all-linear, save_total_limit null", () => {
    const cfg = resolveTrainConfig({}, { server: "fixture:calculator", lora_target_modules: "all-linear", save_total_limit: null });
    expect(cfg.server).toEqual(["fixture:calculator"]);
    expect(cfg.lora_target_modules).toEqual(["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]);
    expect(cfg.save_total_limit).toBeNull();
    expect(resolveTrainConfig({}, { server }).save_total_limit).toBe(2);
    // a YAML file is named as such; an argument regex that does not compile names its field
    const yaml = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "cfg-")), "grpo.yaml");
    fs.writeFileSync(yaml, "learning_rate: 1e-6\nnum_generations: 8\n");
    expect(() => readConfigFile(yaml)).toThrow(`${yaml}: config files are JSON here (YAML is not read): write the same fields as a JSON object`);
    expect(() => resolveTrainConfig({}, { server, rewards: { dangerous: { args: ["(rm"] } } }, "train.json")).toThrow(/^train\.json: field "rewards\.dangerous\.args\.0": not a valid regular expression: /);
  });

  it("tool_timeout_ms reads as --timeout does: milliseconds or a unit; a bare 30 (seconds meant) is refused with the way to write it", () => {
    expect(resolveTrainConfig({}, { server }).tool_timeout_ms).toBe(30_000);
    expect(resolveTrainConfig({}, { server, tool_timeout_ms: "45s" }).tool_timeout_ms).toBe(45_000);
    expect(resolveTrainConfig({}, { server, tool_timeout_ms: 2500 }).tool_timeout_ms).toBe(2500);
    expect(() => resolveTrainConfig({}, { server, tool_timeout_ms: 30 }, "train.json")).toThrow(/train\.json: field "tool_timeout_ms": 30 is in milliseconds, .*write 30000 or 30s/);
  });

  it("names an unknown field instead of ignoring it", () => {
    expect(() => resolveTrainConfig({}, { server, num_iteration: 2 }, "train.json")).toThrow(/train\.json: .*num_iteration/);
  });

  it("reads gradient_checkpointing as TRL writes it (a boolean) or as auto/on/off, auto by default", () => {
    expect(resolveTrainConfig({}, { server }).gradient_checkpointing).toBe("auto");
    expect(resolveTrainConfig({}, { server, gradient_checkpointing: true }).gradient_checkpointing).toBe("on");
    expect(resolveTrainConfig({}, { server, gradient_checkpointing: false }).gradient_checkpointing).toBe("off");
    expect(resolveTrainConfig({ gradient_checkpointing: "off" }, { server, gradient_checkpointing: true }).gradient_checkpointing).toBe("off");
    expect(() => resolveTrainConfig({}, { server, gradient_checkpointing: "yes" }, "train.json")).toThrow(/train\.json: field "gradient_checkpointing"/);
  });

  it("names an unknown field with the nearest known one, and a bad value by the flag that set it", () => {
    expect(() => resolveTrainConfig({}, { server, max_step: 3 }, "train.json")).toThrow('train.json: unknown field "max_step" (did you mean "max_steps"?)');
    // other trainers' names for our fields
    expect(() => resolveTrainConfig({}, { server, output_dir: "runs/x", lora_r: 8 }, "train.json")).toThrow('train.json: 2 problems:\n  unknown field "output_dir" (did you mean "out"?)\n  unknown field "lora_r" (did you mean "lora_rank"?)');
    expect(() => resolveTrainConfig({}, { server, steps: 3 }, "train.json")).toThrow('train.json: unknown field "steps" (did you mean "max_steps"?)');
    // a typo inside an object is matched against that object's own fields
    expect(() => resolveTrainConfig({}, { server, rewards: { weights: { verifer: 2 }, normalise: true } }, "train.json")).toThrow(
      'train.json: 2 problems:\n  unknown field "rewards.weights.verifer" (did you mean "verifier"?)\n  unknown field "rewards.normalise" (did you mean "normalize"?)',
    );
    expect(() => resolveTrainConfig({}, { server, colour: "red" }, "train.json")).toThrow(/^train\.json: unknown field "colour"$/);
    // a TRL user's names: what stands for them here
    expect(() => resolveTrainConfig({}, { server, per_device_train_batch_size: 8, reward_weights: [1, 2] }, "train.json")).toThrow(
      'train.json: 2 problems:\n  unknown field "per_device_train_batch_size" (a step here plays groups_per_step × num_generations rollouts; micro_batch_size / micro_batch_tokens bound the memory of its update)\n  unknown field "reward_weights" (here: "rewards": {"weights": {"verifier": 4, "format": 0.5, …}}, see the README\'s rewards section)',
    );
    expect(() => resolveTrainConfig({}, { server, rewards: { sucess: 1 } }, "train.json")).toThrow(/^train\.json: unknown field "rewards\.sucess"$/);
    expect(() => resolveTrainConfig({ max_steps: -1 }, { server }, "train.json", { max_steps: "--steps" })).toThrow(/^--steps \(max_steps\): Too small/);
    // the same bad value from the file names the file and field
    expect(() => resolveTrainConfig({}, { server, max_steps: -1 }, "train.json", {})).toThrow(/^train\.json: field "max_steps": Too small/);
    expect(() => resolveTrainConfig({}, { server, judge: { model: "j" } }, "train.json")).toThrow('train.json: unknown field "judge" (it belongs under "rewards": {"judge": {"model": …, "baseURL": …}})');
    expect(() => resolveTrainConfig({ server: [" "] }, {}, "train.json", { server: "--server" })).toThrow('--server (server.0): empty target (expected a URL, stdio:<command>, fixture:<name> or a command line)');
    // the same server twice, however spelt: named, not left to clash as two bundled sets
    expect(() => resolveTrainConfig({ server: ["fixture:shop", "fixture:calculator", "fixture:calculator"] }, {}, "train.json", { server: "--server" })).toThrow("--server (server.2): fixture:calculator is given twice: name each server once");
    expect(() => resolveTrainConfig({ server: ["stdio:node a.mjs", "node a.mjs"] }, {}, "train.json", { server: "--server" })).toThrow("--server (server.1): node a.mjs is given twice: name each server once");
  });

  it("reports every bad field of a config at once, each with its path (and the flag that set it)", () => {
    const bad = { server, max_steps: -1, learning_rate: 1e10, max_step: 3, rewards: { sucess: 1 }, temperature: "hot" };
    let message = "";
    try {
      resolveTrainConfig({ groups_per_step: 0 }, bad, "train.json", { groups_per_step: "--groups-per-step" });
    } catch (e) {
      message = (e as Error).message;
    }
    const lines = message.split("\n");
    expect(lines[0]).toBe("train.json: 6 problems:");
    expect(lines.slice(1).sort()).toEqual(
      [
        '  field "max_steps": Too small: expected number to be >=0',
        '  field "learning_rate": a learning rate above 1 makes every update diverge (typical: 1e-6 full fine-tuning, 1e-5 LoRA)',
        '  unknown field "max_step" (did you mean "max_steps"?)',
        '  unknown field "rewards.sucess"',
        '  field "temperature": Invalid input: expected number, received string',
        "  --groups-per-step (groups_per_step): Too small: expected number to be >=1",
      ].sort(),
    );
    expect(lines).toHaveLength(7);
    // one problem keeps its one line
    expect(() => resolveTrainConfig({}, { server, max_steps: -1 }, "train.json")).toThrow(/^train\.json: field "max_steps": Too small[^\n]*$/);
  });

  it("a resume whose saved server URL lost its credentials asks for the URL again (exit 2)", () => {
    const run = fs.mkdtempSync(path.join(os.tmpdir(), "train-mcp-redacted-"));
    fs.writeFileSync(path.join(run, "config.json"), JSON.stringify({ server: ["https://[redacted]@mcp.example.com/mcp?token=[redacted]"], max_steps: 2 }));
    const r = spawnSync(process.execPath, ["bin/train-mcp.mjs", "--resume", run], { encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`train-mcp: ${run}/config.json keeps https://[redacted]@mcp.example.com/mcp?token=[redacted] without its credentials: pass --server with them again to resume (secrets passed by --env are never saved)\n`);
  });

  it("a resume whose judge endpoint lost its credentials asks for --judge-base-url again", () => {
    const run = fs.mkdtempSync(path.join(os.tmpdir(), "train-mcp-redacted-judge-"));
    const url = "http://127.0.0.1:9/v1?key=[redacted]";
    fs.writeFileSync(path.join(run, "config.json"), JSON.stringify({ server: ["fixture:calculator"], max_steps: 2, rewards: { judge: { model: "j", baseURL: url } } }));
    const r = spawnSync(process.execPath, ["bin/train-mcp.mjs", "--resume", run], { encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`train-mcp: ${run}/config.json keeps ${url} without its credentials: pass --judge-base-url with them again to resume (secrets passed by --env are never saved)\n`);
  });

  it("a resume whose sampling endpoint lost its credentials asks for --sampling-base-url again; one sampling flag may complete a config's", () => {
    const run = fs.mkdtempSync(path.join(os.tmpdir(), "train-mcp-redacted-sampling-"));
    const url = "http://[redacted]@127.0.0.1:9/v1?api_key=[redacted]";
    fs.writeFileSync(path.join(run, "config.json"), JSON.stringify({ server: ["fixture:calculator"], max_steps: 2, server_sampling: { model: "m", base_url: url } }));
    const r = spawnSync(process.execPath, ["bin/train-mcp.mjs", "--resume", run], { encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`train-mcp: ${run}/config.json keeps ${url} without its credentials: pass --sampling-base-url with them again to resume (secrets passed by --env are never saved)\n`);
    // one flag replaces its half and keeps the saved other half (here the URL, still without its credentials)
    const model = spawnSync(process.execPath, ["bin/train-mcp.mjs", "--resume", run, "--sampling-model", "m2"], { encoding: "utf8" });
    expect(model.status).toBe(2);
    expect(model.stderr).toContain(`keeps ${url} without its credentials: pass --sampling-base-url`);
    const alone = spawnSync(process.execPath, ["bin/train-mcp.mjs", "--server", "fixture:calculator", "--sampling-base-url", "http://127.0.0.1:9/v1"], { encoding: "utf8" });
    expect(alone.status).toBe(2);
    expect(alone.stderr).toContain("--sampling-model and --sampling-base-url go together");
  });

  it("a resume's --config is laid over the run's saved config, not in place of it", () => {
    const run = fs.mkdtempSync(path.join(os.tmpdir(), "train-mcp-layered-"));
    fs.writeFileSync(path.join(run, "config.json"), JSON.stringify({ server: ["https://[redacted]@mcp.example.com/mcp"], max_steps: 2, rewards: { weights: { format: 1 } } }));
    const partial = path.join(run, "more-steps.json");
    fs.writeFileSync(partial, JSON.stringify({ max_steps: 4, rewards: { weights: { efficiency: 0 } } }));
    const r = spawnSync(process.execPath, ["bin/train-mcp.mjs", "--resume", run, "--config", partial], { encoding: "utf8" });
    // the saved server is still there (the file named none): the resume asks for its credentials
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("keeps https://[redacted]@mcp.example.com/mcp without its credentials");
  });

  it("train-mcp names the flag the user typed", () => {
    const r = spawnSync(process.execPath, ["bin/train-mcp.mjs", "--server", "fixture:calculator", "--group-size", "1"], { encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("train-mcp: --group-size (num_generations): Too small: expected number to be >=2\n");
    // TRL's spellings are aliases, named as typed; both at once is refused
    const alias = spawnSync(process.execPath, ["bin/train-mcp.mjs", "--server", "fixture:calculator", "--num-generations", "1"], { encoding: "utf8" });
    expect(alias.stderr).toBe("train-mcp: --num-generations (num_generations): Too small: expected number to be >=2\n");
    const both = spawnSync(process.execPath, ["bin/train-mcp.mjs", "--server", "fixture:calculator", "--lr", "1e-5", "--learning-rate", "2e-5"], { encoding: "utf8" });
    expect(both.status).toBe(2);
    expect(both.stderr).toBe("train-mcp: --lr and --learning-rate are the same setting: give one\n");
    // a config file's problems and a flag's, all in one message (exit 2, no stack)
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "cfg-")), "train.json");
    fs.writeFileSync(file, JSON.stringify({ server: ["fixture:calculator"], max_step: 3, temperature: -1 }, null, 2));
    const many = spawnSync(process.execPath, ["bin/train-mcp.mjs", "--config", file, "--group-size", "1"], { encoding: "utf8" });
    expect(many.status).toBe(2);
    expect(many.stderr.split("\n").slice(0, 1)).toEqual([`train-mcp: ${file}: 3 problems:`]);
    // the flag's problem first, then the file's in line order
    expect(many.stderr.split("\n").slice(1, -1)).toEqual(["  --group-size (num_generations): Too small: expected number to be >=2", '  line 5: unknown field "max_step" (did you mean "max_steps"?)', '  line 6: field "temperature": Too small: expected number to be >=0']);
    // several unknown fields of one object: each on its own line, all sorted by line
    fs.writeFileSync(file, JSON.stringify({ server: ["fixture:calculator"], temperature: -1, foo: 1, max_steps: 2, bar: 2 }, null, 2));
    const keys = spawnSync(process.execPath, ["bin/train-mcp.mjs", "--config", file], { encoding: "utf8" });
    expect(keys.stderr.split("\n").slice(1, -1)).toEqual(['  line 5: field "temperature": Too small: expected number to be >=0', '  line 6: unknown field "foo"', '  line 8: unknown field "bar"']);
    // one problem: the file's name and the field's line, as a compiler names them
    fs.writeFileSync(file, JSON.stringify({ server: ["fixture:calculator"], rewards: { weights: { verifier: 1 } }, lora_rank: 8, beta: "high" }, null, 2));
    const one = spawnSync(process.execPath, ["bin/train-mcp.mjs", "--config", file], { encoding: "utf8" });
    expect(one.status).toBe(2);
    expect(one.stderr).toMatch(new RegExp(`^train-mcp: ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:11: field "beta": `));
  });

  it("train plays a model as its folder's train_mcp.json says, as eval does, unless told otherwise", () => {
    const run = (...extra: string[]) => {
      const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "train-mcp-model-settings-")), "run");
      const r = spawnSync(process.execPath, ["bin/train-mcp.mjs", "train", "--server", "fixture:calculator", "--steps", "0", "--sft", "off", "--eval-n", "1", "--out", out, "--quiet", ...extra], { encoding: "utf8" });
      // --quiet: the result line alone
      expect(r.stderr).toMatch(/^held-out success \(1 scenario\): before RL [\d.]+% → after RL [\d.]+%; run directory: .*\n$/);
      return JSON.parse(fs.readFileSync(path.join(out, "config.json"), "utf8")) as Record<string, unknown>;
    };
    const shipped = JSON.parse(fs.readFileSync("src/policy/default-model/train_mcp.json", "utf8")) as Record<string, unknown>;
    expect(run()).toMatchObject(shipped);
    expect(run("--max-turns", "2", "--system-prompt", "Be brief.")).toMatchObject({ ...shipped, max_turns: 2, system_prompt: "Be brief." });
  });
});

describe("warmStartEstimate", () => {
  it("says the time per step and for the steps left, in the unit that reads best", () => {
    expect(warmStartEstimate(1200, 197, 200)).toMatch(/^warm start: 1\.2 s a step, so up to 4 min more for the 197 steps left of 200 \(.*--sft-steps N caps it, --sft off skips it\)$/);
    expect(warmStartEstimate(13_000, 197, 200)).toContain("13 s a step, so up to 43 min more");
    expect(warmStartEstimate(60_000, 197, 200)).toContain("so up to 3.3 h more");
    expect(warmStartEstimate(200, 12, 15)).toContain("0.2 s a step, so up to 2 s more for the 12 steps left of 15");
  });
});

describe("warmupIgnoredWarning", () => {
  it("warns when warmup is asked for under the constant schedule, and only then", () => {
    expect(warmupIgnoredWarning({ lr_scheduler_type: "constant", warmup_ratio: 0.5 })).toBe(
      "warning: warmup_ratio 0.5 has no effect with lr_scheduler_type constant (the default), which has no warmup: use constant_with_warmup, linear or cosine",
    );
    expect(warmupIgnoredWarning({ lr_scheduler_type: "constant", warmup_ratio: 0, warmup_steps: 3 })).toMatch(/^warning: warmup_steps 3 has no effect/);
    expect(warmupIgnoredWarning({ lr_scheduler_type: "constant", warmup_ratio: 0 })).toBeUndefined();
    expect(warmupIgnoredWarning({ lr_scheduler_type: "cosine", warmup_ratio: 0.1 })).toBeUndefined();
  });
});

describe("resumeChanges", () => {
  const server = ["fixture:calculator"];
  it("names a field that was unset before and is set now (epsilon_high), and skips fields with defaults a saved config lacks", () => {
    const saved = JSON.parse(JSON.stringify(scrubSecrets(resolveTrainConfig({}, { server })))) as Record<string, unknown>;
    expect("epsilon_high" in saved).toBe(false);
    expect(resumeChanges(saved, resolveTrainConfig({}, { server, epsilon_high: 0.3 }), "run/config.json")).toEqual(["epsilon_high (unset) → 0.3"]);
    // a saved config of a version without loss_type: its default is no change
    const older = { ...saved };
    delete older.loss_type;
    expect(resumeChanges(older, resolveTrainConfig({}, { server }), "run/config.json")).toEqual([]);
  });
});
