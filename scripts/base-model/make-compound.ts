/**
 * Extra compound-interest rows for the built-in model's base weights, beyond what the verified
 * generator offers. Its calculator.compound recipe draws from 7 principals x 7 rates x 10 years x
 * 2 schedules x 2 questions (1,960 tasks), so a long pretraining sees each of them many times and
 * the model leans on memory where it should copy the tool's number: on held-out tasks it writes
 * amounts with digits missing or taken from the interest line. These rows widen every parameter
 * (principals 50..20,000, rates 1..12 with halves, 1..20 years, quarterly too) and the wording
 * (the recipe's four phrasings plus paraphrases), so copying is the only way to get them right.
 *
 * Solved on the real calculator fixture and rendered exactly as a rollout sees them, like
 * make-corpus.ts. No bundled scenario leaks in: a row whose call equals a bundled scenario's
 * reference call (train or held-out) is dropped.
 *
 *   npx tsx scripts/base-model/make-compound.ts OUT.jsonl N [SEED]
 */
import { createWriteStream } from "node:fs";
import { bundledPath } from "../../src/scenarios/bundled.js";
import { readScenarioFile } from "../../src/scenarios/io.js";
import type { Scenario } from "../../src/scenarios/schema.js";
import { fmt, numericCheck } from "../../src/scenarios/verified/recipe.js";
import { Rng } from "../../src/scenarios/verified/rng.js";
import { loadDefaultTokenizer } from "../../src/policy/default-model/index.js";
import { defaultRewards } from "../../src/rewards/defaults.js";
import { collectDemonstrations } from "../../src/train/sft.js";
import { ServerSet } from "../../src/train/servers.js";
import { DEMO_CONFIG } from "../../src/train/demo.js";

const AMOUNT = [
  "What is ${p} worth after {y} years at {r}% interest, {how}?",
  "If I invest ${p} at {r}% a year, {how}, how much will I have after {y} years?",
  "How much does ${p} grow to in {y} years at {r}% a year, {how}?",
  "What will a deposit of ${p} be worth after {y} years at {r}% interest, {how}?",
  "I put ${p} in a savings account paying {r}% a year, {how}. What is the balance after {y} years?",
  "Find the final amount when ${p} is invested for {y} years at {r}%, {how}.",
  "What total will ${p} reach after {y} years at {r}% interest, {how}?",
];
const INTEREST = [
  "How much interest does ${p} earn at {r}% for {y} years, {how}?",
  "What interest is earned on ${p} over {y} years at {r}% a year, {how}?",
  "How much interest will ${p} earn in {y} years at {r}% a year, {how}?",
  "What is the interest earned on a ${p} deposit after {y} years at {r}%, {how}?",
  "I invest ${p} at {r}% a year, {how}. How much interest do I earn in {y} years?",
  "Find the interest gained on ${p} over {y} years at {r}% interest, {how}.",
];
const SCHEDULES = [
  { how: "compounded yearly", per: undefined, weight: 6 },
  { how: "compounded monthly", per: 12, weight: 3 },
  { how: "compounded quarterly", per: 4, weight: 1 },
] as const;
const RECIPE_PRINCIPALS = [500, 1000, 1500, 2000, 2500, 5000, 10000];

const [out = "", nArg = "", seed = "compound-1"] = process.argv.slice(2);
const n = Number(nArg);
if (!out || !Number.isInteger(n) || n <= 0) {
  process.stderr.write("usage: make-compound.ts OUT.jsonl N [SEED]\n");
  process.exit(2);
}

const callKey = (args: Record<string, unknown>) => JSON.stringify(Object.entries(args).sort(([a], [b]) => a.localeCompare(b)));
const bundledCalls = new Set(
  readScenarioFile(bundledPath("calculator")).flatMap((s) => (s.reference?.calls ?? []).filter((c) => c.name === "compound_interest").map((c) => callKey(c.arguments))),
);

const rng = new Rng(seed);
const fill = (t: string, v: Record<string, string | number>) => t.replace(/\{(\w+)\}/g, (_, k: string) => String(v[k]));
const servers = await ServerSet.connect(["fixture:calculator"], "auto");
const toolbox = servers.entries[0].toolbox;
const scenarios: Scenario[] = [];
const seen = new Set<string>();
try {
  for (let attempt = 0; scenarios.length < n && attempt < n * 4; attempt++) {
    // a third of the principals are the recipe's round ones, so its own tasks stay in view
    const principal = rng.bool(0.35) ? rng.pick(RECIPE_PRINCIPALS) : rng.int(1, 400) * 50;
    const rate = rng.int(2, 24) / 2;
    const years = rng.int(1, 20);
    const schedule = SCHEDULES[rng.weighted(SCHEDULES.map((s) => s.weight))];
    const askInterest = rng.bool(0.4);
    const args: Record<string, unknown> = { principal, rate_percent: rate, years };
    if (schedule.per) args.compounds_per_year = schedule.per;
    const phrasing = rng.pick(askInterest ? INTEREST : AMOUNT);
    const task = fill(phrasing, { p: principal, r: rate, y: years, how: schedule.how });
    if (bundledCalls.has(callKey(args)) || seen.has(task)) continue;
    seen.add(task);
    const r = await toolbox.call("compound_interest", args);
    const data = r.structuredContent as { amount?: unknown; interest?: unknown } | undefined;
    const value = askInterest ? data?.interest : data?.amount;
    if (r.isError || typeof value !== "number") continue;
    scenarios.push({
      id: `compound-${scenarios.length}`,
      task,
      difficulty: 3,
      split: "train",
      tags: ["template:calculator.compound"],
      server: "fixture:calculator",
      expected: [numericCheck(value, { money: true })],
      reference: { calls: [{ name: "compound_interest", arguments: args }], answer: fmt(value) },
    });
  }
  const tokenizer = await loadDefaultTokenizer();
  const { demos, rejected } = await collectDemonstrations(scenarios, tokenizer, servers, {
    systemPrompt: DEMO_CONFIG.system_prompt,
    maxTurns: 2,
    components: defaultRewards({ hasExpectations: true }),
    seed: 1,
    maxConcurrentRollouts: 64,
    toolTimeoutMs: 30_000,
  });
  const sink = createWriteStream(out);
  for (const d of demos) sink.write(JSON.stringify({ fixture: "calculator", template: "template:calculator.compound", ids: d.tokenIds, mask: d.assistantMask }) + "\n");
  await new Promise<void>((r) => sink.end(r));
  process.stderr.write(`${demos.length} compound rows (${rejected} rejected) -> ${out}\n`);
} finally {
  await servers.close();
}
