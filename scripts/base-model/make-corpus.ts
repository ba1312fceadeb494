/**
 * The training corpus of the built-in model's base weights: tasks from the verified generator
 * on the bundled calculator and knowledge fixtures (seeds unlike the bundled sets'), solved by
 * their reference solutions on the real servers and rendered exactly as a rollout would see
 * them (system prompt, tools block, tool results), as token ids plus the assistant mask.
 *
 * No bundled scenario leaks in: a generated task is dropped when its text, or its reference
 * tool calls, equal those of any scenario in scenarios/*.jsonl (train or held-out test).
 *
 *   npx tsx scripts/base-model/make-corpus.ts OUT.jsonl [SEED] [SCALE] [FIXTURE,...]
 *
 * FIXTURE,...: only these (default both); knowledge's generator takes minutes at large scales
 * hunting for tasks the bundled sets do not already hold.
 */
import { createWriteStream } from "node:fs";
import { bundledPath } from "../../src/scenarios/bundled.js";
import { readScenarioFile } from "../../src/scenarios/io.js";
import { templateTag, type Scenario } from "../../src/scenarios/schema.js";
import { generateVerified } from "../../src/scenarios/verified/generate.js";
import { loadDefaultTokenizer } from "../../src/policy/default-model/index.js";
import { defaultRewards } from "../../src/rewards/defaults.js";
import { collectDemonstrations } from "../../src/train/sft.js";
import { ServerSet } from "../../src/train/servers.js";
import { DEMO_CONFIG } from "../../src/train/demo.js";

// tasks generated per fixture: knowledge's fact base offers only about 2,800 distinct ones
const FIXTURES = { calculator: 6000, knowledge: 2400 } as const;
const [out = "", seedArg = "base-1", scaleArg = "1", onlyArg = Object.keys(FIXTURES).join(",")] = process.argv.slice(2);
const only = onlyArg.split(",");
if (!out || only.some((f) => !(f in FIXTURES))) {
  process.stderr.write(`usage: make-corpus.ts OUT.jsonl [SEED] [SCALE] [FIXTURE,...]  (fixtures: ${Object.keys(FIXTURES).join(", ")})\n`);
  process.exit(2);
}

const callsKey = (s: Pick<Scenario, "reference">) => JSON.stringify(s.reference?.calls ?? []);
const tokenizer = await loadDefaultTokenizer();
const sink = createWriteStream(out);
let written = 0;
for (const [fixture, size] of Object.entries(FIXTURES).filter(([f]) => only.includes(f))) {
  const n = Math.round(size * Number(scaleArg));
  const bundled = readScenarioFile(bundledPath(fixture));
  const tasks = new Set(bundled.map((s) => s.task));
  const calls = new Set(bundled.map(callsKey));
  const target = `fixture:${fixture}`;
  const servers = await ServerSet.connect([target], "auto");
  try {
    const t0 = Date.now();
    // all phrasings (the generator's held-out ones too): a base model meets varied wording
    const { scenarios } = await generateVerified(servers.entries[0].toolbox, { n, seed: `${seedArg}-${fixture}`, testFraction: 0.3, server: target, idPrefix: `base-${fixture}` });
    const seen = new Set<string>();
    const fresh = scenarios.filter((s) => {
      const keep = !tasks.has(s.task) && !calls.has(callsKey(s)) && !seen.has(s.task);
      seen.add(s.task);
      return keep;
    });
    const { demos, rejected } = await collectDemonstrations(fresh, tokenizer, servers, {
      systemPrompt: DEMO_CONFIG.system_prompt,
      maxTurns: 4,
      components: defaultRewards({ hasExpectations: true }),
      seed: 1,
      maxConcurrentRollouts: 64,
      toolTimeoutMs: 30_000,
    });
    const template = new Map(fresh.map((s) => [s.id, templateTag(s) ?? ""]));
    for (const d of demos) {
      sink.write(JSON.stringify({ fixture, template: template.get(d.scenarioId), ids: d.tokenIds, mask: d.assistantMask }) + "\n");
      written++;
    }
    process.stderr.write(`${fixture}: ${scenarios.length} generated, ${scenarios.length - fresh.length} repeated or overlapping the bundled sets dropped, ${demos.length} demonstrations (${rejected} rejected) in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  } finally {
    await servers.close();
  }
}
await new Promise<void>((r) => sink.end(r));
process.stderr.write(`${written} sequences -> ${out}\n`);
