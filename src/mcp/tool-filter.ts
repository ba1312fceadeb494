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
 * stop at once. Over several servers a pattern need only match on one of them, and
 * `SERVER:PATTERN` applies to one server only, named as it names itself when it connects (MCP
 * serverInfo.name, which `train-mcp tools` prints; a fixture by its name): `--server A --server
 * B --tools 'git-mcp-server:git_log*'` leaves A's tools alone, where a plain `git_log*` would
 * leave A none. MCP tool names hold no colon; a pattern whose part before the colon names no
 * server is matched whole. The name must be the same on every launch and differ between the
 * run's servers: a server that names itself anew each time (FastMCP's default `FastMCP-1a2b`) or
 * two that give one name cannot be told apart this way, nor a name that holds a colon.
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

/** `SERVER:PATTERN` → the server's name and the pattern; undefined for a plain pattern */
export function scopedPattern(pattern: string): { server: string; glob: string } | undefined {
  const m = /^((?:fixture:)?[^:]+):(.+)$/.exec(pattern);
  return m ? { server: m[1].replace(/^fixture:/, ""), glob: m[2] } : undefined;
}

/**
 * The patterns of one list that apply to a server named `serverName`: the plain ones, and the
 * `SERVER:PATTERN` ones naming it (as their PATTERN). A pattern with a colon that names another
 * server is left out, unless some tool's name matches it whole.
 */
function patternsFor(patterns: readonly string[], tools: ReadonlyArray<{ name: string }>, serverName: string | undefined): Array<{ p: string; re: RegExp }> {
  return patterns.flatMap((p) => {
    const scoped = scopedPattern(p);
    if (scoped && scoped.server === serverName) return [{ p, re: globToRegExp(scoped.glob) }];
    const whole = globToRegExp(p);
    if (scoped && !tools.some((t) => whole.test(t.name))) return [];
    return [{ p, re: whole }];
  });
}

export function applyToolFilter<T extends { name: string }>(tools: readonly T[], filter: ToolFilter | undefined, serverName?: string): FilteredTools<T> {
  const include = patternsFor(filter?.include ?? [], tools, serverName);
  const exclude = patternsFor(filter?.exclude ?? [], tools, serverName);
  const offered = (name: string) => (include.length === 0 || include.some((x) => x.re.test(name))) && !exclude.some((x) => x.re.test(name));
  // a pattern for another server missed here too: one that names no server of the run is missed everywhere
  const missed = (all: readonly string[] | undefined, applied: Array<{ p: string; re: RegExp }>) =>
    (all ?? []).filter((p) => !applied.some((x) => x.p === p && tools.some((t) => x.re.test(t.name))));
  return {
    kept: tools.filter((t) => offered(t.name)),
    leftOut: tools.filter((t) => !offered(t.name)).map((t) => t.name),
    misses: { include: missed(filter?.include, include), exclude: missed(filter?.exclude, exclude) },
  };
}

/**
 * The first pattern no server's tools match, as a message naming the flag, the pattern and the
 * nearest tool name; undefined when every pattern matched somewhere. `servers` gives each
 * server's misses (applyToolFilter's) and every tool it lists, the left-out ones included.
 */
export function toolFilterProblem(servers: ReadonlyArray<{ misses: FilteredTools<{ name: string }>["misses"]; allTools: readonly string[]; serverName?: string }>): string | undefined {
  const everywhere = (list: "include" | "exclude") => servers.length > 0 && servers[0].misses[list].filter((p) => servers.every((s) => s.misses[list].includes(p)));
  const names = [...new Set(servers.flatMap((s) => s.allTools))];
  const serverNames = [...new Set(servers.map((s) => s.serverName).filter((n): n is string => !!n))];
  for (const [list, flag] of [["include", "--tools"], ["exclude", "--exclude-tools"]] as const) {
    const missed = everywhere(list) || [];
    if (missed.length === 0) continue;
    const p = missed[0];
    const scoped = scopedPattern(p);
    if (scoped && !serverNames.includes(scoped.server)) {
      // "primevue" for "@primevue/mcp": a part of the name, else a typo of it
      const near = serverNames.find((n) => n.toLowerCase().includes(scoped.server.toLowerCase())) ?? closestName(scoped.server, serverNames);
      return `${flag} ${JSON.stringify(p)}: no server of the run is named "${scoped.server}"${near ? ` (did you mean "${near}"?)` : ""}; SERVER:PATTERN names a server as it names itself (\`train-mcp tools\` prints it): ${serverNames.map((n) => `"${n}"`).join(", ") || "(none said)"}`;
    }
    const near = /[*?]/.test(p) ? undefined : (names.find((n) => n.toLowerCase() === p.toLowerCase()) ?? closestName(p, names));
    const shown = names.length > 12 ? `${names.slice(0, 12).join(", ")}, … (${names.length} in all; \`train-mcp tools\` lists them)` : names.join(", ") || "(none)";
    return `${flag} ${JSON.stringify(p)}: no tool of the server${servers.length === 1 ? "" : "s"} matches it${near ? ` (did you mean "${near}"?)` : ""}; ${servers.length === 1 ? "its" : "their"} tools: ${shown}`;
  }
  return undefined;
}
