/**
 * The report's reading and building, on a generated run directory (make-run.ts): the JSONL
 * reader survives a cut last line and says so, the sample keeps every before/after eval
 * rollout under a cap, no secret reaches the HTML, and the page's data cannot break out of
 * its script element. The real CLI is run for `train-mcp report`.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, readdirSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TrainMcpError } from "../../src/errors.js";
import { buildReport } from "../../src/report/build-report.js";
import { jsonForScript } from "../../src/report/html.js";
import { rewardWeights } from "../../src/report/page-data.js";
import { DEFAULT_WEIGHTS } from "../../src/rewards/defaults.js";
import { readJsonl } from "../../src/report/jsonl.js";
import { readRun } from "../../src/report/read-run.js";
import { MetricsLineSchema } from "../../src/report/run-files.js";
import { sampleTrajectories, spreadOrder } from "../../src/report/sample.js";
import { isSecretKey, scrubSecrets } from "../../src/report/scrub.js";
import { INJECTED, makeRun, SECRETS, TRAIN_STEPS, type FakeRun } from "./make-run.js";

let root: string;
let run: FakeRun;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "report-test-"));
  run = makeRun(join(root, "run"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** the JSON embedded in a report page */
function pageData(html: string): { trajectories: Array<{ id: string; label?: string; step: number; phase?: string }>; notes: Array<{ message: string }>; config: Record<string, unknown> } {
  const m = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html);
  if (!m) throw new Error("no report-data block");
  return JSON.parse(m[1]);
}

