/**
 * A starting state for an empty server. A todo list, a knowledge graph or a notes app started
 * fresh holds nothing, so its reads answer with empty lists and only "create …" tasks can be
 * built. Here the server's creating tools are called a few times on one fresh instance; the
 * calls that succeed become every task's `setup`, which rollouts, replays and `scenarios check`
 * run on each fresh instance before the task starts. Reads, updates and deletions then have
 * something to work on.
 */
import type { Toolbox, ToolSpec } from "../../mcp/types.js";
import type { ReferenceCall } from "../schema.js";
import { runSetup } from "../setup.js";
import { isDeletingTool } from "./deletions.js";
import { isReadOnlyTool } from "./generic.js";
import type { ValuePool } from "./harvest.js";
import { reportsFailure } from "./recipe.js";
import { Rng } from "./rng.js";
import { synthesizeArgs } from "./schema-values.js";

/** rounds over the creating tools: two entries of a kind, so a deletion can leave one there */
const ROUNDS = 2;
/** argument draws per tool and round before it is passed over (an update of an id that is not there) */
const DRAWS = 3;

// tools that end or empty something rather than make it (disconnect_session, logout, reset_db):
// nothing to start from
const UNDOES = /^(disconnect|log_?out|sign_?out|detach|unmount|unlink|unbind|reset|clear|stop|close|cancel|disable|unsubscribe|purge|wipe|flush)(?=$|_|-)/i;

export interface StartingState {
  /** the calls that made it, in order */
  setup: ReferenceCall[];
  /** the instance they were made on */
  box: Toolbox;
}

/**
 * Calls each tool that changes state without deleting (in name order, ROUNDS times) on a fresh
 * instance, with arguments drawn for `seed`; later calls may use what earlier ones returned (a
 * relation between entities just created). undefined when no such call succeeds.
 */
export async function makeStartingState(toolbox: Toolbox, tools: readonly ToolSpec[], pool: ValuePool, seed: string): Promise<StartingState | undefined> {
  const creators = tools.filter((t) => !isReadOnlyTool(t) && !isDeletingTool(t) && !UNDOES.test(t.name.replace(/([a-z])([A-Z])/g, "$1_$2"))).sort((a, b) => a.name.localeCompare(b.name));
  if (creators.length === 0) return undefined;
  const box = await toolbox.isolated();
  const made = pool.clone();
  const setup: ReferenceCall[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const tool of creators) {
      for (let draw = 0; draw < DRAWS; draw++) {
        const args = synthesizeArgs(tool.inputSchema, Rng.derive(seed, "setup", round, tool.name, draw), made, { optionalRate: 0.2 });
        if (!args) break;
        const r = await box.call(tool.name, args);
        if (r.isError || reportsFailure(r)) continue; // ({"success": false} is a refusal too)
        setup.push({ name: tool.name, arguments: args });
        made.harvest(tool.name, r, args);
        break;
      }
    }
  }
  if (setup.length > 0) return { setup, box };
  await box.close();
  return undefined;
}

/** A fresh instance in the starting state: `setup` run on it. Throws (closing it) when a call fails. */
export async function freshInState(toolbox: Toolbox, setup: readonly ReferenceCall[]): Promise<Toolbox> {
  const box = await toolbox.isolated();
  const failed = await runSetup(box, setup);
  if (!failed) return box;
  await box.close();
  throw new Error(`${failed} (on a fresh instance)`);
}
