/**
 * The MCP servers of a run, one toolbox each, and which one a scenario plays on: the scenario's
 * `server` field names its target (as given on the command line, e.g. "fixture:shop"); with a
 * single server every scenario plays there. Stateful servers get a fresh instance per rollout
 * ("auto": the fixtures known to keep state, and any other server with a tool whose name says it
 * changes something — the same test the scenario generator uses; "on" / "off" when asked).
 */
import { openToolbox, type ConnectOptions, type McpToolbox } from "../mcp/connect.js";
import { toolFilterProblem } from "../mcp/tool-filter.js";
import { parseTarget, redactTargetCredentials, sameTarget, targetKey } from "../mcp/target.js";
import type { Toolbox } from "../mcp/types.js";
import { TrainMcpError } from "../errors.js";
import type { Scenario } from "../scenarios/schema.js";
import { isReadOnlyTool } from "../scenarios/verified/generic.js";
import { signalsProcesses } from "../scenarios/verified/process-tools.js";
import { linksOutside } from "../mcp/template-copy.js";

/** Fixtures whose tools change server state: each rollout needs its own instance. */
const STATEFUL_FIXTURES = new Set(["fixture:shop", "fixture:codefix"]);

export interface ServerEntry {
  target: string;
  toolbox: Toolbox;
  isolate: boolean;
}

export class ServerSet {
  private constructor(readonly entries: ServerEntry[]) {}

  /** `log` gets each server's notes on its tool list (duplicate or odd tool names) */
  static async connect(targets: string[], isolate: "auto" | "on" | "off", options: ConnectOptions = {}, log?: (line: string) => void): Promise<ServerSet> {
    const entries: ServerEntry[] = [];
    let linksChecked = false; // the template is one for every server: warned about once
    const reports: Array<McpToolbox["toolFilterReport"]> = [];
    try {
      for (const target of targets) {
        const toolbox = await openToolbox(target, options);
        reports.push(toolbox.toolFilterReport);
        if (toolbox.tools.length === 0) {
          await toolbox.close();
          throw new TrainMcpError("ConfigInvalid", `${redactTargetCredentials(target)}: the server lists no tools, so there is nothing to play with`);
        }
        for (const note of toolbox.toolNotes) log?.(`note: ${redactTargetCredentials(target)}: ${note}`);
        if (options.serverInstructions && !toolbox.instructions) log?.(`note: ${redactTargetCredentials(target)}: --server-instructions: the server gives no instructions, so its rollouts have the system prompt alone`);
        const known = target.startsWith("fixture:");
        const writers = known ? [] : toolbox.tools.filter((t) => !isReadOnlyTool(t)).map((t) => t.name);
        const stateful = isolate === "on" || (isolate === "auto" && (known ? STATEFUL_FIXTURES.has(target) : writers.length > 0));
        if (writers.length > 0 && !options.templateDir) log?.(writesWarning(target, writers));
        const signallers = known || options.sandbox ? [] : toolbox.tools.filter(signalsProcesses).map((t) => t.name);
        if (signallers.length > 0) log?.(signalWarning(target, signallers));
        if (writers.length > 0 && options.templateDir && !linksChecked) {
          linksChecked = true;
          const warning = await templateLinksWarning(options.templateDir);
          if (warning) log?.(warning);
        }
        entries.push({ target, toolbox, isolate: stateful });
      }
      // each --tools / --exclude-tools pattern must match on one of the servers at least
      const problem = toolFilterProblem(reports);
      if (problem) throw new TrainMcpError("ConfigInvalid", problem);
    } catch (e) {
      await Promise.all(entries.map((x) => x.toolbox.close()));
      throw e;
    }
    return new ServerSet(entries);
  }

