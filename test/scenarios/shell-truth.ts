/**
 * The shell tests' own account of a working folder: a small project written to a temp folder,
 * and each answering command the shell recipes may compose worked out again in JavaScript from
 * the files themselves, so a test sees a wrong answer (a recipe that ran `wc -w` for lines, or
 * read the wrong file) even where the server agreed with the generator.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const PROJECT: Record<string, string> = {
  "README.md": "# Harbor Tools\n\nSmall helpers for the harbor office.\nRun the scripts with node.\nEvery ferry needs a pilot.\n",
  "package.json": '{\n  "name": "harbor-tools",\n  "version": "1.4.0",\n  "private": true\n}\n',
  // "ropes" and "pilots" hold "rope" and "pilot": `grep -c` counts them, a person counting the word may not
  "notes/todo.txt": "buy rope\nfix the gate\ncall the pilot\npaint the hull\nbuy more rope\nstore the ropes\npay the pilots\n",
  // no newline at its end: `wc -l` says 1, a person counts 2
  "notes/tides.txt": "High water at dawn\nLow water at noon",
  "docs/guide.md": "Ferries leave at dawn.\nThe pier closes in storms.\nTickets are sold on board.\n",
  "docs/crew.md": "Captain Ingrid Haldor\nMate Tomas Berg\n",
  "src/index.js": 'import { add } from "./lib/math.js";\nconsole.log(add(2, 3));\n// TODO: read the tide table\n',
  "src/lib/math.js": "export function add(a, b) {\n  return a + b;\n}\nexport function twice(a) {\n  return add(a, a);\n}\n",
  "src/lib/strings.js": 'export const greeting = "ahoy";\nexport function shout(s) {\n  return s.toUpperCase();\n}\n',
  // hidden: never asked about, and a word in it keeps a search from being one file's
  ".git/HEAD": "ref: refs/heads/main\n",
};

/** Writes PROJECT under `dir`. */
export function writeProject(dir: string): void {
  for (const [path, text] of Object.entries(PROJECT)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

/** What the command prints in `dir`, worked out from the files; undefined for a command no recipe composes. */
export function truthOf(dir: string, command: string): string | undefined {
  const read = (p: string) => readFileSync(join(dir, p), "utf8");
  const lines = (p: string) => read(p).replace(/\n$/, "").split("\n");
  let m: RegExpExecArray | null;
  if ((m = /^wc -l < (\S+)$/.exec(command))) return String((read(m[1]).match(/\n/g) ?? []).length);
  if ((m = /^wc -c < (\S+)$/.exec(command))) return String(statSync(join(dir, m[1])).size);
  if ((m = /^head -n 1 (\S+)$/.exec(command))) return lines(m[1])[0];
  if ((m = /^tail -n 1 (\S+)$/.exec(command))) return lines(m[1]).at(-1);
  if ((m = /^sed -n '(\d+)p' (\S+)$/.exec(command))) return lines(m[2])[Number(m[1]) - 1];
  if ((m = /^grep -c (\w+) (\S+)$/.exec(command))) return String(lines(m[2]).filter((l) => l.includes(m![1])).length);
  if ((m = /^grep -ril (\w+) (\S+)$/.exec(command))) {
    const word = m[1].toLowerCase();
    return walk(dir, m[2])
      .filter((p) => read(p).toLowerCase().includes(word))
      .join("\n");
  }
  if ((m = /^find (\S+) -type f -name '\*\.(\w+)' \| wc -l$/.exec(command))) {
    const ext = `.${m[2]}`;
    return String(walk(dir, m[1]).filter((p) => p.endsWith(ext)).length);
  }
  if ((m = /^ls (\S+) \| wc -l$/.exec(command))) return String(readdirSync(join(dir, m[1])).filter((n) => !n.startsWith(".")).length);
  if ((m = /^find \. -name '([^']+)'$/.exec(command))) return walk(dir, ".").filter((p) => p.split("/").at(-1) === m![1]).join("\n");
  return undefined;
}

/** Every file under `sub` (hidden ones too, as grep -r and find see them), relative to `dir`. */
function walk(dir: string, sub: string): string[] {
  const out: string[] = [];
  const visit = (rel: string) => {
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const p = rel === "." ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) visit(p);
      else out.push(p);
    }
  };
  visit(sub);
  return out.sort();
}
