/**
 * A server that prints its environment: the values of secret-named `--env` variables given to it
 * do not reach the run's server.log (the rest of what it printed does).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveTrainConfig } from "../../src/train/config.js";
import { train } from "../../src/train/loop.js";
import { stdioTarget } from "../servers/launch.js";
import { tempDir, tinyModelDir } from "./helpers.js";

describe("server.log of a run", () => {
  it("keeps what the server printed, without the values of secret-named --env variables", async () => {
    const scenarios = path.join(tempDir("echo-scenarios"), "echo.jsonl");
    const task = (id: string, split: string) => JSON.stringify({ id, task: `Echo the word ${id}.`, difficulty: 1, split, tags: [], expected: [{ kind: "contains", value: id }] });
    fs.writeFileSync(scenarios, [task("alpha", "train"), task("beta", "train"), task("gamma", "test")].join("\n") + "\n");
    const out = path.join(tempDir("secret-log"), "run");
    const config = resolveTrainConfig({
      server: [stdioTarget("everything", "--log-env")], model: tinyModelDir(), scenarios: [scenarios], out, seed: 1, sft: "off",
      max_steps: 1, groups_per_step: 1, num_generations: 2, max_turns: 1, max_tokens_per_turn: 8, engine: "tfjs",
    });
    await train({ config, connect: { env: { SERVICE_API_KEY: "sk-live-0123456789", REGION: "eu-west-1" } }, hooks: { log: () => undefined } });
    const log = fs.readFileSync(path.join(out, "server.log"), "utf8");
    expect(log).toContain("everything: stdio server ready");
    expect(log).toContain('"SERVICE_API_KEY":"***"');
    expect(log).not.toContain("sk-live-0123456789");
    expect(log).toContain('"REGION":"eu-west-1"'); // not a secret by its name
  });
});
