/**
 * Patterns for tools or arguments the user marks dangerous (`--dangerous-tools`), used by the
 * rubric's safety penalty (the seed's "安全奖励：避免危险操作").
 *
 * Two families: tool-name globs (`delete_*`, `*drop*`; `*` any run, `?` one character,
 * case-insensitive, whole name) and argument regexes (`rm\s+-rf`, case-insensitive), tested
 * against every string value in the arguments and against their JSON text. On the command line
 * a pattern is written `tool:GLOB` or `arg:REGEX`; a bare pattern is a tool glob when it looks
 * like a tool name (letters, digits, `_ - . / :` and wildcards, no spaces), else an argument
 * regex — so `delete_*` is a glob and `rm -rf` an argument regex.
 */
import { z } from "zod";
import { TrainMcpError } from "../errors.js";
import { globToRegExp } from "../mcp/tool-filter.js";

export const DangerousPatternsSchema = z.object({
  tools: z.array(z.string().min(1)).default([]).describe("tool-name globs, e.g. delete_* (case-insensitive)"),
  args: z
    .array(
      z.string().min(1).superRefine((src, ctx) => {
        try {
          new RegExp(src, "i");
        } catch (e) {
          ctx.addIssue({ code: "custom", message: `not a valid regular expression: ${(e as Error).message}` });
        }
      }),
    )
    .default([])
    .describe("regexes over argument values, e.g. rm\\s+-rf (case-insensitive)"),
});
export type DangerousPatterns = z.infer<typeof DangerousPatternsSchema>;

const TOOL_LIKE = /^[A-Za-z0-9_.*?\/-]+$/;

/** Splits `--dangerous-tools` entries into the two families (see the file comment). */
export function parseDangerousPatterns(list: readonly string[]): DangerousPatterns {
  const out: DangerousPatterns = { tools: [], args: [] };
  for (const raw of list) {
    const p = raw.trim();
    if (!p) continue;
    if (p.startsWith("tool:")) out.tools.push(p.slice(5));
    else if (p.startsWith("arg:")) out.args.push(p.slice(4));
    else if (TOOL_LIKE.test(p)) out.tools.push(p);
    else out.args.push(p);
  }
  compileDangerous(out); // fail now, at the flag, not in the middle of a run
  return out;
}

export interface DangerousMatcher {
  /** why a call is dangerous ("tool delete_order matches delete_*"), or undefined when it is not */
  match(name: string, args: unknown): string | undefined;
}

function stringLeaves(v: unknown, out: string[] = []): string[] {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) stringLeaves(x, out);
  else if (v !== null && typeof v === "object") for (const x of Object.values(v)) stringLeaves(x, out);
  return out;
}

export function compileDangerous(patterns: Partial<DangerousPatterns>): DangerousMatcher {
  const tools = (patterns.tools ?? []).map((g) => ({ g, re: globToRegExp(g, "i") }));
  const args = (patterns.args ?? []).map((src) => {
    try {
      return { src, re: new RegExp(src, "i") };
    } catch (e) {
      throw new TrainMcpError("ConfigInvalid", `dangerous argument pattern /${src}/ is not a valid regular expression: ${(e as Error).message}`);
    }
  });
  return {
    match(name, a) {
      const t = tools.find((x) => x.re.test(name));
      if (t) return `tool ${name} matches ${t.g}`;
      if (args.length === 0) return undefined;
      let json = "";
      try {
        json = JSON.stringify(a) ?? "";
      } catch {
        json = "";
      }
      const texts = [...stringLeaves(a), json];
      for (const x of args) {
        const hit = texts.find((s) => x.re.test(s));
        if (hit !== undefined) return `${name} arguments match /${x.src}/`;
      }
      return undefined;
    },
  };
}
