/**
 * Secrets written on a stdio server's command line never reach a run's config.json, scenario
 * files, logs or report: a secret-named flag's or variable's value and key-shaped words are
 * replaced, the rest of the command line is kept, and the redacted target still names the same
 * server.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stdioTarget } from "../servers/launch.js";
import { redactCommandWords, redactSecretValues } from "../../src/mcp/command-credentials.js";
import { connect } from "../../src/mcp/connect.js";
import { describeTarget, parseTarget, redactTargetCredentials, sameTarget, splitCommandLine } from "../../src/mcp/target.js";
import { scrubSecrets as scrubForReport } from "../../src/report/scrub.js";
import { RunDir } from "../../src/train/run-dir.js";
import { generateVerified } from "../../src/scenarios/verified/generate.js";
import { scrubSecrets as scrubConfig } from "../../src/train/config.js";

describe("redactTargetCredentials", () => {
  it.each([
    ["node server.js --api-key abc123", "node server.js --api-key [redacted]"],
    ["node server.js --token=abc123 --port 3000", "node server.js --token=[redacted] --port 3000"],
    ["stdio:npx -y @acme/mcp --github-token ghx --read-only", "stdio:npx -y @acme/mcp --github-token [redacted] --read-only"],
    ["env GITHUB_TOKEN=abc DB_PASSWORD=pw REGION=eu node s.js", "env GITHUB_TOKEN=[redacted] DB_PASSWORD=[redacted] REGION=eu node s.js"],
    ["docker run --env=GITHUB_TOKEN=abc -e REGION=eu img", "docker run --env=GITHUB_TOKEN=[redacted] -e REGION=eu img"],
    ["node s.js --api_key=k1 --client-secret s2", "node s.js --api_key=[redacted] --client-secret [redacted]"],
    ["node s.js --auth u:pw --no-auth-cache", "node s.js --auth [redacted] --no-auth-cache"],
    ["node s.js sk_live_51HxyzABCDEFGHIJKLMNOPqr AKIAIOSFODNN7EXAMPLE", "node s.js [redacted] [redacted]"],
    ["node s.js --header 'Authorization: Basic dXNlcjpwYXNz'", "node s.js --header 'Authorization: [redacted]'"],
    ["python server.py sk-proj-AAAAAAAAAAAAAAAAAAAA", "python server.py [redacted]"],
    ["node s.js --header 'Authorization: Bearer abcdefgh12345'", "node s.js --header 'Authorization: [redacted]'"],
    ["node s.js --password 'two words'", "node s.js --password [redacted]"],
    // a vendor's key flag or variable, when its value is shaped like a key
    ["node s.js --openai-key a1B2c3D4e5F6g7H8i9 --brave_key=Zx9Yw8Vu7Ts6Rq5Po4", "node s.js --openai-key [redacted] --brave_key=[redacted]"],
    ["env BRAVE_KEY=Zx9Yw8Vu7Ts6Rq5Po4 node s.js --weather-key 3f2b9c1d8e7a6b5c4d3e2f1a0b9c8d7e", "env BRAVE_KEY=[redacted] node s.js --weather-key [redacted]"],
    ["https://u:p@h.example/mcp?token=t", "https://[redacted]@h.example/mcp?token=[redacted]"],
  ])("%s", (input, want) => {
    expect(redactTargetCredentials(input)).toBe(want);
  });

  it("leaves command lines without secrets exactly as typed", () => {
    for (const t of [
      "node  'my server.js' --port 3000",
      "node s.js --key-file ./k.pem --max-tokens 512 --keyword cats --tokenizer x",
      "node s.js --auth-type basic --bypass yes",
      "npx server --no-auth /data --disable-auth ./root --primary-key id --sort_key=name --tls-key ./key.pem --pass 3",
      "node s.js --ssh-key /home/me/.ssh/id_ed25519 --cache-key build2024 --partition-key customer_id_2024 SORT_KEY=created_at --idempotency-key order_number_for_region_2024",
      "fixture:calculator",
      "stdio:uvx mcp-server-fetch",
    ])
      expect(redactTargetCredentials(t)).toBe(t);
  });

  it("keeps the flag when the next word is another flag, and re-quotes words it rebuilds", () => {
    expect(redactCommandWords(["node", "s.js", "--token", "--verbose"])).toEqual(["node", "s.js", "--token", "--verbose"]);
    const redacted = redactTargetCredentials("node 'my dir/s.js' --api-key k1 --name \"it's\"");
    expect(redacted).toBe("node 'my dir/s.js' --api-key [redacted] --name 'it'\\''s'");
    expect(splitCommandLine(redacted)).toEqual(["node", "my dir/s.js", "--api-key", "[redacted]", "--name", "it's"]);
  });

  it("names the same server as the target typed with its secret, and tells apart two that differ by it", () => {
    const typed = "node s.js --api-key k1 --port 3000";
    expect(sameTarget(redactTargetCredentials(typed), typed)).toBe(true);
    expect(sameTarget("node s.js --api-key k2 --port 3000", typed)).toBe(false);
    expect(sameTarget("node s.js --api-key k1 --port 3001", typed)).toBe(false);
    expect(describeTarget(parseTarget(typed))).toBe("node s.js --api-key [redacted] --port 3000");
  });

  it("is applied to the config saved with a run and to what a report shows", () => {
    // free text is kept as written: a resume reads the system prompt back
    const config = { server: ["node s.js --token abc123", "fixture:calculator"], system_prompt: "Use Bearer authentication for every call.", seed: 1 };
    expect(scrubConfig(config)).toEqual({ server: ["node s.js --token [redacted]", "fixture:calculator"], system_prompt: "Use Bearer authentication for every call.", seed: 1 });
    expect(scrubForReport({ x: "ghp_AAAAAAAAAAAAAAAAAAAAAAAA" })).toEqual({ x: "[redacted]" });
    expect(redactSecretValues("hf_AAAAAAAAAAAAAAAAAAAAAAAA and xoxb-1234567890-abc")).toBe("[redacted] and [redacted]");
  });

  it("is applied to the server a generated scenario names, which still matches the target as typed", async () => {
    const typed = "node calc.js --api-key s3cret-value";
    const toolbox = await connect("fixture:calculator");
    try {
      const { scenarios } = await generateVerified(toolbox, { n: 4, seed: 1, server: typed });
      for (const s of scenarios) {
        expect(s.server).toBe("node calc.js --api-key [redacted]");
        expect(sameTarget(s.server!, typed)).toBe(true);
      }
      expect(JSON.stringify(scenarios)).not.toContain("s3cret");
    } finally {
      await toolbox.close();
    }
  });

  it("keeps a server's secrets out of its stderr as error messages quote it and as its log keeps it", () => {
    const key = "sk-live-abcdefghijklmnopqrstu";
    const server = stdioTarget("everything", "--log-env", "--crash-on-call", "--api-key", key);
    const r = spawnSync(process.execPath, ["bin/train-mcp.mjs", "call", "-s", server, "--env", "SERVICE_TOKEN=tok-0123456789", "echo", '{"text":"hi"}'], { encoding: "utf8" });
    expect(r.stdout + r.stderr).toContain("crashing on purpose");
    expect(r.stdout + r.stderr).not.toContain(key);
    // the default log of the CLI's process, kept since the call failed
    const text = readFileSync(join(tmpdir(), `train-mcp-${process.getuid!()}`, `server-${r.pid}.log`), "utf8");
    expect(text).toContain('"--api-key","***"'); // the server printed its argv
    expect(text).toContain('"SERVICE_TOKEN":"***"');
    expect(text).not.toContain(key);
    expect(text).not.toContain("tok-0123456789");
  });
  it("blanks in a server's log the --env values whose name has a secret word, the same words as a command line's", async () => {
    const log = join(mkdtempSync(join(tmpdir(), "env-log-")), "server.log");
    const env = { GH_PAT: "pat-value-0123", SESSION_COOKIE: "cookie-value-4567", BRAVE_KEY: "brave-value-89", MAX_TOKENS: "4096000", MONKEY_BUSINESS: "bananas-all-day" };
    const toolbox = await connect(stdioTarget("everything", "--log-env"), { env, serverLog: log, timeoutMs: 10_000 });
    await toolbox.close();
    const text = readFileSync(log, "utf8");
    for (const name of ["GH_PAT", "SESSION_COOKIE", "BRAVE_KEY"]) expect(text).toContain(`"${name}":"***"`);
    // a secret word inside another word is not one: these values stay readable
    expect(text).toContain('"MAX_TOKENS":"4096000"');
    expect(text).toContain('"MONKEY_BUSINESS":"bananas-all-day"');
    // a command line reads the same secret words (a bare `…_KEY` there needs a key-shaped value: it may name a path)
    expect(redactCommandWords(["env", ...Object.entries(env).map(([k, v]) => `${k}=${v}`)])).toEqual(["env", "GH_PAT=[redacted]", "SESSION_COOKIE=[redacted]", "BRAVE_KEY=brave-value-89", "MAX_TOKENS=4096000", "MONKEY_BUSINESS=bananas-all-day"]);
  });
});

describe("what tools print, as a run writes it down", () => {
  it("blanks the values of secret-named settings in text and JSON text, not other settings", () => {
    expect(redactSecretValues("GITHUB_TOKEN=ghp_qaSECRET456 PATH=/usr/bin")).toBe("GITHUB_TOKEN=[redacted] PATH=/usr/bin");
    // a command line quoted in a message keeps its closing backtick, blanked once or twice
    expect(redactSecretValues("cannot start MCP server `srv --api-key=qaSECRET456`: exited")).toBe("cannot start MCP server `srv --api-key=[redacted]`: exited");
    expect(redactSecretValues("cannot start MCP server `srv --api-key=[redacted]`: exited")).toBe("cannot start MCP server `srv --api-key=[redacted]`: exited");
    const dumped = JSON.stringify({ text: '{"OPENAI_API_KEY": "sk-qa-SECRET123", "max_tokens": 512, "tokenizer": "qwen"}' });
    expect(redactSecretValues(dumped)).toBe(JSON.stringify({ text: '{"OPENAI_API_KEY": "[redacted]", "max_tokens": 512, "tokenizer": "qwen"}' }));
    expect(redactSecretValues("password: hunter22\nauth: none\nmax_tokens: 51200\nOwner: Dana Reyes")).toBe("password: [redacted]\nauth: none\nmax_tokens: 51200\nOwner: Dana Reyes");
  });

  it("blanks the keys the run holds wherever a record carries them (trajectories, eval, metrics)", () => {
    const dir = mkdtempSync(join(tmpdir(), "held-"));
    const run = RunDir.create(join(dir, "run"));
    run.heldSecrets = ["qa-key-short1", "plainvalue42"];
    run.append("trajectories.jsonl", [{ messages: [{ role: "tool", content: "env: MY_VAR=plainvalue42, echo qa-key-short1" }], tokenIds: [1, 2] }]);
    const line = readFileSync(join(dir, "run", "trajectories.jsonl"), "utf8");
    expect(line).not.toContain("qa-key-short1");
    expect(line).not.toContain("plainvalue42");
    // (the token ids would spell them back: left out)
    expect(JSON.parse(line)).toEqual({ messages: [{ role: "tool", content: "env: MY_VAR=[redacted], echo [redacted]" }], tokenIds: [], assistantMask: [], sampleLogprobs: [] });
  });
});
