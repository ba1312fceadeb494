/**
 * Servers written with mcp-go list MCP's default annotations on every tool they do not annotate
 * themselves (readOnlyHint false, destructiveHint true, idempotentHint false, openWorldHint
 * true). Taken at their word, every tool of such a server wrote, so the generator called none
 * without --allow-writes: on @negokaz/excel-mcp-server 0.12, excel_describe_sheets and
 * excel_read_sheet "change the server's state" and nothing was built. Defaults on every tool say
 * nothing, so the names decide, as for a server without annotations (tool-list.ts). On
 * test/servers/todo-file.ts with --go-defaults.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { connect } from "../../src/mcp/connect.js";
import { hasOnlyDefaultHints } from "../../src/mcp/tool-list.js";
import { readScenarioFile } from "../../src/scenarios/io.js";
import { isReadOnlyTool } from "../../src/scenarios/verified/generic.js";
import { stdioTarget } from "../servers/launch.js";
import { cli } from "../train/helpers.js";

const data = mkdtempSync(join(tmpdir(), "go-defaults-"));
afterAll(() => rmSync(data, { recursive: true, force: true }));

const DEFAULTS = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };

describe("MCP's default annotations on every tool", () => {
  it("are the defaults only when all four are there and nothing else but a title", () => {
    const tool = (annotations?: Record<string, unknown>) => (annotations ? { annotations } : {});
    expect(hasOnlyDefaultHints(tool(DEFAULTS))).toBe(true);
    expect(hasOnlyDefaultHints(tool({ ...DEFAULTS, title: "T" }))).toBe(true);
    expect(hasOnlyDefaultHints(tool({ ...DEFAULTS, idempotentHint: true }))).toBe(false);
    expect(hasOnlyDefaultHints(tool({ readOnlyHint: false, destructiveHint: true }))).toBe(false);
    expect(hasOnlyDefaultHints(tool())).toBe(false);
  });

  it("are dropped with a note, and the tools' names tell the reads from the writes", async () => {
    const box = await connect(stdioTarget("todo-file", "--go-defaults"), { templateDir: data });
    try {
      expect(box.toolNotes.join("\n")).toContain("every tool carries MCP's default annotations");
      const byName = new Map(box.tools.map((t) => [t.name, t]));
      expect(byName.get("list_todos")!.annotations).toBeUndefined();
      expect(["list_todos", "get_todo", "roll_dice"].every((n) => isReadOnlyTool(byName.get(n)!))).toBe(true);
      // add_todo by its "add", spring_clean by its "clean"
      expect(["add_todo", "spring_clean"].some((n) => isReadOnlyTool(byName.get(n)!))).toBe(false);
    } finally {
      await box.close();
    }
    // a server whose annotations differ from tool to tool keeps them
    const plain = await connect(stdioTarget("todo-file"), { templateDir: data });
    try {
      expect(plain.toolNotes.join("\n")).not.toContain("default annotations");
      expect(plain.tools.find((t) => t.name === "spring_clean")!.annotations).toEqual({ readOnlyHint: false, destructiveHint: true });
    } finally {
      await plain.close();
    }
  });

  it("no longer stop the generator: it builds read tasks and leaves the writes alone", async () => {
    const out = join(data, "..", `go-defaults-${process.pid}.jsonl`);
    const server = stdioTarget("todo-file", "--go-defaults");
    // the server makes its three todos on its first start; the generator must not change them
    expect((await cli(["call", "--server", server, "--cwd", data, "list_todos", '{"tag":"home"}'])).code).toBe(0);
    const before = readFileSync(join(data, "todos.json"), "utf8");
    const g = await cli(["scenarios", "generate", "--server", server, "--cwd", data, "--n", "4", "--seed", "2", "--out", out]);
    expect(g.code, g.stderr).toBe(0);
    expect(g.stderr).toContain("note: not calling add_todo, spring_clean: they change the server's state");
    const tools = new Set(readScenarioFile(out).flatMap((s) => s.reference!.calls.map((c) => c.name)));
    expect([...tools].sort()).toEqual(["get_todo", "list_todos"].filter((t) => tools.has(t)));
    expect(tools.size).toBeGreaterThan(0);
    expect(readFileSync(join(data, "todos.json"), "utf8")).toBe(before);
    rmSync(out, { force: true });
  }, 60_000);
});
