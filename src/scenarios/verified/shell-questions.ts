/**
 * The questions shell.ts asks of a working folder, each answered by one read-only command composed
 * here from a listed path and a word read out of a file — never from made-up text — with the
 * command's own output as the answer:
 *
 * - lines `wc -l < F`, bytes `wc -c < F`, first-line `head -n 1 F`, last-line `tail -n 1 F`,
 *   line-n `sed -n '12p' F`;
 * - grep-count `grep -c WORD F`: lines of a file holding a word of its own (asked only where a
 *   whole-word, case-blind count agrees);
 * - which-file `grep -rl WORD DIR`: the one file under a folder that holds a word;
 * - count-ext `find DIR -type f -name '*.EXT' | wc -l`, entries `ls DIR | wc -l`;
 * - find-read: a file named only by its base name (`find . -name NAME`), then its first line or
 *   its line count: two calls.
 *
 * Each value is read by a probe first (shell-tool.ts's commandOutput), where one can be in doubt
 * (a file with no newline at its end has one line more than `wc -l` says; grep's count differs
 * when case is ignored) the question is not asked, and a value the task's own words hold (a count
 * of 2 about notes/2.txt) is not asked either.
 */
import type { ToolResult } from "../../mcp/types.js";
import { checkAnswer } from "../check.js";
import type { AnswerCheck } from "../schema.js";
import { quotable } from "./document-answer.js";
import { clockLike } from "./generic.js";
import { containsCheck, numericCheck, type Draft, type RecipeContext } from "./recipe.js";
import { commandOutput, runCommand, type CommandTool } from "./shell-tool.js";

/** The working folder as the tool listed it. */
export interface Explored {
  runner: CommandTool;
  /** relative paths ("src/lib/math.js"), sorted */
  files: string[];
  /** "." and every folder above a file */
  dirs: string[];
}

export interface ShellQuestion {
  id: string;
  weight: number;
  build(ctx: RecipeContext, x: Explored): Promise<Draft | undefined>;
}

/** The value found, how the task asks for it, and the command that answers it. */
interface Ask {
  command: string;
  task: string;
  expected: AnswerCheck[];
  answer: string;
  difficulty: number;
}

