/**
 * The generic recipes' judgements on their own: which tools read and which change state (MCP
 * annotations first, then the name), which result field a task may ask about (never a value the
 * task already gives, nested ones included), and which answers are not worth a task.
 */
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import type { ToolResult, ToolSpec } from "../../src/mcp/types.js";
import { answerSentence } from "../../src/scenarios/verified/recipe.js";
import { matchAllArgs, ValuePool } from "../../src/scenarios/verified/harvest.js";
import { Rng } from "../../src/scenarios/verified/rng.js";
import { synthesizeArgs } from "../../src/scenarios/verified/schema-values.js";
import { applicableFixtureRecipes } from "../../src/scenarios/verified/registry.js";
import { constantAnswerNote, errorLineOf } from "../../src/scenarios/verified/generate.js";
import { answerFields, asksAboutNothing, clockLike, goalOf, isReadOnlyTool, pickAnswerField } from "../../src/scenarios/verified/generic.js";
import { describeArgs, singularLabel } from "../../src/scenarios/verified/argument-words.js";

const result = (data: unknown): ToolResult => ({ isError: false, text: JSON.stringify(data), content: [] }) as unknown as ToolResult;

describe("generic recipes", () => {
  it("takes a task's goal from the description's first sentence, without what the tool may optionally also do", () => {
    const tool = (description: string) => ({ name: "git_log", description, inputSchema: { type: "object" } }) as ToolSpec;
    expect(goalOf(tool("View commit history with optional filtering by author, date range, file path, or commit message pattern. Returns commits."))).toBe("view commit history");
    expect(goalOf(tool("Search notes (optionally by tag) and return the matches."))).toBe("search notes and return the matches");
    expect(goalOf(tool("List files in a folder, optionally recursing into subfolders"))).toBe("list files in a folder");
    expect(goalOf(tool("Show the working tree status including staged, unstaged, and untracked files."))).toBe("show the working tree status including staged, unstaged, and untracked files");
    expect(goalOf(tool("Evaluate one arithmetic expression (e.g. '2 + 3') and return the number."))).toBe("evaluate one arithmetic expression and return the number");
  });

  it("reads a tool's annotations before its name", () => {
    expect(isReadOnlyTool("list_todos")).toBe(true);
    expect(isReadOnlyTool("add_todo")).toBe(false);
    expect(isReadOnlyTool("addItem")).toBe(false);
    // a bare `add` sums numbers (server-everything's), unless the server's annotations say otherwise
    expect(isReadOnlyTool("add")).toBe(true);
    expect(isReadOnlyTool({ name: "add", annotations: { readOnlyHint: false } })).toBe(false);
    expect(isReadOnlyTool("purge_everything")).toBe(false);
    expect(isReadOnlyTool("markDone")).toBe(false);
    expect(isReadOnlyTool("bookmarks")).toBe(true); // a verb inside a word is no verb
    expect(isReadOnlyTool("get_settings")).toBe(true);
    expect(isReadOnlyTool("setTitle")).toBe(false);
    expect(isReadOnlyTool({ name: "spring_clean", annotations: { destructiveHint: true } })).toBe(false);
    // making another of a thing, formatting what is kept, cleaning up: changes (what an mcp-go
    // server's names say, its annotations being MCP's defaults); formatting a value passed in reads
    for (const name of ["excel_copy_sheet", "excel_format_range", "duplicate_page", "git_clone", "clean_cache", "prune_images", "flush_queue"]) expect(isReadOnlyTool(name), name).toBe(false);
    for (const name of ["excel_read_sheet", "excel_describe_sheets", "format_date", "get_formatted_time", "list_clones"]) expect(isReadOnlyTool(name), name).toBe(true);
    expect(isReadOnlyTool({ name: "tidy", annotations: { readOnlyHint: false } })).toBe(false);
    expect(isReadOnlyTool({ name: "delete_preview", annotations: { readOnlyHint: true } })).toBe(true);
    expect(isReadOnlyTool({ name: "tidy" })).toBe(true);
  });

  it("never asks for a value the task gives, nested arguments included", () => {
    const r = result({ location: { city: "cairo", country: "EG" }, temperature: 31.5 });
    expect(pickAnswerField(r, { location: { city: "cairo" } })).toEqual({ label: "location country", value: "EG" });
    expect(pickAnswerField(result({ city: "cairo" }), { location: { city: "cairo" } })).toBeUndefined();
  });

  it("asks for the one new number of a sentence, not the sentence with its float noise", () => {
    const text = (t: string) => ({ isError: false, text: t, content: [{ type: "text", text: t }] }) as unknown as ToolResult;
    expect(pickAnswerField(text("The sum of 18.58 and 1.97 is 20.549999999999997."), { a: 18.58, b: 1.97 })).toEqual({ label: "result", value: 20.549999999999997 });
    // a sentence with several new numbers stays text
    expect(pickAnswerField(text("Open from 9 to 17."), {})).toEqual({ label: "result", value: "Open from 9 to 17." });
    // markdown scaffolding is no answer (@playwright/mcp on about:blank: a snapshot of nothing, a header over no requests)
    expect(pickAnswerField(text("### Page\n- Page URL: about:blank\n### Snapshot\n```yaml\n\n```"), { depth: 3 })).toBeUndefined();
    expect(pickAnswerField(text("### Result"), { static: false })).toBeUndefined();
    // nor the number inside a name the task gave (server-redis's set: "Successfully set key: product:1" is no 1)
    expect(pickAnswerField(text("Successfully set key: product:1"), { key: "product:1", value: "bravo" })).toEqual({ label: "result", value: "Successfully set key: product:1" });
  });

  it("a count of 0 over an empty list is no task; a 0 with content is", () => {
    expect(asksAboutNothing(result({ count: 0, titles: [] }), 0)).toBe(true);
    expect(asksAboutNothing(result({ count: 2, titles: ["a", "b"] }), 2)).toBe(false);
    expect(asksAboutNothing(result({ balance: 0, owner: "ann" }), 0)).toBe(false);
    // git_diff of a clean tree: the diff is empty text, and "files changed: 0" says nothing
    expect(asksAboutNothing(result({ success: true, diff: "", filesChanged: 0, insertions: 0, deletions: 0 }), 0)).toBe(true);
    expect(asksAboutNothing(result({ success: true, diff: "-a\n+b", filesChanged: 1 }), 1)).toBe(false);
  });
  it("a fixture's recipes apply only where the tools they look things up with exist too (a filesystem server's read_file is not codefix's)", () => {
    const tool = (name: string, props: string[]): ToolSpec => ({ name, description: "", inputSchema: { type: "object", properties: Object.fromEntries(props.map((p) => [p, { type: "string" }])) } }) as ToolSpec;
    const filesystem = [tool("read_file", ["path", "head", "tail"]), tool("list_directory", ["path"])];
    expect(applicableFixtureRecipes(filesystem).map((r) => r.id)).toEqual([]);
    const codefix = [tool("list_tasks", []), tool("read_file", ["path"]), tool("edit_file", ["path", "old_text", "new_text"]), tool("run_tests", ["task"])];
    expect(applicableFixtureRecipes(codefix).map((r) => r.id)).toContain("codefix.which-function");
    // a calculator's recipes need nothing beyond their own tools
    expect(applicableFixtureRecipes([tool("calculate", ["expression"])]).some((r) => r.id.startsWith("calculator."))).toBe(true);
  });
  it("never asks about a process's environment (get-env): npx's npm_package_name is the folder it ran in, HOME the user's", () => {
    const text = (t: string) => ({ isError: false, text: t, content: [{ type: "text", text: t }] }) as unknown as ToolResult;
    expect(pickAnswerField(result({ npm_package_name: "train-mcp", HOME: "/root", PATH: "/usr/bin" }), {})).toBeUndefined();
    expect(pickAnswerField(text("PATH=/usr/bin\nHOME=/root\nnpm_package_name=train-mcp"), {})).toBeUndefined();
    // a record that merely has a path or a home field is data
    expect(pickAnswerField(result({ path: "/srv/site", home: "https://example.com", title: "Site" }), {})).toEqual({ label: "title", value: "Site" });
  });
  it("asks for the first item of a list answered in another order than asked only when it is the first one asked for", () => {
    // server-memory's open_nodes lists the graph's order: Ada first, whichever name came first
    const nodes = result({ entities: [{ name: "Ada Lovelace", entityType: "person" }, { name: "Acme Robotics", entityType: "organization" }], relations: [] });
    expect(pickAnswerField(nodes, { names: ["Acme Robotics", "Ada Lovelace"] })).toBeUndefined();
    expect(pickAnswerField(nodes, { names: ["Ada Lovelace", "Acme Robotics"] })).toEqual({ label: "first entity type", value: "person" });
  });
  it("never asks for a time to the second (the server's clock, different on the next replay)", () => {
    const text = (t: string) => ({ isError: false, text: t, content: [{ type: "text", text: t }] }) as unknown as ToolResult;
    expect(pickAnswerField(text("Resource 1: created at 9:15:31 AM"), {})).toBeUndefined();
    expect(pickAnswerField(result({ created: "2026-12-02T09:15:31Z", name: "report" }), {})).toEqual({ label: "name", value: "report" });
    expect(pickAnswerField(text("Opens at 9:15"), {})).toEqual({ label: "result", value: "Opens at 9:15" });
    expect(clockLike(new Date().toISOString())).toBe(true);
  });
  it("asks for a date and time of another day the call did not give (a converted time), for the one number left once a given date is taken out, and for each number a sentence names", () => {
    const text = (t: string) => ({ isError: false, text: t, content: [{ type: "text", text: t }] }) as unknown as ToolResult;
    // time-mcp's convert_time and get_timestamp, as they answer
    const converted = "Current time in Asia/Shanghai is 2024-03-23 12:30:00, and the time in Europe/London is 2024-03-23 04:30:00. The time difference is -8 hours.";
    expect(pickAnswerField(text(converted), { sourceTimezone: "Asia/Shanghai", targetTimezone: "Europe/London", time: "2024-03-23 12:30:00" })).toEqual({ label: "result", value: "2024-03-23 04:30:00" });
    expect(clockLike("2024-03-23 04:30:00")).toBe(false);
    const stamp = "The timestamp of 2024-03-23 12:30:00.000 (parsed as UTC) is 1711197000000 ms.";
    expect(pickAnswerField(text(stamp), { time: "2024-03-23 12:30:00.000" })).toEqual({ label: "result", value: 1711197000000 });
    // a given path "." is no text to take out: the 20.5 stays whole
    expect(pickAnswerField(text("The total size is 20.5 kB."), { path: "." })).toEqual({ label: "result", value: 20.5 });
    // several numbers, each named in its clause: one question per name (time-mcp's get_week_year)
    expect(answerFields(text("The week of the year is 3, and the isoWeek of the year is 2."), { date: "2024-01-14" })).toEqual([
      { label: "week of the year", value: 3 },
      { label: "isoWeek of the year", value: 2 },
    ]);
    expect(answerFields(text("Temperature: 21.5 C; humidity: 40%"), { city: "Oslo" })).toEqual([
      { label: "temperature", value: 21.5 },
      { label: "humidity", value: 40 },
    ]);
    // a number without a name of its own leaves the sentence as it was
    expect(pickAnswerField(text("Between 3 and 9 there are 5 primes."), {})).toEqual({ label: "result", value: "Between 3 and 9 there are 5 primes." });
    // the same asked about today: the answer is the clock's, not asked
    const now = new Date();
    const today = now.toISOString().slice(0, 10);
    expect(pickAnswerField(text(`The time in Europe/London is ${today} 04:30:00.`), { time: `${today} 12:30:00` })).toBeUndefined();
  });
  it("fills a string argument whose name or description says what it holds (an IP, a CIDR, a date, a version, a colour, an expression, a time zone), or with the description's example", () => {
    const rng = new Rng("described");
    const schema = {
      type: "object",
      properties: {
        ip: { type: "string", description: "IP address" },
        cidr: { type: "string", description: "CIDR notation (e.g. 192.168.1.0/24)" },
        date: { type: "string", description: "Date string (ISO8601)" },
        version: { type: "string", description: "Semver version string" },
        color: { type: "string", description: "Color value: #hex or rgb(r,g,b)" },
        expression: { type: "string", description: "Math expression to evaluate" },
        sourceTimezone: { type: "string", description: "The source timezone. IANA timezone name, e.g. Asia/Shanghai" },
        label: { type: "string" },
      },
      required: ["ip", "cidr", "date", "version", "color", "expression", "sourceTimezone", "label"],
    };
    const zones = new Set<string>();
    for (let i = 0; i < 10; i++) {
      const a = synthesizeArgs(schema, rng)!;
      expect(a.ip).toMatch(/^192\.168\.\d+\.\d+$/);
      expect(a.cidr).toMatch(/^(10\.\d+\.\d+\.0\/(16|24|28)|192\.168\.1\.0\/24)$/);
      expect(a.date).toMatch(/^2024-\d\d-\d\d$/);
      expect(a.version).toMatch(/^\d+\.\d+\.\d+$/);
      expect(a.color).toMatch(/^#[0-9a-f]{6}$/);
      expect(a.expression).toMatch(/^\d+ [-+*] \d+$/);
      // a zone of the tz database, not a made-up word (convert_time then says "Invalid time zone")
      expect(() => new Intl.DateTimeFormat("en", { timeZone: String(a.sourceTimezone) }), String(a.sourceTimezone)).not.toThrow();
      expect(a.sourceTimezone).toMatch(/^[A-Z][a-z]+\/[A-Za-z_]+$/);
      zones.add(String(a.sourceTimezone));
      expect(typeof a.label).toBe("string");
    }
    expect(zones.size).toBeGreaterThan(3);
  });
  it("takes zod 4's safe-integer bounds for no bounds (an argument was -9007199254740000), and a date described as \"ISO 8601 format\" for a date", () => {
    const M = Number.MAX_SAFE_INTEGER;
    // zod 4: .int() is -M … M, .int().min(0) is 0 … M (git-mcp-server's skip, maxCount)
    const schema = {
      type: "object",
      properties: {
        amount: { type: "integer", minimum: -M, maximum: M },
        skip: { type: "integer", minimum: 0, maximum: M },
        maxCount: { type: "integer", minimum: 1, maximum: M },
        thoughtNumber: { type: "integer", minimum: 1, maximum: M },
        since: { type: "string", description: "Show commits more recent than a specific date (ISO 8601 format)." },
      },
      required: ["amount", "skip", "maxCount", "thoughtNumber", "since"],
    };
    const rng = new Rng("wide");
    for (let i = 0; i < 20; i++) {
      const a = synthesizeArgs(schema, rng)!;
      expect(a.amount as number).toBeGreaterThanOrEqual(1);
      expect(a.amount as number).toBeLessThanOrEqual(100);
      expect([0, 1, 2]).toContain(a.skip);
      expect(a.maxCount as number).toBeGreaterThanOrEqual(1);
      expect(a.maxCount as number).toBeLessThanOrEqual(10);
      expect(a.thoughtNumber as number).toBeLessThanOrEqual(101);
      expect(a.since).toMatch(/^2024-\d\d-\d\d$/);
    }
    // bounds that mean something still hold
    const tight = { type: "object", properties: { n: { type: "integer", minimum: 500, maximum: 505 }, limit: { type: "integer", minimum: 5, maximum: 1000 } }, required: ["n", "limit"] };
    for (let i = 0; i < 10; i++) {
      const a = synthesizeArgs(tight, rng)!;
      expect(a.n as number).toBeGreaterThanOrEqual(500);
      expect(a.n as number).toBeLessThanOrEqual(505);
      expect(a.limit as number).toBeGreaterThanOrEqual(5);
    }
  });
  it("leaves out an optional text argument it could only make up (an invented author or search text filters a listing down to nothing), but fills it with a harvested value", () => {
    const schema = {
      type: "object",
      properties: {
        path: { type: "string", description: "Path to the Git repository. Defaults to session working directory set via git_set_working_dir.", default: "." },
        author: { type: "string", description: "Filter commits by author name or email pattern." },
        grep: { type: "string", description: "Filter commits by message pattern (regex supported)." },
        paths: { type: "array", items: { type: "string" } },
        until: { type: "string", description: "Show commits older than a specific date (ISO 8601 format)." },
        label: { type: "string" },
      },
      required: ["label"],
    };
    const rng = new Rng("optional");
    for (let i = 0; i < 10; i++) {
      const a = synthesizeArgs(schema, rng, undefined, { optionalRate: 1 })!;
      expect(a.author).toBeUndefined();
      expect(a.grep).toBeUndefined();
      expect(a.paths).toBeUndefined();
      expect(a.until).toMatch(/^2024-/); // a date is no made-up word
      expect(typeof a.label).toBe("string"); // required: made up all the same
    }
    const pool = new ValuePool();
    pool.harvest("git_log", result({ commits: [{ hash: "22b7753727bd26d3128fd56a759c117af5de3b0a", author: "Linus Torvalds" }] }));
    for (let i = 0; i < 5; i++) expect(synthesizeArgs(schema, rng, pool, { optionalRate: 1, poolRate: 1 })!.author).toBe("Linus Torvalds");
  });
  it("always gives a date or time argument, in the layout its description asks for (time-mcp's days_in_month without a date counts this month's days)", () => {
    const schema = {
      type: "object",
      properties: {
        date: { type: "string", description: "The date to get the days in month. Format: YYYY-MM-DD" },
        time: { type: "string", description: "The time to get the timestamp. Format: YYYY-MM-DD HH:mm:ss.SSS" },
        at: { type: "string", description: "Date and time in 24-hour format. e.g. 2025-03-23 12:30:00" },
        timezone: { type: "string", description: "IANA timezone name, e.g. Asia/Shanghai" },
        timeout: { type: "number" },
      },
    };
    const rng = new Rng("dated");
    for (let i = 0; i < 10; i++) {
      const a = synthesizeArgs(schema, rng, undefined, { optionalRate: 0 })!;
      expect(a.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(a.time).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/);
      expect(a.at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      expect(a.timezone).toBeUndefined();
      expect(a.timeout).toBeUndefined();
    }
  });
  it("names the server's working directory (\"./\") for an argument that is the repository the tool works in, even where optional: git-mcp-server's default \".\" is a session folder no fresh instance has", () => {
    const repoPath = { type: "string", description: "Path to the Git repository. Defaults to session working directory set via git_set_working_dir.", default: "." };
    const schema = {
      type: "object",
      properties: {
        path: repoPath,
        repo_path: { type: "string", description: "Path to Git repository" },
        filePath: { type: "string", description: "Path to the file to blame (relative to repository root)." },
        target: { type: "string", description: "Absolute path to the git repository to clone into." },
      },
      required: ["filePath"],
    };
    const rng = new Rng("workdir");
    // only for a tool that reads: one that writes (git_reset, git_clean) is not pointed at the real folder
    expect(synthesizeArgs(schema, rng, undefined, { optionalRate: 0 })!.path).toBeUndefined();
    for (let i = 0; i < 10; i++) {
      const a = synthesizeArgs(schema, rng, undefined, { optionalRate: 0, readsOnly: true })!;
      expect(a.path).toBe("./");
      expect(a.repo_path).toBe("./");
      expect(a.filePath).not.toBe("./"); // a file in it, not the folder
      expect(a.target).toBeUndefined();
    }
    // an absolute path, a schema that refuses "./", a path to something else: the usual rules
    const others = { type: "object", properties: { dir: { type: "string", description: "Absolute path to the git repository." }, root: { type: "string", pattern: "^[a-z]+$", description: "The project root directory" }, path: { type: "string", description: "Path of the file to read" } }, required: ["dir", "root", "path"] };
    const b = synthesizeArgs(others, rng)!;
    expect(b.dir).not.toBe("./");
    expect(b.path).not.toBe("./");
    expect(b.root).toMatch(/^[a-z]+$/);
  });
  it("makes up a few distinct items for a list argument (no [\"velvet\", \"velvet\"]), as many as the schema asks where it asks more", () => {
    const rng = new Rng("lists");
    const schema = { type: "object", properties: { observations: { type: "array", items: { type: "string", enum: ["a", "b", "c", "d"] } }, tags: { type: "array", items: { type: "string", enum: ["x", "y"] }, minItems: 4 } }, required: ["observations", "tags"] };
    let sawTwoOrMore = false;
    for (let i = 0; i < 40; i++) {
      const a = synthesizeArgs(schema, rng)!;
      const obs = a.observations as string[];
      expect(obs.length).toBeLessThanOrEqual(3);
      expect(new Set(obs).size).toBe(obs.length);
      sawTwoOrMore ||= obs.length >= 2;
      // four items of two values: repeats are what the schema asks
      expect((a.tags as string[]).length).toBeGreaterThanOrEqual(4);
    }
    expect(sawTwoOrMore).toBe(true);
  });
  it("fills counting arguments with whole numbers of everyday size, and an argument named after a thing with that thing's harvested names", () => {
    const rng = new Rng("counts");
    const schema = { type: "object", properties: { table: { type: "string" }, offset: { type: "number" }, limit: { type: "number" }, pageSize: { type: "integer" }, ratio: { type: "number" } }, required: ["table", "offset", "limit", "pageSize", "ratio"] };
    const pool = new ValuePool();
    // list_tables' entries are tables: their names are filed as table names
    pool.harvest("list_tables", result([{ name: "customers" }, { name: "orders" }]));
    for (let i = 0; i < 20; i++) {
      const args = synthesizeArgs(schema, rng, pool, { poolRate: 1 })!;
      expect(["customers", "orders"]).toContain(args.table);
      expect([0, 1, 2]).toContain(args.offset);
      expect(Number.isInteger(args.limit) && (args.limit as number) >= 1 && (args.limit as number) <= 10).toBe(true);
      expect(Number.isInteger(args.pageSize)).toBe(true);
      expect(typeof args.ratio).toBe("number");
    }
    // a count bounded far apart (git_log's maxCount 1 … 1000, maxCommits) mostly gets a limit a
    // person would set; one bounded near gets any value of its range
    const bounded = { type: "object", properties: { maxCount: { type: "integer", minimum: 1, maximum: 1000 }, maxCommits: { type: "integer", minimum: 1, maximum: 1000 }, top: { type: "integer", minimum: 5, maximum: 15 } }, required: ["maxCount", "maxCommits", "top"] };
    const drawn = Array.from({ length: 50 }, () => synthesizeArgs(bounded, rng, undefined)!);
    for (const key of ["maxCount", "maxCommits"]) {
      const everyday = drawn.filter((a) => (a[key] as number) <= 10).length;
      expect(everyday, key).toBeGreaterThanOrEqual(30);
      expect(drawn.every((a) => Number.isInteger(a[key]) && (a[key] as number) >= 1 && (a[key] as number) <= 1000)).toBe(true);
    }
    expect(new Set(drawn.map((a) => a.top)).size).toBeGreaterThan(5);
    expect(drawn.every((a) => (a.top as number) >= 5 && (a.top as number) <= 15)).toBe(true);
    // a list of names takes known names, each once; a search looks for a name the server gave
    const graph = new ValuePool();
    graph.harvest("read_graph", result({ entities: [{ name: "Ada Lovelace", entityType: "person" }, { name: "Analytical Engine", entityType: "machine" }] }));
    const lists = { type: "object", properties: { names: { type: "array", items: { type: "string" } }, query: { type: "string" } }, required: ["names", "query"] };
    for (let i = 0; i < 10; i++) {
      const args = synthesizeArgs(lists, rng, graph, { poolRate: 1 })!;
      const names = args.names as string[];
      expect(names.length).toBeGreaterThan(0);
      expect(new Set(names).size).toBe(names.length);
      for (const n of [...names, args.query]) expect(["Ada Lovelace", "Analytical Engine"]).toContain(n);
    }
    // a field named after its list's items is not said twice
    expect(pickAnswerField(result({ entities: [{ name: "Ada", entityType: "person" }] }), { names: ["Ada"] })).toEqual({ label: "entity type", value: "person" });
    // a bare list's first item is the first entry, not a "first name"
    expect(pickAnswerField(result([{ name: "Ada Lovelace", city: "London" }, { name: "Grace Hopper" }]), {})).toEqual({ label: "first entry's name", value: "Ada Lovelace" });
  });

  it("says a call's lists and records in words, not JSON, and keeps JSON for what is nested deeper", () => {
    expect(describeArgs({})).toBe("no inputs");
    expect(describeArgs({ query: "velvet", limit: 5, exact: true })).toBe('query "velvet", limit 5, exact true');
    expect(describeArgs({ entityNames: ["velvet", "harbor", "orbit"] })).toBe('entity names "velvet", "harbor" and "orbit"');
    // one record of a list reads in the singular, headed by its name
    expect(describeArgs({ entities: [{ name: "harbor", entityType: "orbit", observations: ["delta", "maple"] }] })).toBe('entity "harbor" (entity type "orbit", observations "delta" and "maple")');
    // records without a name are their fields; items with commas are told apart by semicolons
    expect(describeArgs({ relations: [{ from: "delta", to: "alpha", relationType: "works with" }, { from: "river", to: "harbor", relationType: "owns" }] })).toBe(
      '2 relations: from "delta", to "alpha", relation type "works with"; and from "river", to "harbor", relation type "owns"',
    );
    expect(describeArgs({ ids: [{ id: 3 }, { id: 4 }] })).toBe("2 ids: 3 and 4");
    expect(describeArgs({ customer: { name: "Ada", email: "ada@example.org" }, tags: [] })).toBe('customer with name "Ada", email "ada@example.org", no tags');
    expect(describeArgs({ deletions: [{ entityName: "velvet", observations: [] }] })).toBe('deletion entity name "velvet", no observations');
    // deeper than a record's list of words: exact JSON
    expect(describeArgs({ filter: { where: { age: { gt: 3 } } } })).toBe('filter {"where":{"age":{"gt":3}}}');
  });

  it("names a field by a noun, quoting a key that is a preposition or a participle", () => {
    // a list of one is that one thing: "entity name", not "entities name"
    expect(answerFields(result({ entities: [{ name: "Ada", role: "engineer" }] }), {}).map((f) => f.label)).toEqual(["entity name", "entity role"]);
    // "What is the first relation to?" asks nothing; the key as written does
    const relations = answerFields(result({ relations: [{ from: "Ada", to: "Engine", relationType: "built" }, { from: "Grace", to: "Mark I", relationType: "programmed" }] }), {});
    expect(relations.map((f) => f.label)).toEqual(['"from" field of the first relation', '"to" field of the first relation', "first relation type"]);
    expect(answerFields(result({ user: "ada", joined: "2021-03-04", last_modified: "2022-01-02", speed: 12, created_at: "2020-05-06" }), {}).map((f) => f.label)).toEqual(["user", '"joined" field', '"last_modified" field', "speed", '"created_at" field']);
  });
  it("asks about a bare number result; not about an image's size, a single character, undecodable text or the machine's name; an echo in other case is checked with case", () => {
    const text = (t: string) => ({ isError: false, text: t, content: [{ type: "text", text: t }] }) as unknown as ToolResult;
    expect(pickAnswerField(text("6"), { a: 2, b: 3 })).toEqual({ label: "result", value: 6 });
    expect(pickAnswerField(text("a tiny picture\n[image: image/png, 4033 bytes]"), {})).toEqual({ label: "result", value: "a tiny picture" });
    expect(pickAnswerField(text("m"), { text: "mango" })).toBeUndefined();
    expect(pickAnswerField(text("#91ba0b"), { color: "#91ba0b", to: "hex" })).toBeUndefined();
    expect(pickAnswerField(text("\ufffd\ufffd\ufffd"), { text: "summit" })).toBeUndefined();
    expect(pickAnswerField(text(hostname()), {})).toBeUndefined();
    expect(pickAnswerField(text("SUMMIT"), { text: "summit" })).toEqual({ label: "result", value: "SUMMIT", caseSensitive: true });
    expect(pickAnswerField(result({ upper: "SUMMIT" }), { text: "summit" })).toEqual({ label: "upper", value: "SUMMIT", caseSensitive: true });
  });
  it("nor a value naming the server instance's working copy (another instance has another)", () => {
    const text = (t: string) => ({ isError: false, text: t, content: [{ type: "text", text: t }] }) as unknown as ToolResult;
    expect(pickAnswerField(text("Allowed directories:\n/tmp/train-mcp-work-kJfigJ"), {})).toBeUndefined();
    expect(pickAnswerField(result({ root: "/tmp/train-mcp-work-kJfigJ", files: 3 }), {})).toEqual({ label: "files", value: 3 });
    const pool = new ValuePool();
    pool.harvest("list", result({ path: "/tmp/train-mcp-work-kJfigJ/a.txt", name: "a.txt" }));
    expect(pool.lookup("path")).toEqual([]);
    expect(pool.lookup("name")).toEqual(["a.txt"]);
  });
  it("files the names of a plain-text listing under its heading's noun, and paths as paths (server-redis's list, mcp-obsidian's search); prose is no listing", () => {
    const text = (t: string): ToolResult => ({ isError: false, text: t, truncated: false });
    const pool = new ValuePool();
    pool.harvest("list", text("Found keys:\nuser:1:name\nconfig:theme\ngreeting"));
    expect(pool.lookup("key")).toEqual(["user:1:name", "config:theme", "greeting"]);
    pool.harvest("search_notes", text("/projects/garden-plan.md\n/daily/2024-03-14.md"));
    expect(pool.lookup("path")).toEqual(["/projects/garden-plan.md", "/daily/2024-03-14.md"]);
    // a search is made for a listed note's name when the server gave no name or title
    expect(pool.lookup("query")).toEqual(["garden-plan", "2024-03-14"]);
    const prose = new ValuePool();
    prose.harvest("get", text("Hello, world"));
    prose.harvest("status", text("Server status:\nall systems go\nuptime 3 days"));
    expect(prose.keys()).toEqual([]);
  });
  it("asks a search tool for everything with an empty or wildcard query, where its one required argument is search text the schema takes so", () => {
    const tool = (properties: Record<string, unknown>, required: string[]): ToolSpec => ({ name: "search_notes", description: "", inputSchema: { type: "object", properties, required } });
    expect(matchAllArgs(tool({ query: { type: "string" } }, ["query"]))).toEqual([{ query: "" }, { query: "*" }]);
    expect(matchAllArgs(tool({ q: { type: "string", minLength: 1 } }, ["q"]))).toEqual([{ q: "*" }]);
    expect(matchAllArgs(tool({ query: { type: "string" }, index: { type: "string" } }, ["query", "index"]))).toEqual([]);
    expect(matchAllArgs(tool({ path: { type: "string" } }, ["path"]))).toEqual([]);
  });
  it("nor the time now to the minute, nor a Unix timestamp of today (a clock): other times of day are facts", () => {
    const now = new Date("2026-12-02T11:52:10Z");
    expect(clockLike("Current time: 11:52", now)).toBe(true);
    expect(clockLike("It is 11:53 AM", now)).toBe(true);
    expect(clockLike("Opens at 9:15", now)).toBe(false);
    expect(clockLike(Math.floor(now.getTime() / 1000) - 30, now)).toBe(true);
    expect(clockLike(now.getTime(), now)).toBe(true);
    expect(clockLike(1_000_000_000, now)).toBe(false);
    expect(clockLike(42, now)).toBe(false);
    // the same check as the generator makes it, against the real clock
    const t = new Date();
    expect(pickAnswerField(result({ at: `${t.getUTCHours()}:${String(t.getUTCMinutes()).padStart(2, "0")}`, name: "job" }), {})).toEqual({ label: "name", value: "job" });
  });
  it("nor today's date, this month, or a time counted from now (time-mcp's current_time, days_in_month, relative_time): other dates are facts", () => {
    const now = new Date("2026-12-06T10:20:00Z");
    expect(clockLike("Current UTC time is 2026-12, and the time in UTC is 2026-12.", now)).toBe(true);
    expect(clockLike("Today is 12/06/2026", now)).toBe(true);
    expect(clockLike("2026/12/05", now)).toBe(true);
    expect(clockLike("06.12.2026", now)).toBe(true);
    expect(clockLike("a month ago", now)).toBe(true);
    expect(clockLike("in 3 days", now)).toBe(true);
    expect(clockLike("2 years from now", now)).toBe(true);
    expect(clockLike("Next review on 2026-12-25", now)).toBe(false);
    expect(clockLike("Invoice INV-2026-1234", now)).toBe(false);
    expect(clockLike("Released 2024-03-14", now)).toBe(false);
    expect(clockLike("in 2024 the ago column", now)).toBe(false);
    // nor the number of a text that counts from now (relative_time's "3 years ago")
    expect(pickAnswerField({ isError: false, text: "3 years ago", truncated: false }, { time: "2024-01-11 04:00:00" })).toBeUndefined();
    expect(pickAnswerField({ isError: false, text: "The number of days in month is 29.", truncated: false }, { date: "2024-02-24" })).toEqual({ label: "result", value: 29 });
  });
  it("ends a reference answer with one full stop, also after a value ending with one", () => {
    expect(answerSentence("capital", "Washington, D.C.")).toBe("The capital is Washington, D.C.");
    expect(answerSentence("value", 0.1 + 0.2)).toBe("The value is 0.3.");
  });
  it("names the first item of a list in the singular", () => {
    expect(["entities", "boxes", "addresses", "orders", "status", "days", "first matches"].map(singularLabel)).toEqual(["entity", "box", "address", "order", "status", "day", "first match"]);
  });
  it("quotes the line of a tool's error that says what went wrong, not a markdown heading over it", () => {
    expect(errorLineOf("### Error\nError: No network request with index 7\n")).toBe("Error: No network request with index 7");
    expect(errorLineOf("No session working directory set. Please specify a 'path' or use 'git_set_working_dir' first.")).toBe("No session working directory set. Please specify a 'path' or use 'git_set_working_dir' first.");
    expect(errorLineOf("### Error")).toBe("Error");
    expect(errorLineOf("\n\n  no key   velvet \n")).toBe("no key velvet");
  });
  it("notes a task set where most tasks expect one answer (a model always giving it would score without the tools)", () => {
    const task = (i: number, value: string) => ({ id: `s${i}`, task: `t${i}`, difficulty: 1, split: "train" as const, tags: [], expected: [{ kind: "contains" as const, value, caseSensitive: false }] });
    const mostlyPerson = [...Array.from({ length: 5 }, (_, i) => task(i, "person")), task(5, "company"), task(6, "Alice")];
    expect(constantAnswerNote(mostlyPerson)).toMatch(/^5 of 7 tasks expect the same answer \("person"\): a model that always gives it scores 71% without the tools/);
    expect(constantAnswerNote([...mostlyPerson, task(7, "Bob"), task(8, "Acme"), task(9, "x")])).toBeUndefined();
    // three answers for nearly all (git-mcp-server's tasks on one repository: "main", "HEAD@{0}", 4)
    const git = [...[0, 1, 2, 3].map((i) => task(i, "main")), ...[4, 5, 6].map((i) => task(i, "HEAD@{0}")), ...[7, 8].map((i) => task(i, "4")), task(9, "3d6efa34")];
    expect(constantAnswerNote(git)).toBe(
      '9 of 10 tasks expect one of three answers ("main", "HEAD@{0}", "4"): a model that always gives "main" scores 40% without the tools, and one that guesses among the three more; ' +
        "the server's tools offer few distinct answers here: add hand-written scenarios, or train on more servers",
    );
    // tasks checked only on the server (server-memory's create_entities with --allow-writes) share no answer
    const change = (i: number, value: string) => ({ ...task(i, ""), expected: [{ kind: "state" as const, tool: "read_graph", arguments: {}, expect: { kind: "contains" as const, value, caseSensitive: false } }] });
    expect(constantAnswerNote([...Array.from({ length: 6 }, (_, i) => change(i, `v${i}`)), task(6, "person"), task(7, "person")])).toBeUndefined();
  });
});
