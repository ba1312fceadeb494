/** The one list of secrets a run (run-dir) and eval (--trajectories) keep out of their files, and the warning for one in the system prompt (saved as written). */
import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { heldSecrets, RunDir } from "../../src/train/run-dir.js";
import { systemPromptWarning } from "../../src/train/loop.js";

describe("heldSecrets", () => {
  it("holds the keys given and the secret-named --env values, once each, never a blank or the EMPTY placeholder", () => {
    const env = { GITHUB_TOKEN: "ghp-0123456789", DB_PASSWORD: "sk-judge-42abc", PORT: "8080", LOG_LEVEL: "debug" };
    expect(heldSecrets(["sk-judge-42abc", undefined, "", "EMPTY", "pk-policy-777"], env)).toEqual(["sk-judge-42abc", "pk-policy-777", "ghp-0123456789"]);
    expect(heldSecrets([undefined])).toEqual([]);
  });

  it("holds the secrets on its stdio servers' command lines (a tool may print its argv), not their other words", () => {
    const targets = ["node server.mjs --token tok-ARGV-555 --password=hunter2plain --port 8080 ./data", "stdio:python -m srv GITHUB_TOKEN=ghp-xyz123", "https://example.com/mcp", "fixture:calculator"];
    expect(heldSecrets([], undefined, targets)).toEqual(["tok-ARGV-555", "hunter2plain", "ghp-xyz123"]);
  });

  it("so a tool that echoes its argv puts no command-line secret in trajectories.jsonl", () => {
    const run = RunDir.create(join(mkdtempSync(join(tmpdir(), "held-argv-")), "run"));
    run.heldSecrets = heldSecrets([], undefined, ["node srv.mjs --token plainTok42 --openai-key aB3dE5fG7hJ9kL1mN3pQ ./data"]);
    run.append("trajectories.jsonl", [{ messages: [{ role: "tool", content: '{"argv":["--token","plainTok42","--openai-key","aB3dE5fG7hJ9kL1mN3pQ","./data"]}' }] }]);
    const text = readFileSync(join(run.dir, "trajectories.jsonl"), "utf8");
    expect(text).not.toContain("plainTok42");
    expect(text).not.toContain("aB3dE5fG7hJ9kL1mN3pQ");
    expect(text).toContain("./data");
  });
});

describe("systemPromptWarning", () => {
  it("warns when the system prompt holds a key-shaped value or a secret-named setting, and only then", () => {
    expect(systemPromptWarning("Use the tools. API key: sk-test-SECRET1234567890abc")).toMatch(/^warning: system_prompt holds what looks like a key or credential: .* saved as written, in the run's config.json and in every checkpoint's train_mcp.json$/);
    expect(systemPromptWarning("Authenticate with GITHUB_TOKEN=abc123def")).toBeDefined();
    expect(systemPromptWarning("You are a helpful assistant. Use the calculator for arithmetic.")).toBeUndefined();
    expect(systemPromptWarning(undefined)).toBeUndefined();
  });
});