export const SHELL_QUESTIONS: readonly ShellQuestion[] = [
  {
    id: "lines",
    weight: 2,
    async build(ctx, x) {
      const path = ctx.rng.pick(x.files);
      // `grep -c ''` counts a last line with no newline after it too: where the two differ a person's count is in doubt
      const counts = await numbers(ctx, x, `grep -Iq . ${path} && wc -l < ${path} && grep -c '' ${path}`);
      if (!counts || counts.length !== 2 || counts[0] !== counts[1] || counts[0] < 1) return undefined;
      const n = counts[0];
      const task = ctx.phrase(["How many lines does {path} have?", "Count the lines in the file {path}."], ["What is the line count of {path}?"], { path });
      return ask(ctx, x, { command: `wc -l < ${path}`, task, expected: [numericCheck(n)], answer: `${path} has ${n} line${n === 1 ? "" : "s"}.`, difficulty: 1 });
    },
  },
  {
    id: "bytes",
    weight: 1,
    async build(ctx, x) {
      const path = ctx.rng.pick(x.files);
      const [n] = (await numbers(ctx, x, `wc -c < ${path}`)) ?? [];
      if (n === undefined || n < 1) return undefined;
      const task = ctx.phrase(["How many bytes is the file {path}?", "What is the size of {path} in bytes?"], ["How big is {path}, in bytes?"], { path });
      return ask(ctx, x, { command: `wc -c < ${path}`, task, expected: [numericCheck(n)], answer: `${path} is ${n} bytes.`, difficulty: 1 });
    },
  },
  {
    id: "first-line",
    weight: 2,
    async build(ctx, x) {
      const path = ctx.rng.pick(x.files);
      const line = await oneLine(ctx, x, `grep -Iq . ${path} && head -n 1 ${path}`);
      if (line === undefined) return undefined;
      const task = ctx.phrase(["What is the first line of {path}?", "Show me the first line of the file {path}."], ["Tell me what {path} starts with: its first line."], { path });
      return ask(ctx, x, { command: `head -n 1 ${path}`, task, expected: [containsCheck(line)], answer: `The first line of ${path} is: ${line}`, difficulty: 1 });
    },
  },
  {
    id: "last-line",
    weight: 1,
    async build(ctx, x) {
      const path = ctx.rng.pick(x.files);
      const line = await oneLine(ctx, x, `grep -Iq . ${path} && tail -n 1 ${path}`);
      // a one-line file's last line is its first: that question is first-line's
      const first = await oneLine(ctx, x, `head -n 1 ${path}`);
      if (line === undefined || line === first) return undefined;
      const task = ctx.phrase(["What does the last line of {path} say?", "Read me the last line of {path}."], ["What is the final line of the file {path}?"], { path });
      return ask(ctx, x, { command: `tail -n 1 ${path}`, task, expected: [containsCheck(line)], answer: `The last line of ${path} is: ${line}`, difficulty: 1 });
    },
  },
  {
    id: "grep-count",
    weight: 2,
    async build(ctx, x) {
      const path = ctx.rng.pick(x.files);
      const word = await wordOf(ctx, x, path);
      if (!word) return undefined;
      // the count a case-blind search and a whole-word search give too: "contain Harbor" is then
      // not in doubt, nor "contain const" where "constant" would count for grep alone
      const counts = await numbers(ctx, x, `grep -c ${word} ${path}; grep -ci ${word} ${path}; grep -cw ${word} ${path}`);
      if (!counts || counts.length !== 3 || new Set(counts).size !== 1 || counts[0] < 1 || rareOne(ctx, counts[0])) return undefined;
      const n = counts[0];
      const task = ctx.phrase(['How many lines of {path} contain "{word}"?', 'In {path}, on how many lines does "{word}" appear?'], ['Count the lines in {path} that mention "{word}".'], { path, word });
      return ask(ctx, x, { command: `grep -c ${word} ${path}`, task, expected: [numericCheck(n)], answer: `${n} line${n === 1 ? "" : "s"} of ${path} contain${n === 1 ? "s" : ""} "${word}".`, difficulty: 2 });
    },
  },
  {
    id: "which-file",
    weight: 2,
    async build(ctx, x) {
      const path = ctx.rng.pick(x.files);
      const dir = ctx.rng.pick(x.dirs.filter((d) => d === "." || path.startsWith(`${d}/`)));
      // a word of the file that no other file under the folder has: a few of its words are
      // counted at once (most words of source code are in every file)
      const words = ctx.rng.sample(await wordsOf(ctx, x, path), 12);
      if (words.length === 0) return undefined;
      const counts = await commandOutput(ctx, x.runner, `for w in ${words.join(" ")}; do grep -ril "$w" ${dir} | wc -l; done`);
      const alone = words.filter((_, i) => counts?.split("\n")[i]?.trim() === "1");
      if (alone.length === 0) return undefined;
      const word = ctx.rng.pick(alone);
      // -i: a person asking which file "mentions" a word does not mind its case
      const command = `grep -ril ${word} ${dir}`;
      const found = await commandOutput(ctx, x.runner, command);
      // that one file is the one the word came from, and no hidden one (.git)
      if (found === undefined || found.replace(/^\.\//, "") !== path) return undefined;
      const where = dir === "." ? "the current directory" : `${dir}/`;
      const task = ctx.phrase(['Which file under {where} mentions "{word}"?', 'One file in {where} (subfolders included) contains the word "{word}". Which one?'], ['Find the file in {where} that says "{word}".'], { where, word });
      // its base name says which, where no other file listed has it
      const name = baseName(path);
      const shown = x.files.filter((f) => baseName(f) === name).length === 1 ? name : path;
      return ask(ctx, x, { command, task, expected: [containsCheck(shown)], answer: `It is ${path}.`, difficulty: 2 });
    },
  },
  {
    id: "line-n",
    weight: 1,
    async build(ctx, x) {
      // source code's first and last lines are a comment's "/**" and a "}": a line inside says more
      const path = ctx.rng.pick(x.files);
      const k = ctx.rng.int(2, 30);
      const line = await oneLine(ctx, x, `grep -Iq . ${path} && [ "$(grep -c '' ${path})" -ge ${k} ] && sed -n '${k}p' ${path}`);
      if (line === undefined) return undefined;
      const task = ctx.phrase(["What does line {k} of {path} say?", "Show me line {k} of the file {path}."], ["Read line number {k} of {path} to me."], { k, path });
      return ask(ctx, x, { command: `sed -n '${k}p' ${path}`, task, expected: [containsCheck(line)], answer: `Line ${k} of ${path} is: ${line}`, difficulty: 1 });
    },
  },
  {
    id: "count-ext",
    weight: 1,
    async build(ctx, x) {
      const exts = [...new Set(x.files.map(extOf).filter((e): e is string => e !== undefined))].sort();
      if (exts.length === 0) return undefined;
      const ext = ctx.rng.pick(exts);
      const dir = ctx.rng.pick(x.dirs.filter((d) => x.files.some((f) => extOf(f) === ext && (d === "." || f.startsWith(`${d}/`)))));
      const command = `find ${dir} -type f -name '*.${ext}' | wc -l`;
      const [n] = (await numbers(ctx, x, command)) ?? [];
      if (n === undefined || n < 1 || rareOne(ctx, n)) return undefined;
      const where = dir === "." ? "the current directory" : `${dir}/`;
      const task = ctx.phrase(["How many .{ext} files are there under {where}, subfolders included?", "Count the .{ext} files in {where} and its subfolders."], ["How many files ending in .{ext} does {where} hold, counting subfolders?"], { ext, where });
      return ask(ctx, x, { command, task, expected: [numericCheck(n)], answer: `There ${n === 1 ? "is 1" : `are ${n}`} .${ext} file${n === 1 ? "" : "s"} under ${where}.`, difficulty: 2 });
    },
  },
  {
    id: "entries",
    weight: 1,
    async build(ctx, x) {
      const dir = ctx.rng.pick(x.dirs);
      const command = `ls ${dir} | wc -l`;
      const [n] = (await numbers(ctx, x, command)) ?? [];
      if (n === undefined || n < 1 || rareOne(ctx, n)) return undefined;
      const where = dir === "." ? "the current directory" : `${dir}/`;
      const task = ctx.phrase(["How many files and folders are directly inside {where}, hidden ones aside?", "Not counting hidden entries, how many entries does {where} have (not looking into subfolders)?"], ["How many visible entries sit at the top level of {where}?"], { where });
      return ask(ctx, x, { command, task, expected: [numericCheck(n)], answer: `${where} has ${n} entr${n === 1 ? "y" : "ies"}.`, difficulty: 1 });
    },
  },
  {
    id: "find-read",
    weight: 2,
    async build(ctx, x) {
      // a file in a subfolder, whose base name no other file has: the task names only that
      const nested = x.files.filter((f) => f.includes("/") && x.files.filter((o) => baseName(o) === baseName(f)).length === 1);
      if (nested.length === 0) return undefined;
      const path = ctx.rng.pick(nested);
      const name = baseName(path);
      const findCommand = `find . -name '${name}'`;
      if ((await commandOutput(ctx, x.runner, findCommand)) !== `./${path}`) return undefined;
      // its first line, or (source code's is a comment's "/**") how many lines it has
      const line = await oneLine(ctx, x, `grep -Iq . ${path} && head -n 1 ${path}`);
      const counts = line === undefined ? await numbers(ctx, x, `grep -Iq . ${path} && wc -l < ${path} && grep -c '' ${path}`) : undefined;
      const lines = counts?.length === 2 && counts[0] === counts[1] && counts[0] > 1 ? counts[0] : undefined;
      if (line === undefined && lines === undefined) return undefined;
      const vars = { name };
      const a: Ask =
        line !== undefined
          ? {
              command: `head -n 1 ${path}`,
              task: ctx.phrase(["Somewhere in the current directory there is a file called {name}. What is its first line?", "Find the file named {name} (it is in a subfolder) and tell me its first line."], ["Where is {name}, and what does its first line say?"], vars),
              expected: [containsCheck(line)],
              answer: `${name} is ${path}; its first line is: ${line}`,
              difficulty: 3,
            }
          : {
              command: `wc -l < ${path}`,
              task: ctx.phrase(["Somewhere in the current directory there is a file called {name}. How many lines does it have?", "Find the file named {name} (it is in a subfolder) and count its lines."], ["Where is {name}, and how long is it in lines?"], vars),
              expected: [numericCheck(lines!)],
              answer: `${name} is ${path}; it has ${lines} lines.`,
              difficulty: 3,
            };
      if (!fair(a.expected, a.task)) return undefined;
      const found = await runCommand(ctx, x.runner, findCommand, "call");
      if (found.isError || !checkAnswer(containsCheck(path), found.text).pass) return undefined;
      return ask(ctx, x, a);
    },
  },
];

/** Runs the answering command (the solution's call) where the value is fair to ask, and keeps the task only if its output states every expected value. */
async function ask(ctx: RecipeContext, x: Explored, a: Ask): Promise<Draft | undefined> {
  if (!fair(a.expected, a.task)) return undefined;
  const r = await runCommand(ctx, x.runner, a.command, "call");
  if (!states(a.expected, r)) return undefined;
  return { task: a.task, difficulty: a.difficulty, expected: a.expected, answer: a.answer };
}

/**
 * A count of 1 half the time it comes up (the attempt is made again): a word is mostly on one
 * line of a small file, a folder holds one file of a kind, and a set where most counts are 1
 * teaches a model to say 1 without running anything.
 */
function rareOne(ctx: RecipeContext, n: number): boolean {
  return n === 1 && ctx.rng.bool(0.6);
}

/** No expected value is in the task's own words. */
function fair(expected: readonly AnswerCheck[], task: string): boolean {
  return expected.every((e) => !checkAnswer(e, task).pass);
}

function states(expected: readonly AnswerCheck[], r: ToolResult): boolean {
  return !r.isError && expected.every((e) => checkAnswer(e, r.text).pass);
}

/** The whole numbers a command prints, one a line ("  12" from a BSD wc too), or undefined when a line is something else. */
async function numbers(ctx: RecipeContext, x: Explored, command: string): Promise<number[] | undefined> {
  const out = await commandOutput(ctx, x.runner, command);
  if (out === undefined) return undefined;
  const lines = out.split("\n").map((l) => l.trim());
  return lines.every((l) => /^\d{1,7}$/.test(l)) ? lines.map(Number) : undefined;
}

/** The one line a command prints, where a contains check can tell it apart and it holds on a later day. */
async function oneLine(ctx: RecipeContext, x: Explored, command: string): Promise<string | undefined> {
  const out = await commandOutput(ctx, x.runner, command);
  const line = out?.trim().replace(/\s+/g, " ");
  if (line === undefined || out!.includes("\n") || line.length < 4 || line.length > 100) return undefined;
  return /[A-Za-z]{2}/.test(line) && quotable(line) && !clockLike(line) ? line : undefined;
}

/** A word from the file's first few kilobytes (wordsOf). */
async function wordOf(ctx: RecipeContext, x: Explored, path: string): Promise<string | undefined> {
  const words = await wordsOf(ctx, x, path);
  return words.length > 0 ? ctx.rng.pick(words) : undefined;
}

/** The words in a text file's first few kilobytes (letters, 4 to 15 of them) that its path does not hold, sorted: what a grep can look for unquoted. */
async function wordsOf(ctx: RecipeContext, x: Explored, path: string): Promise<string[]> {
  const text = await commandOutput(ctx, x.runner, `grep -Iq . ${path} && head -c 4000 ${path}`);
  if (text === undefined) return [];
  return [...new Set(text.match(/(?<![A-Za-z0-9_])[A-Za-z]{4,15}(?![A-Za-z0-9_])/g) ?? [])].filter((w) => !path.toLowerCase().includes(w.toLowerCase())).sort();
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** A file's extension a task can name (".js"), not a hidden file's whole name. */
function extOf(path: string): string | undefined {
  return /[^/.]\.([A-Za-z0-9]{1,8})$/.exec(path)?.[1];
}
