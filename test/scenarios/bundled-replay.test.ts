/**
 * The bundled scenario files replayed on fresh real servers. ALL scenarios of the stateless,
 * fast servers (calculator, knowledge) are replayed; for shop (every 16th), code-runner (every
 * 8th) and codefix (every 5th) — a fresh process or a sandboxed run per scenario — a fixed,
 * evenly spread sample is, to keep the suite short. `train-mcp scenarios check scenarios/<f>.jsonl --server fixture:<f>` replays them all.
 */
import { afterAll, describe, expect, it } from "vitest";
import { connect } from "../../src/mcp/connect.js";
import type { Toolbox } from "../../src/mcp/types.js";
import { bundledPath, type BundledSet } from "../../src/scenarios/bundled.js";
import { readScenarioFile } from "../../src/scenarios/io.js";
import { replayMutates, replayScenario } from "../../src/scenarios/replay.js";
import type { Scenario } from "../../src/scenarios/schema.js";

const open: Toolbox[] = [];
afterAll(async () => {
  for (const t of open) await t.close();
});

/** Every k-th scenario. */
function sample(list: Scenario[], every: number): Scenario[] {
  return list.filter((_, i) => i % every === 0);
}

const PLAN: Array<{ fixture: BundledSet["fixture"]; every: number; stateful: boolean; timeout: number }> = [
  { fixture: "calculator", every: 1, stateful: false, timeout: 60_000 },
  { fixture: "knowledge", every: 1, stateful: false, timeout: 60_000 },
  { fixture: "shop", every: 16, stateful: true, timeout: 120_000 },
  { fixture: "code-runner", every: 8, stateful: false, timeout: 60_000 },
  { fixture: "codefix", every: 5, stateful: true, timeout: 180_000 },
];

describe("bundled scenario files replay on fresh servers", () => {
  for (const p of PLAN) {
    it(
      `${p.fixture}: ${p.every === 1 ? "every" : `every ${p.every}th`} reference solution reproduces its expected outcome`,
      async () => {
        const list = sample(readScenarioFile(bundledPath(p.fixture)), p.every);
        const toolbox = await connect(`fixture:${p.fixture}`);
        open.push(toolbox);
        const failures: string[] = [];
        for (const s of list) {
          const b = p.stateful && replayMutates(s) ? await toolbox.isolated() : toolbox;
          try {
            const r = await replayScenario(b, s);
            if (!r.pass) failures.push(`${s.id}: ${r.detail}`);
            else if (r.unconfirmed) failures.push(`${s.id}: no result states ${r.unconfirmed.join(", ")}`);
          } finally {
            if (b !== toolbox) await b.close();
          }
        }
        expect(failures).toEqual([]);
        expect(list.length).toBeGreaterThan(0);
        // The sample reaches the hand-written codefix repairs too.
        if (p.fixture === "codefix") expect(list.filter((s) => s.tags.includes("hand-written")).length).toBeGreaterThanOrEqual(2);
      },
      p.timeout,
    );
  }
});