  /** The server a scenario plays on. */
  entryFor(scenario: Scenario): ServerEntry {
    if (this.entries.length === 1 && (!scenario.server || !this.has(scenario.server))) return this.entries[0];
    // the spelling typed first; a redacted one only when it names one server of the run
    const exact = scenario.server ? this.entries.filter((e) => targetKey(e.target) === targetKey(scenario.server!)) : [];
    const loose = scenario.server && exact.length === 0 ? this.entries.filter((e) => sameTarget(e.target, scenario.server!)) : [];
    const hit = exact[0] ?? (loose.length === 1 ? loose[0] : undefined);
    if (!hit)
      throw new TrainMcpError(
        "ScenarioInvalid",
        `scenario ${scenario.id}: server "${scenario.server ?? "(none)"}" is not among the run's servers (${this.entries.map((e) => redactTargetCredentials(e.target)).join(", ")})`,
      );
    return hit;
  }

  /** the same server, however its target is spelt ("stdio:node a.mjs" = "node a.mjs") */
  has(target: string): boolean {
    return this.entries.some((e) => sameTarget(e.target, target));
  }

  /** the names of the tools a rollout's prompt lists, across the servers, sorted and once each */
  offeredToolNames(): string[] {
    return [...new Set(this.entries.flatMap((e) => e.toolbox.tools.map((t) => t.name)))].sort();
  }

  /** Keeps the scenarios whose server is in the set (all of them for a single server). */
  playable(scenarios: Scenario[]): Scenario[] {
    if (this.entries.length === 1) return scenarios;
    return scenarios.filter((s) => s.server && this.has(s.server));
  }

  async close(): Promise<void> {
    await Promise.all(this.entries.map((e) => e.toolbox.close().catch(() => undefined)));
  }
}

/**
 * " (its stderr: FILE)", to end a message about a server that failed: where the run's stdio
 * servers (fixtures too) write their stderr, the run's server.log or --server-log's file; "" when
 * none is a stdio server (an HTTP server's output stays on its own host) or the file is unknown.
 */
export function stderrNote(targets: readonly string[], file: string | undefined): string {
  if (!file || targets.every((t) => parseTarget(t).kind === "http")) return "";
  return targets.length === 1 ? ` (its stderr: ${file})` : ` (the stdio servers' stderr: ${file})`;
}

/** A warning naming the template's symlinks that lead out of it (its copies keep them: a server writes the originals through them), if any. */
export async function templateLinksWarning(templateDir: string): Promise<string | undefined> {
  const outside = await linksOutside(templateDir);
  if (outside.length === 0) return undefined;
  const named = `${outside.slice(0, 4).join(", ")}${outside.length > 4 ? `, … (${outside.length} in all)` : ""}`;
  return `warning: --template-dir ${templateDir} has symlinks that lead out of it (${named}): each copy keeps them as they are, so a server writing through them changes the originals`;
}

/** Tools that signal any process of the machine by its id: only a sandbox keeps the model's calls to the server's own. */
export function signalWarning(target: string, signallers: readonly string[]): string {
  return (
    `warning: ${redactTargetCredentials(target)} has tools that signal a process by its id (${signallers.join(", ")}), and the model calls them for real with ids it picks: ` +
    (parseTarget(target).kind === "stdio"
      ? `any process of this machine, train-mcp's own included; run the server with --sandbox (a process namespace of its own), or leave them out with --exclude-tools ${signallers.join(",")}`
      : `any process of the machine it runs on; leave them out with --exclude-tools ${signallers.join(",")}, or run the server in a container`)
  );
}

/** The model calls a server's state-changing tools for real: say where those writes land. */
export function writesWarning(target: string, writers: readonly string[], caller = "the model"): string {
  const stdio = parseTarget(target).kind === "stdio";
  const named = `${writers.slice(0, 4).join(", ")}${writers.length > 4 ? ", …" : ""}`;
  return (
    `warning: ${redactTargetCredentials(target)} has tools that change state (${named}), and ${caller} calls them for real: ` +
    (stdio
      ? "each rollout gets a fresh server process, but data the server keeps outside it (files, a database) is shared by every rollout and changed for good; " +
        "run it on a copy with --template-dir DIR (a new copy of DIR per server instance, its working directory: the server's data paths must be relative to it)"
      : "each rollout gets a new session, but what the server stores is shared by every rollout and changed for good; point train-mcp at a server over a copy of its data")
  );
}
