/**
 * Whether a rollout's first prompt leaves the model room to write. The prompt is the system
 * prompt, every tool of the server with its description and schema (the chat template writes
 * them all into the first turn) and the task; a server with many tools (@cyanheads/git-mcp-server:
 * 28, ~2,500 tokens) fills the built-in model's 2,048-token context before the task is read.
 * Every rollout then ends at once with nothing written, and the warm start had no token to learn
 * from (its loss was NaN). Checked before the first rollout, so the run stops with a reason, and
 * names the tools that take the most room: `--tools` / `--exclude-tools` leave some out.
 */
import type { OpenAiTool } from "../mcp/types.js";
import type { ChatCodec } from "../rollout/token-ledger.js";
import { systemPromptFor } from "../rollout/group.js";
import type { Scenario } from "../scenarios/schema.js";
import type { ServerSet } from "./servers.js";
import { redactTargetCredentials } from "../mcp/target.js";

/** the fewest tokens a first turn needs: a tool call's opening and a name, or a short answer */
export const MIN_ROOM = 32;

export interface PromptCost {
  /** the system turn with every tool */
  total: number;
  /** the system turn with no tool */
  bare: number;
  /** what leaving each tool out saves, by name, in the server's order */
  perTool: Map<string, number>;
}

/** Tokens of a rollout's system turn (system prompt and tools, as the chat template renders
 *  them), and each tool's share: what `--exclude-tools` would save. */
export function promptCost(codec: ChatCodec, system: string, tools: readonly OpenAiTool[]): PromptCost {
  const systemTokens = (withTools: OpenAiTool[]) => codec.encode(codec.renderChat([{ role: "system", content: system }], { tools: withTools, addGenerationPrompt: false })).length;
  const total = systemTokens([...tools]);
  return { total, bare: systemTokens([]), perTool: new Map(tools.map((t) => [t.function.name, total - systemTokens(tools.filter((o) => o !== t))])) };
}

/** The problem, or undefined when the shortest task of each server fits with MIN_ROOM to spare. */
export function promptRoomProblem(codec: ChatCodec, context: number, servers: ServerSet, scenarios: readonly Scenario[], systemPrompt: string | undefined): string | undefined {
  for (const entry of servers.entries) {
    // (a scenario of no server here is the scenario checks' to report, not this one's)
    const own = scenarios.filter((s) => {
      try {
        return servers.entryFor(s) === entry;
      } catch {
        return false;
      }
    });
    if (own.length === 0) continue;
    const shortest = own.reduce((a, b) => (b.task.length < a.task.length ? b : a));
    const tools = entry.toolbox.openAiTools();
    const system = systemPromptFor(systemPrompt, entry.toolbox);
    const text = codec.renderChat(
      [
        { role: "system", content: system },
        { role: "user", content: shortest.task },
      ],
      { tools, addGenerationPrompt: true },
    );
    const tokens = codec.encode(text).length;
    if (tokens + MIN_ROOM > context) {
      const { total: systemAndTools, bare, perTool } = promptCost(codec, system, tools);
      // what leaving each tool out saves, largest first: the ones worth leaving out
      const largest = [...perTool]
        .map(([name, tokens]) => ({ name, tokens }))
        .sort((a, b) => b.tokens - a.tokens)
        .slice(0, 3);
      // the server's instructions (--server-instructions) take room too: how much
      const instructions = entry.toolbox.instructions ? bare - codec.encode(codec.renderChat([{ role: "system", content: systemPromptFor(systemPrompt, {}) }], { tools: [], addGenerationPrompt: false })).length : 0;
      const dropInstructions = instructions > 0 ? `leave out the server's instructions (no --server-instructions: ~${instructions} tokens), ` : "";
      const fewer =
        tools.length > 1
          ? `${dropInstructions}offer fewer tools (--tools NAMES, or --exclude-tools NAMES; the largest: ${largest.map((t) => `${t.name} ~${t.tokens}`).join(", ")} tokens; ${tokens + MIN_ROOM - context} tokens must go), or train a model with a longer context (--model)`
          : `${dropInstructions}train a model with a longer context (--model)`;
      return (
        `the model's context holds ${context} tokens, and a rollout's first prompt on ${redactTargetCredentials(entry.target)} already takes ${tokens} ` +
        `(the system prompt with the server's ${instructions > 0 ? "instructions and " : ""}${tools.length} tool${tools.length === 1 ? "" : "s"}, their descriptions and schemas: ${systemAndTools}; the shortest task: the rest), ` +
        `leaving no room to write (${MIN_ROOM} tokens at least): every rollout would end with nothing written; ` +
        fewer
      );
    }
  }
  return undefined;
}
