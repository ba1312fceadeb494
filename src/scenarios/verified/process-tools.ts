/**
 * Tools that signal a process by its id (desktop-commander's kill_process and force_terminate,
 * `{pid}`): the id is any process of the machine, not one of the server's own, so a call with a
 * harvested or made-up pid can stop the user's editor, database or train-mcp itself. A copy of
 * the server's folder (--template-dir) does not contain that; only --sandbox does (a process
 * namespace of its own, where no other process can be seen or signalled).
 */
import type { ToolSpec } from "../../mcp/types.js";

// on the name with its camelCase words split (forceTerminate → force_Terminate)
const SIGNALS = /(^|_|-)(kill|killall|pkill|terminate|signal|stop|end)(?=$|_|-)/i;
// what picks the process: its id, or, for a killing tool, its name, a pattern or a port
const PID_ARG = /(^|_)(pids?|process_?ids?|process(_?name)?)$/i;
const KILL_BY = /^(name|pattern|port|command|process_?name)$/i;

/** whether the tool signals a process given by an id (or, for a killing tool, by name or port) */
export function signalsProcesses(t: ToolSpec): boolean {
  const name = snake(t.name);
  if (!SIGNALS.test(name)) return false;
  const args = Object.keys((t.inputSchema.properties as Record<string, unknown> | undefined) ?? {}).map(snake);
  return args.some((a) => PID_ARG.test(a)) || (/kill/i.test(name) && args.some((a) => KILL_BY.test(a)));
}

/** "forceTerminate" → "force_Terminate", "targetPid" → "target_Pid" */
function snake(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1_$2");
}

/** The note for the tools left out, outside a sandbox. */
export function processToolsNote(names: readonly string[]): string {
  const them = names.length === 1 ? "it" : "them";
  return `not calling ${names.join(", ")}, even with --allow-writes: ${names.length === 1 ? "it signals" : "they signal"} a process by its id, which can be any process of this machine, not just the server's; --sandbox (a process namespace of its own) lets the generator call ${them}`;
}
