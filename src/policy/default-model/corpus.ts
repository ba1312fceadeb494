/**
 * The text the default tokenizer is trained on, gathered from the repository itself so that it
 * can be rebuilt whenever fixtures or scenarios change (`npm run build:default-tokenizer`):
 * a hand-written seed (common English, JSON and task words), the string literals of the fixture
 * servers (tool names, descriptions, messages) and the text files their workspaces hold,
 * every string in scenarios/**.jsonl, and conversations rendered with the default chat template
 * (the scenarios' reference calls, or a built-in example when there are none), so the template's
 * fixed frame and the exact tool-call text become few tokens. Files are read in sorted order:
 * the same repository gives the same corpus.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import type { OpenAiTool } from "../../mcp/types.js";
import type { ChatMessage } from "../../rollout/trajectory.js";
import { ChatTemplate } from "../chat-template.js";

export interface CorpusPart {
  source: string;
  text: string;
}

/** How many times the rendered conversations count: they are what the model reads most. */
const TEMPLATE_WEIGHT = 8;
const SEED_WEIGHT = 3;

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      if (name === "node_modules" || name.startsWith(".")) continue;
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** String literals in TS/JS source ('…', "…", `…` without ${}), minus import specifiers. */
export function stringLiterals(source: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`((?:[^`\\$]|\\.|\$(?!\{))*)`/g;
  for (const m of source.matchAll(re)) {
    const raw = m[1] ?? m[2] ?? m[3] ?? "";
    // JS escapes are close to JSON's: drop the ones JSON lacks (\' \`), escape bare quotes and
    // newlines, and fall back to the raw text when something exotic remains (\x41, \u{...})
    const asJson = raw.replace(/\\(['`])/g, "$1").replace(/(^|[^\\])"/g, '$1\\"').replace(/\n/g, "\\n");
    let s: string;
    try {
      s = JSON.parse(`"${asJson}"`) as string;
    } catch {
      s = raw;
    }
    if (s.length < 2 || /^(\.{1,2}\/|node:|@[a-z])/.test(s)) continue;
    out.push(s);
  }
  return out;
}

function stringsIn(v: unknown, out: string[]): void {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => stringsIn(x, out));
  else if (v !== null && typeof v === "object") Object.values(v).forEach((x) => stringsIn(x, out));
}

interface ScenarioLike {
  task?: unknown;
  reference?: { calls?: Array<{ name?: unknown; arguments?: unknown }>; answer?: unknown };
}

/** A conversation in the shape rollouts produce, for the template frame. */
function conversation(task: string, calls: Array<{ name: string; arguments: unknown }>, answer: string): ChatMessage[] {
  const msgs: ChatMessage[] = [{ role: "user", content: task }];
  calls.forEach((c, i) => {
    msgs.push({ role: "assistant", content: "", tool_calls: [{ id: `call_${i}`, type: "function", function: { name: c.name, arguments: JSON.stringify(c.arguments ?? {}) } }] });
    msgs.push({ role: "tool", content: answer, tool_call_id: `call_${i}` });
  });
  msgs.push({ role: "assistant", content: answer });
  return msgs;
}

const EXAMPLE_TOOLS: OpenAiTool[] = [
  {
    type: "function",
    function: {
      name: "add",
      description: "Add two numbers.",
      parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    },
  },
  {
    type: "function",
    function: {
      name: "search",
      description: "Search the documents. Returns the best matches.",
      parameters: { type: "object", properties: { query: { type: "string" }, limit: { type: "integer" } }, required: ["query"] },
    },
  },
];

export function collectCorpus(repoRoot: string, chatTemplate: string): { parts: CorpusPart[]; warnings: string[] } {
  const parts: CorpusPart[] = [];
  const warnings: string[] = [];
  const rel = (p: string) => relative(repoRoot, p);
  const seed = readFileSync(join(repoRoot, "src/policy/default-model/seed-corpus.txt"), "utf8");
  for (let i = 0; i < SEED_WEIGHT; i++) parts.push({ source: "seed-corpus.txt", text: seed });

  for (const file of listFiles(join(repoRoot, "mcp-fixtures"))) {
    const text = readFileSync(file, "utf8");
    if (/\.(ts|mts|mjs)$/.test(file) && !file.includes(`${join("workspace", "")}`)) {
      parts.push({ source: rel(file), text: stringLiterals(text).join("\n") });
    } else if (/\.(js|md|txt|json|py)$/.test(file)) {
      parts.push({ source: rel(file), text });
    }
  }

  const template = new ChatTemplate(chatTemplate);
  const rendered: string[] = [];
  for (const file of listFiles(join(repoRoot, "scenarios")).filter((f) => f.endsWith(".jsonl"))) {
    const strings: string[] = [];
    readFileSync(file, "utf8").split("\n").forEach((line, i) => {
      if (line.trim() === "") return;
      let s: ScenarioLike;
      try {
        s = JSON.parse(line) as ScenarioLike;
      } catch (e) {
        warnings.push(`${rel(file)}:${i + 1}: skipped, invalid JSON (${(e as Error).message})`);
        return;
      }
      stringsIn(s, strings);
      const calls = (s.reference?.calls ?? []).filter((c): c is { name: string; arguments: unknown } => typeof c?.name === "string");
      if (typeof s.task === "string") {
        rendered.push(template.render(conversation(s.task, calls, typeof s.reference?.answer === "string" ? s.reference.answer : ""), { tools: EXAMPLE_TOOLS }));
      }
    });
    parts.push({ source: rel(file), text: strings.join("\n") });
  }
  if (rendered.length === 0) {
    rendered.push(
      template.render(
        [{ role: "system", content: "You are a helpful assistant." }, ...conversation("What is 12 + 30?", [{ name: "add", arguments: { a: 12, b: 30 } }], "42")],
        { tools: EXAMPLE_TOOLS },
      ),
      template.render(conversation("Find the capital of France.", [{ name: "search", arguments: { query: "capital of France" } }], "Paris"), { tools: EXAMPLE_TOOLS }),
    );
  }
  for (let i = 0; i < TEMPLATE_WEIGHT; i++) parts.push({ source: "rendered conversations", text: rendered.join("") });
  return { parts, warnings };
}