describe("reading a run", () => {
  it("skips a cut last JSONL line and reports it as truncated", async () => {
    const seen: number[] = [];
    const r = await readJsonl(join(run.dir, "metrics.jsonl"), "metrics.jsonl", MetricsLineSchema, (l) => seen.push(l.value.step));
    expect(seen).toEqual(run.metrics.map((m) => m.step));
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatchObject({ line: TRAIN_STEPS + 1, truncated: true });
  });

  it("tells a cut last line (no newline) from an invalid line in the middle", async () => {
    const file = join(root, "mixed.jsonl");
    writeFileSync(file, '{"step":1,"time":"t"}\n{"step":"two","time":"t"}\nnot json\n{"step":4,"time":"t"}\n{"step":5,');
    const r = await readJsonl(file, "mixed.jsonl", MetricsLineSchema, () => undefined);
    expect(r.problems.map((p) => [p.line, p.truncated])).toEqual([[2, false], [3, false], [5, true]]);
    expect(r.problems[0].message).toMatch(/field "step"/);
  });

  it("collects metrics, evals and notes; never throws on a partial run", async () => {
    const data = await readRun(run.dir);
    expect(data.metrics).toHaveLength(TRAIN_STEPS);
    expect(data.evals.map((e) => e.label)).toEqual(["base", "before", "periodic", "after"]);
    expect(data.notes.map((n) => n.message)).toContain("metrics.jsonl:31: last line is incomplete (the run was probably stopped mid-write); ignored");

    const partial = join(root, "partial");
    mkdirSync(partial);
    writeFileSync(join(partial, "metrics.jsonl"), readFileSync(join(run.dir, "metrics.jsonl")));
    writeFileSync(join(partial, "config.json"), "{ not json");
    const result = await buildReport(partial);
    expect(existsSync(result.path)).toBe(true);
    expect(result.notes.join("\n")).toMatch(/config\.json is not valid JSON/);
    expect(result.notes.join("\n")).toMatch(/eval\.jsonl is missing/);
    expect(result.notes.join("\n")).toMatch(/trajectories\.jsonl is missing/);
    expect(result.notes.join("\n")).toMatch(/no summary\.json yet/);
    expect(readdirSync(partial).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("keeps the later line of a step a resumed run wrote twice", async () => {
    const resumed = join(root, "resumed");
    mkdirSync(resumed);
    const line = (step: number, v: number) => JSON.stringify({ step, time: "2026-11-30T05:00:00Z", "reward/total": v });
    writeFileSync(join(resumed, "metrics.jsonl"), [line(1, 0.1), line(2, 0.2), line(3, 0.3), line(2, 0.25), line(3, 0.35), line(4, 0.4)].join("\n") + "\n");
    const data = await readRun(resumed);
    expect(data.metrics.map((m) => [m.step, m["reward/total"]])).toEqual([[1, 0.1], [2, 0.25], [3, 0.35], [4, 0.4]]);
    expect(data.notes.map((n) => n.message).join("\n")).toMatch(/2 steps appear twice/);
  });

  it("refuses a path that is not a run directory with a usage error", async () => {
    await expect(readRun(join(root, "nope"))).rejects.toThrow(/run directory not found/);
    const empty = join(root, "empty");
    mkdirSync(empty);
    const err = await readRun(empty).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrainMcpError);
    expect((err as TrainMcpError).usage).toBe(true);
    expect((err as Error).message).toMatch(/is not a run directory: none of config\.json, metrics\.jsonl/);
  });
});

describe("sampling trajectories", () => {
  // the labels src/train/loop.ts writes for the evaluations before and after RL ("base": the
  // warm-start probe, the before-RL measurement itself when no warm start follows)
  const pinnedIds = (): string[] => run.trajectories.filter((t) => t.label === "base" || t.label === "before" || t.label === "after").map((t) => t.id);

  it("embeds everything under the cap, dropping token arrays, and notes the bad and cut lines", async () => {
    const s = await sampleTrajectories(run.dir);
    expect(s.stats).toMatchObject({ total: run.trajectories.length, embedded: run.trajectories.length, capped: false, pinned: 32, pinnedByLabel: { base: 12, before: 10, after: 10 } });
    expect(s.trajectories[0]).not.toHaveProperty("tokenIds");
    expect(s.trajectories[0]).not.toHaveProperty("sampleLogprobs");
    const notes = s.notes.map((n) => n.message).join("\n");
    expect(notes).toMatch(/trajectories\.jsonl:51: field "scenarioId"/);
    expect(notes).toMatch(/trajectories\.jsonl:\d+: last line is incomplete/);
  });

  it("keeps every base/before/after eval rollout and spreads the rest over the steps", async () => {
    const s = await sampleTrajectories(run.dir, { maxTrajectories: 62 });
    expect(s.trajectories).toHaveLength(62);
    const ids = new Set(s.trajectories.map((t) => t.id));
    for (const id of pinnedIds()) expect(ids.has(id)).toBe(true);
    const trainSteps = new Set(s.trajectories.filter((t) => t.label === undefined).map((t) => t.step));
    // 30 free slots over 30 steps: every step once
    expect(trainSteps.size).toBe(TRAIN_STEPS);
    expect(s.stats.capped).toBe(true);
    // the counts are the file's, per label
    expect(s.notes.map((n) => n.message)).toContain(
      `showing 62 of ${run.trajectories.length} trajectories: all 32 evaluation rollouts labelled base (12), before (10) and after (10), the rest sampled evenly over ${TRAIN_STEPS} training steps (${TRAIN_STEPS} represented)`,
    );

    const few = await sampleTrajectories(run.dir, { maxTrajectories: 39 });
    const fewSteps = few.trajectories.filter((t) => t.label === undefined).map((t) => t.step).sort((a, b) => a - b);
    expect(fewSteps).toHaveLength(7);
    // spread over the run, not the first seven steps
    expect(fewSteps[fewSteps.length - 1] - fewSteps[0]).toBeGreaterThan(TRAIN_STEPS / 2);

    const tiny = await sampleTrajectories(run.dir, { maxChars: 10 });
    expect(tiny.trajectories.map((t) => t.id).sort()).toEqual(pinnedIds().sort());

    // 0: none at all, the before/after evaluations' too
    const none = await sampleTrajectories(run.dir, { maxTrajectories: 0 });
    expect(none.trajectories).toEqual([]);
    expect(none.notes.map((n) => n.message)).toContain(`no trajectories embedded (at most 0 asked for) of the ${s.stats.total} in trajectories.jsonl`);
  });

  it("orders indices van der Corput style", () => {
    expect(spreadOrder(8)).toEqual([0, 4, 2, 6, 1, 5, 3, 7]);
    expect(spreadOrder(5).sort()).toEqual([0, 1, 2, 3, 4]);
    expect(spreadOrder(0)).toEqual([]);
  });

  it("cuts very long strings", async () => {
    const s = await sampleTrajectories(run.dir, { maxStringChars: 10 });
    const sys = s.trajectories[0].messages[0].content;
    expect(sys.startsWith("You are an")).toBe(true);
    expect(sys).toMatch(/\[cut: \d+ more characters\]$/);
  });
});

describe("secrets and escaping", () => {
  it("recognizes secret keys and keeps numbers and look-alikes", () => {
    for (const k of ["api_key", "apiKey", "OPENAI_API_KEY", "hf_token", "Authorization", "password", "client_secret", "token", "cookie"]) expect(isSecretKey(k), k).toBe(true);
    for (const k of ["tokenizer", "model", "keywords", "max_steps", "base_url"]) expect(isSecretKey(k), k).toBe(false);
    expect(scrubSecrets({ max_tokens: 512, api_key: "abc", nested: [{ token: "x" }], note: `use Bearer ${SECRETS[1]}` })).toEqual({
      max_tokens: 512,
      api_key: "[redacted]",
      nested: [{ token: "[redacted]" }],
      note: "use [redacted]",
    });
  });

  it("writes a report with no secret, no token arrays and the data safely embedded", async () => {
    const out = join(root, "out", "page.html");
    const result = await buildReport(run.dir, { out });
    expect(result.path).toBe(out);
    const html = readFileSync(out, "utf8");
    expect(result.bytes).toBe(Buffer.byteLength(html));
    for (const s of SECRETS) expect(html).not.toContain(s);
    expect(html).not.toContain("tokenIds");
    // exactly three script elements end: data, chart.js, the page script
    expect(html.match(/<\/script>/g)).toHaveLength(3);
    expect(html).not.toContain(INJECTED);
    expect(html).not.toMatch(/sourceMappingURL/);
    const data = pageData(html);
    expect(data.config).toMatchObject({ max_tokens: 512, tokenizer: "bundled-bpe", hf_token: "[redacted]", judge: { api_key: "[redacted]", model: "judge" } });
    // the data holds the text itself; only the page's bytes escape it
    const results = (data.trajectories as unknown as Array<{ toolCalls: Array<{ result: string }> }>).flatMap((t) => t.toolCalls.map((c) => c.result));
    expect(results.includes(INJECTED)).toBe(true);
    expect(result.trajectories).toBe(run.trajectories.length);
  });

  it("carries the text of a turn whose tool-call markup did not parse to the viewer, which shows it", async () => {
    const dir = join(root, "raw-run");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "config.json"), JSON.stringify({ server: ["fixture:calculator"], max_steps: 1 }));
    const raw = '<tool_call>{"name": "calculate", "arguments": {"expression": }</tool_call>';
    const messages = [
      { role: "user", content: "What is 1+1?" },
      { role: "assistant", content: "", raw_content: raw },
      { role: "tool", content: "Error: tool_call 1: invalid JSON" },
    ];
    const t = { id: "t1", scenarioId: "s", groupId: "g", step: 1, phase: "grpo", messages, tokenIds: [], assistantMask: [], sampleLogprobs: [], toolCalls: [], finish: "max_turns", turns: 1 };
    writeFileSync(join(dir, "trajectories.jsonl"), JSON.stringify(t) + "\n");
    const html = readFileSync((await buildReport(dir)).path, "utf8");
    const shown = pageData(html).trajectories as unknown as Array<{ messages: Array<{ raw_content?: string }> }>;
    expect(shown[0].messages[1].raw_content).toBe(raw);
    expect(html).toContain("m.raw_content"); // the viewer renders it in place of the content
  });

  it("embeds the reward weights the run used, so weight-0 components read as logged only", async () => {
    const html = readFileSync((await buildReport(run.dir, { out: join(root, "weights.html") })).path, "utf8");
    // DEFAULT_WEIGHTS under the config's override (ruler: 2)
    expect((pageData(html) as unknown as { rewardWeights: Record<string, number> }).rewardWeights).toEqual({ ...DEFAULT_WEIGHTS, ruler: 2 });
    expect(rewardWeights({ max_steps: 1 })).toBeNull(); // the config does not say
    expect(rewardWeights(null)).toBeNull();
  });

  it("escapes every < in embedded JSON", () => {
    const s = jsonForScript({ a: "</script><!-- x" });
    expect(s).not.toContain("<");
    expect(JSON.parse(s)).toEqual({ a: "</script><!-- x" });
  });
});

