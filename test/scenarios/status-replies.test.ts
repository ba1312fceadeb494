/**
 * A server whose failures are replies, not MCP errors, and whose creating tool says what it does
 * only in its description: @kazuph/mcp-taskmanager's shape (test/servers/task-planner.ts). Before,
 * its "task_not_found" replies were taken for answers, so it never looked empty, got no starting
 * state, and its tasks asked what the status of a made-up task id was.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readScenarioFile } from "../../src/scenarios/io.js";
import { isReadOnlyTool } from "../../src/scenarios/verified/generic.js";
import { isUseful, reportsFailure } from "../../src/scenarios/verified/recipe.js";
import { stdioTarget } from "../servers/launch.js";
import { cli } from "../train/helpers.js";

const SERVER = stdioTarget("task-planner");
const dir = mkdtempSync(join(tmpdir(), "task-planner-"));
const empty = join(dir, "empty");
const home = join(dir, "home");
mkdirSync(empty);
mkdirSync(home);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const json = (o: object) => ({ text: JSON.stringify(o), structuredContent: undefined, isError: false, truncated: false });

describe("failures written as replies", () => {
  it("reads a bare failed status as a failure, and a status among a thing's fields as its state", () => {
    expect(reportsFailure(json({ status: "error", message: "Request not found" }))).toBe(true);
    expect(reportsFailure(json({ status: "task_not_found", message: "No such task found" }))).toBe(true);
    expect(reportsFailure(json({ status: "failed", job: "build" }))).toBe(false);
    expect(reportsFailure(json({ status: "task_details", requestId: "req-1" }))).toBe(false);
    expect(isUseful({ text: "No such task found", isError: false, truncated: false })).toBe(false);
    expect(reportsFailure(json({ status: "error", code: 404, message: "x" }))).toBe(true);
    expect(reportsFailure(json({ status: "Not Found" }))).toBe(true);
  });

  it("takes a tool whose name says nothing for a writer when its description starts by creating", () => {
    const tool = (name: string, description: string) => ({ name, description, inputSchema: { type: "object" as const, properties: {} } });
    expect(isReadOnlyTool(tool("request_planning", "Register a new user request and plan its associated tasks."))).toBe(false);
    expect(isReadOnlyTool(tool("planner", "Creates a plan for the week."))).toBe(false);
    // a reading name keeps its word; a description that starts otherwise says nothing
    expect(isReadOnlyTool(tool("get_plan", "Creates nothing: returns the plan."))).toBe(true);
    expect(isReadOnlyTool(tool("request_planning", "Shows the plan of a request."))).toBe(true);
    expect(isReadOnlyTool(tool("webhook_setup", "Use this tool to register a webhook for the repository."))).toBe(false);
    expect(isReadOnlyTool(tool("remember", "Stores a memory with its tags."))).toBe(false);
    // a name that says it computes keeps its word, whatever its description starts with
    expect(isReadOnlyTool(tool("summarize", "Creates a concise summary of the text."))).toBe(true);
    // `add` of two numbers is arithmetic; of a title, a new item
    const add = (type: string) => ({ name: "add", description: "Add a new task.", inputSchema: { type: "object" as const, properties: { a: { type } }, required: ["a"] } });
    expect(isReadOnlyTool(add("number"))).toBe(true);
    expect(isReadOnlyTool(add("string"))).toBe(false);
  });

  it("gives the empty server a starting state made by its creating tool, and asks nothing of a failure", async () => {
    const out = join(dir, "tasks.jsonl");
    const env = ["--env", "TASK_MANAGER_FILE_PATH=${cwd}/tasks.json"];
    const reads = await cli(["scenarios", "generate", "--server", SERVER, "--template-dir", empty, ...env, "--n", "4", "--accept-fewer", "--out", join(dir, "reads.jsonl")], { HOME: home });
    expect(reads.stderr).toMatch(/not calling [^:]*request_planning/);
    const g = await cli(["scenarios", "generate", "--server", SERVER, "--template-dir", empty, ...env, "--allow-writes", "--n", "16", "--seed", "2", "--accept-fewer", "--out", out], { HOME: home });
    expect(g.code, g.stderr).toBe(0);
    expect(g.stderr).toMatch(/the server held nothing to ask about, so every task starts from \d+ setup calls? \([^)]*request_planning/);
    const scenarios = readScenarioFile(out);
    expect(scenarios.length).toBeGreaterThanOrEqual(12);
    for (const s of scenarios) expect(JSON.stringify(s.expected)).not.toMatch(/not_found|not found|"error"/i);
    expect(new Set(scenarios.flatMap((s) => s.reference!.calls.map((c) => c.name))).size).toBeGreaterThanOrEqual(4);
    const check = await cli(["scenarios", "check", "--server", SERVER, "--template-dir", empty, ...env, "--fresh", out], { HOME: home });
    expect(check.code, check.stderr + check.stdout).toBe(0);
    expect(check.stdout + check.stderr).toContain(`${scenarios.length} ok, 0 failing`);
  }, 240_000);
});
