/**
 * The teacher for the supervised warm start: a Policy that "samples" each scenario's reference
 * solution (its tool calls, then its answer) through the same token ledger a real rollout uses,
 * while the calls run on the real server. The demonstrations therefore have exactly the token
 * layout, masks and tool outputs the policy will see in its own rollouts.
 */
import type { ChatTokenizer } from "../policy/tokenizer.js";
import { formatToolCall } from "../policy/tool-calls.js";
import type { Policy, PolicyConversation, PolicyTurn, TurnOptions } from "../rollout/policy.js";
import type { Scenario } from "../scenarios/schema.js";

export class TeacherPolicy implements Policy {
  readonly kind = "local" as const;
  private readonly byTask = new Map<string, NonNullable<Scenario["reference"]>>();
  private readonly endId: number;

  constructor(
    private readonly tokenizer: ChatTokenizer,
    scenarios: readonly Scenario[],
  ) {
    for (const s of scenarios) if (s.reference) this.byTask.set(s.task, s.reference);
    const end = tokenizer.turnEndId();
    if (end === undefined) throw new Error("teacher: the tokenizer has no end-of-turn token");
    this.endId = end;
  }

  async turn(conversations: PolicyConversation[], _o: TurnOptions): Promise<PolicyTurn[]> {
    return conversations.map((c) => {
      c.ledger.appendMessages(this.tokenizer, c.messages, c.tools);
      const task = c.messages.find((m) => m.role === "user")?.content ?? "";
      const ref = this.byTask.get(task);
      if (!ref) throw new Error(`teacher: no reference solution for task "${task.slice(0, 60)}"`);
      const turn = c.messages.filter((m) => m.role === "assistant").length;
      const text = turn < ref.calls.length ? formatToolCall(ref.calls[turn].name, ref.calls[turn].arguments) : ref.answer;
      const ids = [...this.tokenizer.encode(text, { continuation: true }), this.endId];
      c.ledger.appendSampled(ids, ids.map(() => 0), this.tokenizer.decode([this.endId]));
      return { text, finish: "stop" as const };
    });
  }
}

