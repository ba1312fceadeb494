/**
 * Tools that run a shell command the caller writes (mcp-server-commands' run_command,
 * desktop-commander's start_process, a `run {command}`): recognised by their shape — a required
 * string argument named like a command line, in a tool whose name or description speaks of
 * running, executing, a shell or a terminal — never by the server's name.
 *
 * Such a tool can change anything the server's user can, whatever its name says ("run_command"
 * reads like a lookup to a verb list) or its annotations claim, so isReadOnlyTool treats it as a
 * writer: it is called only with --allow-writes, never harvested with made-up arguments, and never
 * used to make a starting state. The shell recipes (shell.ts) are the only ones that call it, with
 * read-only commands they compose themselves, through runCommand and commandOutput here.
 *
 * No import from the other recipe modules (types aside): generic.ts's isReadOnlyTool imports this one.
 */
import type { ToolResult, ToolSpec } from "../../mcp/types.js";
import type { RecipeContext } from "./recipe.js";

/** A command runner: the tool, the argument that takes the command line, and fixed values for its other required arguments (a timeout). */
export interface CommandTool {
  tool: ToolSpec;
  arg: string;
  /** values for the other required arguments: a number of seconds or milliseconds to wait */
  fixed: Record<string, number>;
  /** the argument says shell command, not a script for some interpreter (run_script {script, interpreter}) */
  shell: boolean;
}

type ShapeOnly = Pick<ToolSpec, "name"> & { description?: string; inputSchema?: ToolSpec["inputSchema"] };

// a command line; `script` is one too, but for which interpreter the tool alone may not say
const COMMAND_ARG = /^(command|cmd|command_?line|shell_?command|bash_?command|script)$/i;
// "Run a command on this linux machine", "Execute a terminal command", "start_process"
const RUNS = /\b(run|runs|running|execute|executes|exec|shell|terminal|bash|start process|command line)\b/i;
const TIMEOUT_ARG = /^(timeout|timeout_?ms|timeout_?seconds|timeout_?s|wait_?ms)$/i;

/** The command argument of a tool that runs command lines, or undefined. */
export function commandArgOf(t: ShapeOnly): string | undefined {
  const props = (t.inputSchema?.properties ?? {}) as Record<string, { type?: unknown; enum?: unknown }>;
  const required = (t.inputSchema?.required as string[] | undefined) ?? [];
  // `command: "create" | "delete"` picks an operation (OPERATION_ARG in generic.ts): no shell
  const arg = required.find((a) => COMMAND_ARG.test(a) && props[a]?.type === "string" && props[a]?.enum === undefined);
  if (!arg) return undefined;
  return RUNS.test(`${words(t.name)} ${t.description ?? ""}`) ? arg : undefined;
}

/** Whether a tool runs command lines it is given: a writer, whatever else it says of itself. */
export function runsCommands(t: ShapeOnly): boolean {
  return commandArgOf(t) !== undefined;
}

// source code to run (mcp-server-code-runner's `run-code {code, languageId}`, run_python_code
// {python_code}), not a math expression
const CODE_ARG = /^((python|py|js|javascript|typescript|ts|ruby|r|sql)_?code|code(_?snippet)?|source(_?code)?|program|snippet)$/i;
const RUNS_CODE = /\b(run|runs|running|execute|executes|exec|eval|evaluate|evaluates|interpret|interprets)\b/i;

/**
 * Whether a tool runs source code it is given: with no annotation saying it reads only (a
 * snippet run in a sandbox of the server's own, as the code-runner fixture's), code can change
 * anything the server's user can. By its name and its description's first sentence, unless
 * that says it does not run it ("lint_code": "…without running it").
 */
export function runsCode(t: ShapeOnly): boolean {
  const props = (t.inputSchema?.properties ?? {}) as Record<string, { type?: unknown }>;
  const required = (t.inputSchema?.required as string[] | undefined) ?? [];
  const sentence = /^[^.!?]*/.exec((t.description ?? "").trim())?.[0] ?? "";
  const said = `${words(t.name)} ${sentence}`;
  return required.some((a) => CODE_ARG.test(words(a).replace(/ /g, "_")) && props[a]?.type === "string") && RUNS_CODE.test(said) && !/\b(without|not|never|no)\b[^.]*\b(run|execut|eval)/i.test(said);
}

/** The tool as a command runner the recipes can call: every other required argument a timeout they can fill in. */
export function commandTool(t: ToolSpec): CommandTool | undefined {
  const arg = commandArgOf(t);
  if (!arg) return undefined;
  const props = (t.inputSchema.properties ?? {}) as Record<string, { type?: unknown }>;
  const fixed: Record<string, number> = {};
  for (const a of (t.inputSchema.required as string[] | undefined) ?? []) {
    if (a === arg) continue;
    if (!TIMEOUT_ARG.test(a) || (props[a]?.type !== "number" && props[a]?.type !== "integer")) return undefined;
    // desktop-commander's start_process requires timeout_ms: long enough for a find over a folder
    fixed[a] = /ms$/i.test(a) ? 10_000 : 10;
  }
  // a script for an interpreter the tool picks (run_script's default "undefined") may not be sh:
  // only where the description says shell
  const shell = !/^script$/i.test(arg) || /\b(shell|bash|sh)\b/i.test(t.description ?? "");
  return { tool: t, arg, fixed, shell };
}

/** Runs a command with the tool: a probe, or a call of the solution. */
export function runCommand(ctx: RecipeContext, runner: CommandTool, command: string, as: "probe" | "call"): Promise<ToolResult> {
  const args = { ...runner.fixed, [runner.arg]: command };
  return as === "probe" ? ctx.probe(runner.tool.name, args) : ctx.call(runner.tool.name, args);
}

const BEGIN = "@@train-mcp-begin";
const END = "@@train-mcp-end";

/**
 * What a command prints on stdout, read between two marker lines whatever the server wraps it in
 * (a probe, no part of the solution); undefined when it fails (its exit status, or the call's).
 * stderr is dropped: a server may show it anywhere.
 */
export async function commandOutput(ctx: RecipeContext, runner: CommandTool, command: string): Promise<string | undefined> {
  const r = await runCommand(ctx, runner, `echo ${BEGIN}; { ${command}; } 2>/dev/null; echo "${END} $?"`, "probe");
  if (r.isError) return undefined;
  const m = new RegExp(`${BEGIN}\\r?\\n([\\s\\S]*?)${END} (\\d+)`).exec(r.text);
  if (!m || m[2] !== "0") return undefined;
  return m[1].replace(/\r\n/g, "\n").replace(/\n$/, "");
}

function words(name: string): string {
  return name.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " ");
}
