/**
 * Re-picks the pinned seeds of test/scenarios/llm-serve.test.ts after a change to the generator's
 * prompt or schema, the tokenizer, the sampler or the constraint: runs the LLM generator (n = 1,
 * two requests at most) against `serve` with the built-in model's seeded random init, one seed
 * after another, and prints what each gave. Wanted: one seed with one request and one scenario,
 * and one whose replies hold no tasks (0 received); the quicker the better.
 *   npx tsx scripts/pick-llm-serve-seeds.ts [FROM] [TO]
 */
import { connect } from "../src/mcp/connect.js";
import { generateWithLlm } from "../src/scenarios/llm/generate.js";
import { startServer } from "../src/serve/server.js";
import { untrainedDefaultModelDir } from "../test/train/helpers.js";

const calc = await connect("fixture:calculator");
const serve = await startServer({ model: untrainedDefaultModelDir(3), servedModelName: "default", port: 0, engine: "tfjs" });
for (let seed = Number(process.argv[2] ?? 1); seed <= Number(process.argv[3] ?? 12); seed++) {
  const t0 = performance.now();
  const took = () => `${((performance.now() - t0) / 1000).toFixed(1)} s`;
  try {
    const r = await generateWithLlm(calc.tools, { baseUrl: serve.url, model: "default", n: 1, seed, maxRequests: 2, retryDelayMs: 5, server: "fixture:calculator" });
    console.log(`seed ${seed}: ${r.requests} request(s), ${r.scenarios.length} scenario (difficulty ${r.scenarios[0].difficulty}, ${r.scenarios[0].expected ? "expected" : "no expected"}), rejected ${JSON.stringify(r.rejected)}, ${took()}`);
  } catch (e) {
    console.log(`seed ${seed}: ${(e as Error).message.slice(0, 140)}…, ${took()}`);
  }
}
await serve.close();
await calc.close();
