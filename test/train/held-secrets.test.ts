/** The one list of secrets a run (run-dir) and eval (--trajectories) keep out of their files, and the warning for one in the system prompt (saved as written). */
import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { heldSecrets, redactedTrajectoryLine, RunDir } from "../../src/train/run-dir.js";
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

describe("held secrets of HTTP servers, and secrets spelt otherwise", () => {
  it("holds a URL's password and secret-named query values (every one), the Basic auth they make, and secret-named -H values (the credential after its scheme, a cookie's values)", () => {
    const held = heldSecrets([], undefined, ["http://alice:URLPASS-s3cr3t@127.0.0.1:8951/mcp?token=abcdefghij&api_key=QUERYSECRET-abc123&api-version=2024-01-01"], {
      "X-Api-Key": "HEADERSECRET-plainvalue9",
      Authorization: "Bearer tok-BEARER-0001",
      Cookie: "session=COOKIESECRET123456; theme=dark",
      Accept: "application/json",
      "X-Debug": "true",
      "X-Request-Id": "2024",
      Prefer: "return=minimal",
      "X-Tenant": "demo",
    });
    for (const v of ["URLPASS-s3cr3t", "abcdefghij", "QUERYSECRET-abc123", Buffer.from("alice:URLPASS-s3cr3t").toString("base64"), "HEADERSECRET-plainvalue9", "tok-BEARER-0001", "COOKIESECRET123456"]) expect(held).toContain(v);
    // a user name with a password, and headers that authenticate nothing, are no secrets
    for (const v of ["alice", "2024-01-01", "application/json", "true", "2024", "minimal", "return=minimal", "demo"]) expect(held).not.toContain(v);
    // a token given as the user name is one
    expect(heldSecrets([], undefined, ["https://ghp_TOKENASUSER123@host/mcp"])).toContain("ghp_TOKENASUSER123");
  });

  it("blanks the longest held secret first: one that starts another leaves nothing of it behind", () => {
    const run = RunDir.create(join(mkdtempSync(join(tmpdir(), "held-prefix-")), "run"));
    run.heldSecrets = ["admin", "admin2024pw"];
    run.append("trajectories.jsonl", [{ messages: [{ role: "tool", content: "login admin2024pw" }] }]);
    expect(readFileSync(join(run.dir, "trajectories.jsonl"), "utf8")).toBe('{"messages":[{"role":"tool","content":"login [redacted]"}]}\n');
  });

  it("blanks inside strings only: a held value that is also JSON syntax (a number, true, a key) leaves every line parseable", () => {
    const line = redactedTrajectoryLine({ ms: 12024, done: true, role: "user", messages: [{ role: "tool", content: "year 2024, flag true, user x" }], tokenIds: [2024] }, ["2024", "true", "user"]);
    const back = JSON.parse(line) as Record<string, unknown>;
    expect(back).toMatchObject({ ms: 12024, done: true, role: "[redacted]", messages: [{ role: "tool", content: "year [redacted], flag [redacted], [redacted] x" }], tokenIds: [] });
  });

  it("blanks a secret with a quote or backslash in trajectories.jsonl as JSON writes it, once or twice escaped, and a short one of 4 characters", () => {
    const run = RunDir.create(join(mkdtempSync(join(tmpdir(), "held-escaped-")), "run"));
    run.heldSecrets = heldSecrets([], { TOKEN: 'to"k\\ENV-QUOTED-9', DB_PASSWORD: "ab1!" });
    const toolJson = JSON.stringify({ env: { TOKEN: 'to"k\\ENV-QUOTED-9', DB_PASSWORD: "ab1!" } });
    run.append("trajectories.jsonl", [{ messages: [{ role: "tool", content: toolJson }, { role: "assistant", content: JSON.stringify(toolJson) }] }]);
    const text = readFileSync(join(run.dir, "trajectories.jsonl"), "utf8");
    expect(text).not.toContain("ENV-QUOTED-9");
    expect(text).not.toContain("ab1!");
    expect(text).toContain("[redacted]");
  });

  it("leaves a trajectory's token ids out when its text had a secret blanked: decoded, they would spell it back", () => {
    const run = RunDir.create(join(mkdtempSync(join(tmpdir(), "held-ids-")), "run"));
    run.heldSecrets = ["tok-ENVSECRET-abcdef"];
    const t = (content: string) => ({ messages: [{ role: "tool", content }], tokenIds: [5, 6, 7], assistantMask: [0, 1, 1], sampleLogprobs: [0, -0.5, -0.1] });
    run.append("trajectories.jsonl", [t("credential tok-ENVSECRET-abcdef"), t("42")]);
    const [leaky, plain] = readFileSync(join(run.dir, "trajectories.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as ReturnType<typeof t>);
    expect(leaky).toMatchObject({ messages: [{ content: "credential [redacted]" }], tokenIds: [], assistantMask: [], sampleLogprobs: [] });
    expect(plain).toMatchObject({ messages: [{ content: "42" }], tokenIds: [5, 6, 7], assistantMask: [0, 1, 1] });
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
