/**
 * A stand-in for the model in rollout tests: a Policy whose turns are computed from the
 * conversation by a script, so tests exercise the real parser, toolbox, servers and
 * bookkeeping with predictable model output. (The real engines have their own tests.)
 */
import type { Policy, PolicyConversation, PolicyTurn, TurnOptions } from "../../src/rollout/policy.js";

export type Script = (conversation: PolicyConversation, turnIndex: number) => string | Promise<string>;

export class ScriptedPolicy implements Policy {
  readonly kind = "remote" as const;
  readonly batches: number[] = [];
  constructor(private readonly script: Script) {}

  async turn(conversations: PolicyConversation[], _options: TurnOptions): Promise<PolicyTurn[]> {
    this.batches.push(conversations.length);
    return Promise.all(
      conversations.map(async (c) => {
        const turnIndex = c.messages.filter((m) => m.role === "assistant").length;
        return { text: await this.script(c, turnIndex), finish: "stop" as const };
      }),
    );
  }
}

export const call = (name: string, args: Record<string, unknown>) =>
  `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

/** the text of the last tool message in the conversation */
export const lastToolResult = (c: PolicyConversation) =>
  [...c.messages].reverse().find((m) => m.role === "tool")?.content ?? "";
