/**
 * A scenario's setup calls (schema.ts `setup`), run on a fresh server instance before the task
 * starts: by each rollout, by a replay, and by the verified generator's starting state.
 */
import type { Toolbox } from "../mcp/types.js";
import type { ReferenceCall } from "./schema.js";

/** Runs the calls in order; undefined when all succeed, else what failed ("setup call 2 add_todo failed: …"). */
export async function runSetup(toolbox: Pick<Toolbox, "call">, setup: readonly ReferenceCall[], options: { timeoutMs?: number; task?: string } = {}): Promise<string | undefined> {
  for (const [i, call] of setup.entries()) {
    const r = await toolbox.call(call.name, call.arguments, options);
    if (r.isError) return `setup call ${i + 1} ${call.name} failed: ${oneLine(r.text)}`;
  }
  return undefined;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}
