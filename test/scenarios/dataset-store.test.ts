/**
 * An empty store of projects (tryll-dataset-builder-mcp's shape, test/servers/dataset-store.ts).
 * Before, its `disconnect_session` was taken for a read, and its `{"disconnected": true}` for
 * something the server held, so the empty server got no starting state and nearly every task
 * failed; its `export_project {save_to_file: true}` (a "read") wrote a file that later reads on
 * the same instance listed, which a fresh one did not; and a batch that fetched nothing
 * (`{"parsed": 0, "failed": 1}`) or imported nothing (`{"imported": 0, "skipped": 1}`) became
 * tasks asking for its counts.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ToolSpec } from "../../src/mcp/types.js";
import { readScenarioFile } from "../../src/scenarios/io.js";
import { isReadOnlyTool } from "../../src/scenarios/verified/generic.js";
import { reportsFailure } from "../../src/scenarios/verified/recipe.js";
import { stdioTarget } from "../servers/launch.js";
import { cli } from "../train/helpers.js";

const SERVER = stdioTarget("dataset-store");
const dir = mkdtempSync(join(tmpdir(), "dataset-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tool = (name: string, description: string, properties: Record<string, unknown> = {}): ToolSpec => ({ name, description, inputSchema: { type: "object", properties } });
const json = (o: object) => ({ text: JSON.stringify(o), structuredContent: o as Record<string, unknown>, isError: false, truncated: false });

describe("an empty store of projects", () => {
  it("takes a session ended or begun for a change, and a reader that can save to a file for a writer", () => {
    expect(isReadOnlyTool(tool("disconnect_session", "Disconnect from the web app."))).toBe(false);
    expect(isReadOnlyTool(tool("connect_session", "Connect to the web app."))).toBe(false);
    expect(isReadOnlyTool(tool("logout", "Log out."))).toBe(false);
    expect(isReadOnlyTool(tool("export_project", "Export the project as a flat JSON array.", { project: { type: "string" }, save_to_file: { type: "boolean" } }))).toBe(false);
    // the same export without the option reads; a connection's details are read too
    expect(isReadOnlyTool(tool("export_category", "Export a category as a flat JSON array.", { project: { type: "string" } }))).toBe(true);
    expect(isReadOnlyTool(tool("get_connection", "Show the connection's settings."))).toBe(true);
  });

  it("takes a batch that did none of what it was given for a failure, and one that did some for an answer", () => {
    expect(reportsFailure(json({ parsed: 0, failed: 1, results: [{ url: "https://example.com/a", error: "fetch failed" }] }))).toBe(true);
    expect(reportsFailure(json({ project: "river", category: "Imported", imported: 0, skipped: 1 }))).toBe(true);
    expect(reportsFailure(json({ parsed: 1, failed: 1, results: [{ url: "a", chunk_id: "k" }, { url: "b", error: "fetch failed" }] }))).toBe(false);
    expect(reportsFailure(json({ added: 2, errors: 0 }))).toBe(false);
    // nothing to do is not a failure: no count of what could not be done
    expect(reportsFailure(json({ imported: 0, skipped: 0 }))).toBe(false);
  });

  it("starts its tasks from projects made first, never a fetch that failed, each replayed on a fresh instance", async () => {
    const empty = join(dir, "empty");
    mkdirSync(empty, { recursive: true });
    const env = ["--template-dir", empty, "--env", "DATA_DIR=${cwd}/datasets"];
    const out = join(dir, "store.jsonl");
    const g = await cli(["scenarios", "generate", "--server", SERVER, ...env, "--allow-writes", "--n", "12", "--accept-fewer", "--out", out]);
    expect(g.code, g.stderr).toBe(0);
    expect(g.stderr).toMatch(/the server held nothing to ask about, so every task starts from \d+ setup calls? \([^)]*create_project/);
    const scenarios = readScenarioFile(out);
    expect(scenarios.length).toBeGreaterThanOrEqual(8);
    for (const s of scenarios) {
      // (ending a session makes nothing to start from)
      expect(s.setup?.map((c) => c.name)).not.toContain("disconnect_session");
      expect(s.setup?.map((c) => c.name)).toContain("create_project");
      expect(s.reference!.calls.map((c) => c.name)).not.toContain("batch_fetch_urls");
    }
    expect(scenarios.some((s) => s.reference!.calls.some((c) => ["list_projects", "get_chunk", "export_project"].includes(c.name)))).toBe(true);
    const check = await cli(["scenarios", "check", "--server", SERVER, ...env, "--fresh", out]);
    expect(check.code, check.stderr + check.stdout).toBe(0);
    expect(check.stdout + check.stderr).toContain(`${scenarios.length} ok, 0 failing`);
  }, 240_000);
});
