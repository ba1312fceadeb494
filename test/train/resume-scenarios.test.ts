/**
 * A --resume trains and measures on the scenarios its run started with: the sets are recorded
 * at the start (scenario-sets.json) and a resume whose scenario file changed is refused (exit
 * 2); the sets generated for the run are read back from the run directory, never generated
 * again; and a finished run resumed from a copy of its directory names the copy.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { keepScenarioRecord, readScenarioRecord, scenarioRecord, SCENARIO_RECORD_FILE } from "../../src/train/scenario-record.js";
import type { Scenario } from "../../src/scenarios/schema.js";
import { calculatorScenarios, cli, tempDir, tinyModelDir, tinyRunArgs } from "./helpers.js";

const tinyRun = (model: string, out: string, steps: number, more: string[]) => tinyRunArgs(model, out, steps, ["--groups-per-step", "1", ...more]);

const lastJson = (stdout: string) => JSON.parse(stdout.trim().split("\n").pop()!) as Record<string, unknown>;

describe("resume and the run's scenarios", () => {
  let model: string;
  beforeAll(() => {
    model = tinyModelDir(2);
  });

  it("refuses a resume whose scenario file changed since the run started (exit 2, the file named); goes on once it is restored", async () => {
    const file = calculatorScenarios(6, 2);
    const original = fs.readFileSync(file);
    const out = path.join(tempDir("changed"), "run");
    const first = await cli(tinyRun(model, out, 1, ["--scenarios", file, "--quiet"]));
    expect(first.code, first.stderr).toBe(0);
    const record = readScenarioRecord(out)!;
    expect(record.sources.map((s) => s.file)).toEqual([file]);
    expect(record.heldout_ids).toHaveLength(2);
    expect(record.train_ids).toHaveLength(6);

    // another set in the same file, as `scenarios generate --out` over it writes
    fs.copyFileSync(calculatorScenarios(3, 3), file);
    const resumed = await cli(["train", "--resume", out, "--steps", "2", "--quiet", "--json"]);
    expect(resumed.code).toBe(2);
    expect(resumed.stdout).toBe("");
    expect(resumed.stderr).toBe(
      `train-mcp: --resume ${out}: the run's scenarios changed since it started: ${file} is not the file it started with ` +
        `(held-out set: 2 scenarios then, 2 now, 2 of them the same; training set: 6 then, 3 now); ` +
        `"before RL" was measured on the scenarios it started with, so "after RL" must be too: ` +
        `restore ${file} as it was when the run started, or start a new run (another --out) on the new scenarios\n`,
    );
    // nothing of the run was touched
    expect(readScenarioRecord(out)).toEqual(record);
    // the changes a refused resume asked for are not said to be taken
    const loud = await cli(["train", "--resume", out, "--steps", "2", "--json"]);
    expect(loud.code).toBe(2);
    expect(loud.stderr).toContain("the run's scenarios changed since it started");
    expect(loud.stderr).not.toContain("resumed with changes");

    fs.writeFileSync(file, original);
    const restored = await cli(["train", "--resume", out, "--steps", "2", "--json"]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stderr).toContain("resumed with changes (saved in config.json once the run goes on): max_steps 1 → 2\n");
    expect(lastJson(restored.stdout)).toMatchObject({ steps: 2, heldout_n: 2 });
  });

  it("resumes a run made before the record unchecked, with a note, and records its sets from then on", async () => {
    const file = calculatorScenarios(6, 2);
    const out = path.join(tempDir("old"), "run");
    expect((await cli(tinyRun(model, out, 1, ["--scenarios", file, "--quiet"]))).code).toBe(0);
    const record = readScenarioRecord(out);
    fs.rmSync(path.join(out, SCENARIO_RECORD_FILE));
    const resumed = await cli(["train", "--resume", out, "--steps", "2", "--json"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`note: ${out} keeps no record of the scenarios it started with (${SCENARIO_RECORD_FILE}; a run of an earlier version)`);
    expect(readScenarioRecord(out)).toEqual(record);
  });

  it("reads the training sets generated for the run back on --resume instead of generating them again", async () => {
    const out = path.join(tempDir("generated"), "run");
    const first = await cli(tinyRun(model, out, 1, ["--generate-train-scenarios", "12"]));
    expect(first.code, first.stderr).toBe(0);
    const generated = path.join(out, "scenarios-train-0.jsonl");
    expect(first.stderr).toContain("generating 12 execution-verified training scenarios");
    // one task fewer than the generator writes: a resume that generated again would write it back
    const lines = fs.readFileSync(generated, "utf8").trim().split("\n");
    expect(lines.length).toBeGreaterThan(2);
    const marked = lines.slice(0, -1).join("\n") + "\n";
    fs.writeFileSync(generated, marked);
    fs.rmSync(path.join(out, SCENARIO_RECORD_FILE)); // (the cut changed the file the record names)
    const resumed = await cli(["train", "--resume", out, "--steps", "2", "--json"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).not.toContain("generating");
    expect(resumed.stderr).toContain(generated);
    expect(fs.readFileSync(generated, "utf8")).toBe(marked);
    expect(lastJson(resumed.stdout).steps).toBe(2);
  });

  it("a resume whose generated set is gone is refused (exit 2) without generating a new one into the run", async () => {
    const out = path.join(tempDir("gone-generated"), "run");
    const first = await cli(tinyRun(model, out, 1, ["--generate-train-scenarios", "6", "--quiet"]));
    expect(first.code, first.stderr).toBe(0);
    const generated = path.join(out, "scenarios-train-0.jsonl");
    fs.rmSync(generated);
    const resumed = await cli(["train", "--resume", out, "--steps", "2"]);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain(`train-mcp: ${generated} is gone: the run generated it when it started and its other files refer to it, so a resume does not generate it again; restore it (or start a new run)`);
    expect(resumed.stderr).not.toContain("generating");
    expect(fs.existsSync(generated)).toBe(false);
  });

  it("a start that fails after its scenarios are loaded takes their record away with the rest (an --out made beforehand stays empty)", async () => {
    const made = tempDir("made-before");
    const config = path.join(tempDir("zero"), "c.json");
    const zero = { verifier: 0, ruler: 0, format: 0, tool_validity: 0, tool_errors: 0, efficiency: 0, safety: 0, reference_calls: 0 };
    fs.writeFileSync(config, JSON.stringify({ rewards: { weights: zero } }));
    const r = await cli(tinyRun(model, made, 1, ["--scenarios", calculatorScenarios(4, 1), "--config", config, "--quiet"]));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("every reward component of this run has weight 0");
    expect(fs.readdirSync(made)).toEqual([]);
  });

  it("a finished run resumed from a copy of its directory names the copy, not the original", async () => {
    const file = calculatorScenarios(4, 2);
    const out = path.join(tempDir("copied"), "run");
    const first = await cli(tinyRun(model, out, 1, ["--scenarios", file, "--quiet"]));
    expect(first.code, first.stderr).toBe(0);
    expect(lastJson(first.stdout)).toMatchObject({ run_dir: out, report: path.join(out, "report.html") });
    const copy = `${out}-copy`;
    fs.cpSync(out, copy, { recursive: true });
    const resumed = await cli(["train", "--resume", copy, "--json"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain("the run is finished (1/1 steps): nothing to resume");
    const summary = lastJson(resumed.stdout);
    expect(summary).toMatchObject({ run_dir: copy, report: path.join(copy, "report.html"), steps: 1 });
    expect(JSON.parse(fs.readFileSync(path.join(copy, "summary.json"), "utf8"))).toMatchObject({ run_dir: copy, report: path.join(copy, "report.html") });
    // the original's summary is its own
    expect(JSON.parse(fs.readFileSync(path.join(out, "summary.json"), "utf8"))).toMatchObject({ run_dir: out });
  });
});

describe("keepScenarioRecord", () => {
  const scenario = (id: string, split: "train" | "test") => ({ id, split }) as Scenario;
  const setup = (lines: string) => {
    const dir = tempDir("record");
    const file = path.join(dir, "tasks.jsonl");
    fs.writeFileSync(file, lines);
    return { dir, file };
  };

  it("takes changed sets when the run has no checkpoint yet (it starts over on them), and records them", () => {
    const { dir, file } = setup("a\n");
    const o = { bundledDir: "/nowhere", hasCheckpoint: false };
    expect(keepScenarioRecord(dir, scenarioRecord([file], [scenario("t1", "train")], [scenario("h1", "test")]), { ...o, resume: false })).toBeUndefined();
    fs.writeFileSync(file, "b\n");
    const now = scenarioRecord([file], [scenario("t2", "train")], [scenario("h1", "test")]);
    expect(keepScenarioRecord(dir, now, { ...o, resume: true })).toBe(
      `note: the run's scenarios changed since it started (${file} is not the file it started with (held-out set: 1 scenarios then, 1 now, 1 of them the same; training set: 1 then, 1 now)); it has no checkpoint yet, so it starts over on the ones loaded now`,
    );
    expect(readScenarioRecord(dir)).toEqual(now);
  });

  it("takes a file re-indented or given blank lines as the same file; a changed value is not", () => {
    const line = (v: number) => JSON.stringify({ id: "t1", task: "What is 2+2?", expected: [{ kind: "numeric", value: v }] });
    const { dir, file } = setup(`${line(4)}\n`);
    const record = () => scenarioRecord([file], [scenario("t1", "train")], []);
    keepScenarioRecord(dir, record(), { resume: false, hasCheckpoint: false, bundledDir: "/nowhere" });
    fs.writeFileSync(file, `\n${JSON.stringify(JSON.parse(line(4)), null, 1).replace(/\n/g, "")}  \r\n\n`);
    expect(keepScenarioRecord(dir, record(), { resume: true, hasCheckpoint: true, bundledDir: "/nowhere" })).toBeUndefined();
    fs.writeFileSync(file, `${line(5)}\n`);
    expect(() => keepScenarioRecord(dir, record(), { resume: true, hasCheckpoint: true, bundledDir: "/nowhere" })).toThrow(/is not the file it started with/);
  });

  it("takes a line with its keys reordered as the same; a record written before keys were sorted still resumes", () => {
    const task = { id: "t1", task: "What is 2+2?", expected: [{ kind: "numeric", value: 4 }] };
    const { dir, file } = setup(`${JSON.stringify(task)}\n`);
    const record = () => scenarioRecord([file], [scenario("t1", "train")], []);
    keepScenarioRecord(dir, record(), { resume: false, hasCheckpoint: false, bundledDir: "/nowhere" });
    // as `jq -c -S` writes it
    fs.writeFileSync(file, `${JSON.stringify({ expected: [{ kind: "numeric", value: 4 }], id: "t1", task: "What is 2+2?" })}\n`);
    expect(keepScenarioRecord(dir, record(), { resume: true, hasCheckpoint: true, bundledDir: "/nowhere" })).toBeUndefined();
    // a record of the version before: its hash kept each line's own key order
    fs.writeFileSync(file, `${JSON.stringify(task)}\n`);
    const legacy = { ...record(), hash: undefined, sources: [{ file, sha256: createHash("sha256").update(`${JSON.stringify(task)}\n`).digest("hex") }] };
    fs.writeFileSync(path.join(dir, SCENARIO_RECORD_FILE), JSON.stringify(legacy));
    expect(keepScenarioRecord(dir, record(), { resume: true, hasCheckpoint: true, bundledDir: "/nowhere" })).toBeUndefined();
    fs.writeFileSync(file, `${JSON.stringify({ ...task, task: "What is 2+3?" })}\n`);
    expect(() => keepScenarioRecord(dir, record(), { resume: true, hasCheckpoint: true, bundledDir: "/nowhere" })).toThrow(/is not the file it started with/);
  });

  it("says so when a set generated for the run, or a bundled one, changed", () => {
    const { dir, file } = setup("a\n");
    const generated = path.join(dir, "scenarios-train-0.jsonl");
    fs.writeFileSync(generated, "g\n");
    const bundled = setup("c\n");
    const record = () => scenarioRecord([bundled.file, file, generated], [], []);
    keepScenarioRecord(dir, record(), { resume: false, hasCheckpoint: false, bundledDir: bundled.dir });
    fs.writeFileSync(generated, "h\n");
    expect(() => keepScenarioRecord(dir, record(), { resume: true, hasCheckpoint: true, bundledDir: bundled.dir })).toThrow(
      /scenarios-train-0\.jsonl was generated for this run when it started: restore it from a copy of the run directory, or start a new run \(another --out\)$/,
    );
    fs.writeFileSync(generated, "g\n");
    fs.writeFileSync(bundled.file, "d\n");
    expect(() => keepScenarioRecord(dir, record(), { resume: true, hasCheckpoint: true, bundledDir: bundled.dir })).toThrow(/this version of train-mcp bundles another set than the one the run started with/);
    fs.writeFileSync(bundled.file, "c\n");
    expect(keepScenarioRecord(dir, record(), { resume: true, hasCheckpoint: true, bundledDir: bundled.dir })).toBeUndefined();
  });
});
