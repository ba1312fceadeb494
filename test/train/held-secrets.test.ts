/** The one list of secrets a run (run-dir) and eval (--trajectories) keep out of their files. */
import { describe, expect, it } from "vitest";
import { heldSecrets } from "../../src/train/run-dir.js";

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
});
