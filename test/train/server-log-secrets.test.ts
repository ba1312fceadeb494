/**
 * A server that prints its environment: the values of secret-named `--env` variables given to it
 * do not reach the run's server.log (the rest of what it printed does). A secret written on the
 * server's command line reaches no file of the run, and a resume asks for it again.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveTrainConfig } from "../../src/train/config.js";
import { train } from "../../src/train/loop.js";
import { startEverything, stdioTarget } from "../servers/launch.js";
import { tempDir, tinyModelDir } from "./helpers.js";

const CMDLINE_KEY = "sk-cmdline-0123456789abcdef";

describe("server.log of a run", () => {
  it("keeps what the server printed, without the values of secret-named --env variables", async () => {
    const scenarios = path.join(tempDir("echo-scenarios"), "echo.jsonl");
    const task = (id: string, split: string) => JSON.stringify({ id, task: `Echo the word ${id}.`, difficulty: 1, split, tags: [], expected: [{ kind: "contains", value: id }] });
    fs.writeFileSync(scenarios, [task("alpha", "train"), task("beta", "train"), task("gamma", "test")].join("\n") + "\n");
    const out = path.join(tempDir("secret-log"), "run");
    const config = resolveTrainConfig({
      server: [stdioTarget("everything", "--log-env", "--api-key", CMDLINE_KEY, "--region", "eu")], model: tinyModelDir(), scenarios: [scenarios], out, seed: 1, sft: "off",
      max_steps: 1, groups_per_step: 1, num_generations: 2, max_turns: 1, max_tokens_per_turn: 8, engine: "tfjs",
    });
    const lines: string[] = [];
    await train({ config, connect: { env: { SERVICE_API_KEY: "sk-live-0123456789", REGION: "eu-west-1" } }, hooks: { log: (l) => lines.push(l) } });
    const log = fs.readFileSync(path.join(out, "server.log"), "utf8");
    expect(log).toContain("everything: stdio server ready");
    expect(log).toContain('"SERVICE_API_KEY":"***"');
    expect(log).not.toContain("sk-live-0123456789");
    expect(log).toContain('"REGION":"eu-west-1"'); // not a secret by its name
    expect(log).toContain('"--api-key","***","--region","eu"'); // the server echoed its arguments

    // the command line's secret: in no file of the run, in no log line
    const files = fs.readdirSync(out, { recursive: true, encoding: "utf8" }).map((f) => path.join(out, f)).filter((f) => fs.statSync(f).isFile());
    expect(files.map((f) => path.basename(f))).toEqual(expect.arrayContaining(["config.json", "trajectories.jsonl", "report.html"]));
    for (const f of files) expect(fs.readFileSync(f).includes(CMDLINE_KEY), f).toBe(false);
    expect(lines.join("\n")).not.toContain(CMDLINE_KEY);
    const saved = JSON.parse(fs.readFileSync(path.join(out, "config.json"), "utf8")) as { server: string[] };
    expect(saved.server[0]).toMatch(/ --log-env --api-key \[redacted\] --region eu$/);

    // the --env names are saved, never their values; a resume without them is warned
    expect((saved as { server_env_names?: string[] }).server_env_names).toEqual(["SERVICE_API_KEY", "REGION"]);
    const again: string[] = [];
    await train({ config: { ...config, max_steps: 2 }, resume: true, connect: { env: { REGION: "eu-west-1" } }, hooks: { log: (l) => again.push(l) } });
    expect(again).toContain("warning: the run's servers were given --env SERVICE_API_KEY, which this resume does not give (values are never saved): they start without it; pass --env SERVICE_API_KEY=… again");

    // so a resume cannot start that server again by itself
    const r = spawnSync(process.execPath, ["bin/train-mcp.mjs", "--resume", out], { encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${out}/config.json keeps ${saved.server[0]} without its credentials: pass --server with them again to resume`);
  });

  it("keeps the names of -H headers, never their values, and a resume without one warns", async () => {
    const http = await startEverything("http");
    try {
      const scenarios = path.join(tempDir("header-scenarios"), "echo.jsonl");
      const task = (id: string, split: string) => JSON.stringify({ id, task: `Echo the word ${id}.`, difficulty: 1, split, tags: [], expected: [{ kind: "contains", value: id }] });
      fs.writeFileSync(scenarios, [task("alpha", "train"), task("beta", "train"), task("gamma", "test")].join("\n") + "\n");
      const out = path.join(tempDir("header-run"), "run");
      const config = resolveTrainConfig({
        server: [http.url], model: tinyModelDir(), scenarios: [scenarios], out, seed: 1, sft: "off",
        max_steps: 1, groups_per_step: 1, num_generations: 2, max_turns: 1, max_tokens_per_turn: 8, engine: "tfjs",
      });
      await train({ config, connect: { headers: { Authorization: `Bearer ${CMDLINE_KEY}` } }, hooks: { log: () => undefined } });
      const text = fs.readFileSync(path.join(out, "config.json"), "utf8");
      expect(text).not.toContain(CMDLINE_KEY);
      expect((JSON.parse(text) as { server_header_names?: string[] }).server_header_names).toEqual(["Authorization"]);
      const again: string[] = [];
      await train({ config: { ...config, max_steps: 2 }, resume: true, hooks: { log: (l) => again.push(l) } });
      expect(again).toContain("warning: the run's servers were given -H Authorization, which this resume does not give (values are never saved): requests go without it; pass -H 'Authorization: …' again");
      // given again (in any case): no warning
      const third: string[] = [];
      await train({ config: { ...config, max_steps: 3 }, resume: true, connect: { headers: { authorization: `Bearer ${CMDLINE_KEY}` } }, hooks: { log: (l) => third.push(l) } });
      // (the warning itself: a temp folder's random name may hold "-H" too)
      expect(third.filter((l) => l.includes("were given -H"))).toEqual([]);
    } finally {
      await http.close();
    }
  }, 180_000);
});