describe("train-mcp report (the real CLI)", () => {
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, [join(process.cwd(), "bin", "train-mcp.mjs"), "report", ...args], { encoding: "utf8", timeout: 60_000 });

  it("builds the report and prints where it is", () => {
    const out = join(root, "cli", "r.html");
    const r = cli(run.dir, "--out", out);
    expect(r.stderr).toMatch(/note: metrics\.jsonl:31: last line is incomplete/);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`report: ${out.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(\\d+\\.\\d MB, ${run.trajectories.length} trajectories\\)`));
    expect(existsSync(out)).toBe(true);
  });

  it("exits 2 with a clear message for a directory that is not a run", () => {
    // (a missing directory takes the same path; its message is checked in "reading a run")
    const notRun = cli(join(root, "cli"));
    expect(notRun.status).toBe(2);
    expect(notRun.stderr).toMatch(/^train-mcp: .*cli is not a run directory: none of config\.json/);
  });

  it("exits 2 for an --out that is a folder, before reading the run", () => {
    const folder = join(root, "cli");
    mkdirSync(folder, { recursive: true });
    const r = cli(run.dir, "--out", folder);
    expect([r.status, r.stderr]).toEqual([2, `train-mcp: --out ${folder} is a folder: name the file (.html) to write\n`]);
  });
});
