/**
 * Credentials inside a server URL never reach a run's config.json, its logs or its report: the
 * user-info part and secret-named query parameters are replaced, the rest of the URL is kept.
 */
import { describe, expect, it } from "vitest";
import { connect } from "../../src/mcp/connect.js";
import { targetKey } from "../../src/mcp/target.js";
import { redactUrlCredentials } from "../../src/mcp/url-credentials.js";
import { generateVerified } from "../../src/scenarios/verified/generate.js";
import { scrubSecrets as scrubForReport } from "../../src/report/scrub.js";
import { scrubSecrets as scrubConfig } from "../../src/train/config.js";

describe("redactUrlCredentials", () => {
  it.each([
    ["https://alice:s3cret@mcp.example.com/mcp", "https://[redacted]@mcp.example.com/mcp"],
    ["https://ghp-like-token@mcp.example.com/sse", "https://[redacted]@mcp.example.com/sse"],
    ["https://mcp.example.com/mcp?token=abc123&region=eu", "https://mcp.example.com/mcp?token=[redacted]&region=eu"],
    ["http://127.0.0.1:8000/mcp?region=eu&api_key=k-1&X-Amz-Signature=ff00#top", "http://127.0.0.1:8000/mcp?region=eu&api_key=[redacted]&X-Amz-Signature=[redacted]#top"],
    ["connected to https://u:p@h.example/mcp?access_token=t (3 tools)", "connected to https://[redacted]@h.example/mcp?access_token=[redacted] (3 tools)"],
  ])("%s", (input, want) => {
    expect(redactUrlCredentials(input)).toBe(want);
  });

  it("leaves URLs without credentials, email addresses and commands as they are", () => {
    for (const s of ["http://127.0.0.1:8000/mcp?page=2", "node server.js --port 3000", "mail bob@example.com", "fixture:calculator", "https://h.example/mcp?design=1&author=ann&keyword=x&monkey=2"])
      expect(redactUrlCredentials(s)).toBe(s);
    expect(redactUrlCredentials("https://h.example/s?X-Amz-Security-Token=abc&apikey=k&key=v")).toBe("https://h.example/s?X-Amz-Security-Token=[redacted]&apikey=[redacted]&key=[redacted]");
  });

  it("is applied to the config saved with a run and to what a report shows", () => {
    const config = { server: ["https://alice:pw@mcp.example.com/mcp?token=abc"], seed: 1 };
    expect(scrubConfig(config)).toEqual({ server: ["https://[redacted]@mcp.example.com/mcp?token=[redacted]"], seed: 1 });
    expect(scrubForReport(config)).toEqual({ server: ["https://[redacted]@mcp.example.com/mcp?token=[redacted]"], seed: 1 });
  });

  it("is applied to the server a generated scenario names, which still matches the URL as typed", async () => {
    const typed = "https://alice:pw@mcp.example.com/mcp?token=abc&region=eu";
    const toolbox = await connect("fixture:calculator");
    try {
      const { scenarios } = await generateVerified(toolbox, { n: 6, seed: 1, server: typed });
      expect(scenarios).toHaveLength(6);
      for (const s of scenarios) {
        expect(s.server).toBe("https://[redacted]@mcp.example.com/mcp?token=[redacted]&region=eu");
        expect(targetKey(s.server!)).toBe(targetKey(typed));
      }
      expect(JSON.stringify(scenarios)).not.toMatch(/pw|abc/);
    } finally {
      await toolbox.close();
    }
    // another host, path or ordinary parameter is another server
    expect(targetKey("https://[redacted]@mcp.example.com/mcp?token=[redacted]&region=us")).not.toBe(targetKey(typed));
    expect(targetKey("https://other.example.com/mcp?token=abc&region=eu")).not.toBe(targetKey(typed));
  });
});
