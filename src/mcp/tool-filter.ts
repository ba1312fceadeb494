/**
 * Which of a server's tools a run offers: `--tools` (only these) and `--exclude-tools` (all but
 * these), each a list of names or globs (`*` any run, `?` one character; case as the server
 * spells it). A server with dozens of tools fills a small model's context before the task is
 * read, and a user who wants an agent trained on the server's reads need not show it the
 * writes: a left-out tool is neither in the prompt, nor called by the scenario generator, nor
 * callable (a call to it is an unknown tool). The MCP TypeScript SDK's clients and the OpenAI
 * Agents SDK (`tool_filter`: allowed / blocked names) offer the same choice.
 *
 * A pattern that matches no tool is a typo until shown otherwise (an exclusion that misses
 * leaves the tool offered): toolFilterProblem names it, with the nearest name, so the commands
 * stop at once. Over several servers a pattern need only match on one of them.
 */
import { closestName } from "../closest-name.js";

export interface ToolFilter {
  /** names or globs: only the tools they match are offered (default: every tool) */
  include?: string[];
  /** names or globs: the tools they match are left out, after `include` (default: none) */
  exclude?: string[];
}

/** A tool-name glob as an anchored regular expression; `flags` "i" matches any case. */
export function globToRegExp(glob: string, flags = ""): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
  return new RegExp(`^${body}$`, flags);
}

/** `--tools a,b --tools 'c*'` → ["a", "b", "c*"]: commas split (no tool name may hold one) */
export function splitToolPatterns(values: readonly string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  return values.flatMap((v) => v.split(",")).map((p) => p.trim()).filter((p) => p.length > 0);
}

export interface FilteredTools<T extends { name: string }> {
  /** the tools offered, in the server's order */
  kept: T[];
  /** names of the tools the filter left out */
  leftOut: string[];
  /** patterns that matched none of this server's tools, by list */
  misses: { include: string[]; exclude: string[] };
}

export function applyToolFilter<T extends { name: string }>(tools: readonly T[], filter: ToolFilter | undefined): FilteredTools<T> {
  const include = (filter?.include ?? []).map((p) => ({ p, re: globToRegExp(p) }));
  const exclude = (filter?.exclude ?? []).map((p) => ({ p, re: globToRegExp(p) }));
  const offered = (name: string) => (include.length === 0 || include.some((x) => x.re.test(name))) && !exclude.some((x) => x.re.test(name));
  return {
    kept: tools.filter((t) => offered(t.name)),
    leftOut: tools.filter((t) => !offered(t.name)).map((t) => t.name),
    misses: {
      include: include.filter((x) => !tools.some((t) => x.re.test(t.name))).map((x) => x.p),
      exclude: exclude.filter((x) => !tools.some((t) => x.re.test(t.name))).map((x) => x.p),
    },
  };
}

/**
 * The first pattern no server's tools match, as a message naming the flag, the pattern and the
 * nearest tool name; undefined when every pattern matched somewhere. `servers` gives each
 * server's misses (applyToolFilter's) and every tool it lists, the left-out ones included.
 */
export function toolFilterProblem(servers: ReadonlyArray<{ misses: FilteredTools<{ name: string }>["misses"]; allTools: readonly string[] }>): string | undefined {
  const everywhere = (list: "include" | "exclude") => servers.length > 0 && servers[0].misses[list].filter((p) => servers.every((s) => s.misses[list].includes(p)));
  const names = [...new Set(servers.flatMap((s) => s.allTools))];
  for (const [list, flag] of [["include", "--tools"], ["exclude", "--exclude-tools"]] as const) {
    const missed = everywhere(list) || [];
    if (missed.length === 0) continue;
    const p = missed[0];
    const near = /[*?]/.test(p) ? undefined : (names.find((n) => n.toLowerCase() === p.toLowerCase()) ?? closestName(p, names));
    const shown = names.length > 12 ? `${names.slice(0, 12).join(", ")}, … (${names.length} in all; \`train-mcp tools\` lists them)` : names.join(", ") || "(none)";
    return `${flag} ${JSON.stringify(p)}: no tool of the server${servers.length === 1 ? "" : "s"} matches it${near ? ` (did you mean "${near}"?)` : ""}; ${servers.length === 1 ? "its" : "their"} tools: ${shown}`;
  }
  return undefined;
}
