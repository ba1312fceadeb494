/**
 * Recipes for servers that run shell commands (mcp-server-commands' run_command, a `run
 * {command}`; shell-tool.ts recognises the tool by its shape): tasks a user asks of the files in
 * the server's working folder ("How many lines does notes/todo.txt have?", "Which file under src/
 * mentions TODO?"), each answered by one read-only command the recipe composes (shell-questions.ts)
 * and run for real.
 *
 * What to ask about is found through the tool itself: a `find . -type f` lists the working
 * folder (hidden files and node_modules aside), so the recipes work on whatever folder the user
 * gives with --template-dir. Paths are relative to it: the copy's absolute path differs per
 * instance, and no task names or answers one. Nothing that changes from run to run is asked
 * (times, process ids, sizes of folders that a server writes to).
 *
 * A command's output comes wrapped in the server's words ("exit 0\nstdout: …", a STDOUT block),
 * so a value is first read by a probe (no part of the solution) that runs the command between two
 * marker lines; then the command itself is called, alone, and must state that value: the
 * reference is the command a person would type.
 *
 * Writes: the tool runs anything (`rm -rf` is a command too), so isReadOnlyTool counts it a
 * writer and the recipes need --allow-writes, as browser.ts's navigate does: the generator only
 * sends the read-only commands composed here, but training then hands the tool to a model that
 * writes its own, and that is for the user to allow. --template-dir is not required (a read of
 * the user's own folder is safe, and the answers hold while it does not change) but advised, with
 * --sandbox (bubblewrap: nothing writable but that copy, no network), for the rollouts: generate.ts
 * notes what is missing (shellAdvice).
 */
import type { Toolbox, ToolSpec } from "../../mcp/types.js";
import type { Recipe, RecipeContext } from "./recipe.js";
import { SHELL_QUESTIONS, type Explored } from "./shell-questions.js";
import { commandOutput, commandTool, type CommandTool } from "./shell-tool.js";

/** The tool the recipes run commands with: the first that takes a shell command line (not a script for some other interpreter) and needs nothing else they cannot fill in. */
export function detectShell(tools: readonly ToolSpec[]): CommandTool | undefined {
  return tools.map(commandTool).find((c) => c?.shell);
}

/** The shell recipes a tool list allows: one per kind of question, all on the command tool. */
export function shellRecipes(tools: readonly ToolSpec[]): Recipe[] {
  const runner = detectShell(tools);
  if (!runner) return [];
  const name = runner.tool.name;
  return SHELL_QUESTIONS.map((q) => ({
    id: `shell.${q.id}`,
    tools: [name],
    primary: name,
    weight: q.weight,
    build: async (ctx: RecipeContext) => {
      const files = await explore(ctx, runner);
      return files && files.files.length > 0 ? q.build(ctx, files) : undefined;
    },
  }));
}

/**
 * Why a shell server's command tool gets no task: it is left out without --allow-writes (by its
 * shape, shell-tool.ts). Undefined for a server that has no command tool, or may call it.
 */
export function shellNeeds(tools: readonly ToolSpec[], usable: readonly ToolSpec[]): string | undefined {
  const runner = detectShell(tools);
  if (!runner || usable.some((t) => t.name === runner.tool.name)) return undefined;
  return (
    `the server runs shell commands (${runner.tool.name}), which can change anything, so only \`scenarios generate --allow-writes\` calls it (train then takes the file it writes with --scenarios): ` +
    `its tasks ask about the files in the server's working folder, each built from a read-only command (wc, head, grep, find); best with --template-dir DIR --sandbox (a throwaway copy of DIR, nothing else writable, no network)`
  );
}

/**
 * Why the shell recipes would find nothing to ask about, found with one listing before any
 * attempt (else every attempt fails alike and the error names only the recipes): the working
 * folder has no plain file, or the tool could not list it. Undefined when it has files.
 */
export async function shellFolderProblem(box: Pick<Toolbox, "call">, runner: CommandTool): Promise<string | undefined> {
  const r = await box.call(runner.tool.name, { ...runner.fixed, [runner.arg]: LIST_FILES });
  const why = r.isError ? `\`${LIST_FILES}\` failed there (${r.text.trim().split("\n")[0].slice(0, 120)})` : "`find . -type f` lists no file there (hidden files and node_modules aside)";
  // a line of find's own ("./README.md"), whatever the server puts before it ("stdout: ")
  if (!r.isError && r.text.split("\n").some((l) => PLAIN_PATH.test(/(?:^|\s)\.\/(\S+)\s*$/.exec(l)?.[1] ?? ""))) return undefined;
  return `the server runs shell commands (${runner.tool.name}), and its tasks ask about the files in its working folder, but ${why}: give it a folder of files with --template-dir DIR`;
}

/** What the shell tasks need to hold in training, when something is missing: a copy of a folder (--template-dir) and --sandbox. */
export function shellAdvice(runner: CommandTool, isolation: { templateDir: boolean; sandbox: boolean } | undefined): string | undefined {
  const missing = [
    ...(isolation?.templateDir ? [] : ["--template-dir DIR (each server instance in a fresh copy of DIR: answers hold on every one, and what a rollout deletes comes back)"]),
    ...(isolation?.sandbox ? [] : ["--sandbox (bubblewrap: nothing writable but that copy, no network)"]),
  ];
  if (missing.length === 0) return undefined;
  return (
    `the server runs shell commands (${runner.tool.name}): the tasks ask about the files in its working folder, each built from a read-only command, but in training the model runs whatever commands it writes; ` +
    `give the server ${missing.join(" and ")}, on every command that starts it (train too)`
  );
}

// the files worth asking about: not hidden (.git), not installed packages; small enough to read
const LIST_FILES = "find . -type f -size -256k ! -path '*/.*' ! -path '*/node_modules/*' | LC_ALL=C sort | head -n 300";
// a path a task can give as it is and a command can take unquoted
const PLAIN_PATH = /^[A-Za-z0-9_][A-Za-z0-9_.+-]*(\/[A-Za-z0-9_][A-Za-z0-9_.+-]*)*$/;

/** The working folder's files (relative paths, sorted) and their folders, as the tool lists them. */
async function explore(ctx: RecipeContext, runner: CommandTool): Promise<Explored | undefined> {
  const out = await commandOutput(ctx, runner, LIST_FILES);
  if (out === undefined) return undefined;
  const files = out
    .split("\n")
    .map((l) => l.trim().replace(/^\.\//, ""))
    .filter((p) => PLAIN_PATH.test(p));
  const dirs = new Set<string>(["."]);
  for (const f of files) {
    const parts = f.split("/");
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
  }
  return { runner, files, dirs: [...dirs].sort() };
}
