/**
 * The tool environment (after verifiers' ToolEnv): the assistant's turn is parsed for Hermes
 * tool calls; each call runs on the episode's own toolbox and its result goes back as a tool
 * message through one formatter — a tool error is an observation, counted, never thrown. An
 * answer without tool calls ends the episode. Optionally a `complete_task` tool is offered and
 * calling it ends the episode with its `answer`.
 */
import type { OpenAiTool, Toolbox } from "../mcp/types.js";
import { parseToolCalls, TOOL_CALL_CLOSE, TOOL_CALL_OPEN } from "../policy/tool-calls.js";
import type { PolicyTurn } from "./policy.js";
import { type Episode, MultiTurnEnv } from "./multi-turn-env.js";
import type { ChatMessage, ToolCallRecord } from "./trajectory.js";

export const COMPLETE_TASK_TOOL = "complete_task";

export const completeTaskTool: OpenAiTool = {
  type: "function",
  function: {
    name: COMPLETE_TASK_TOOL,
    description: "Finish the task and give the final answer to the user.",
    parameters: {
      type: "object",
      properties: { answer: { type: "string", description: "the final answer" } },
      required: ["answer"],
    },
  },
};

export interface ToolEpisode extends Episode {
  toolbox: Toolbox;
  toolCalls: ToolCallRecord[];
  parseErrors: number;
}

export interface ToolEnvOptions {
  /** per-call timeout (the toolbox default is 30 s) */
  toolTimeoutMs?: number;
  /** offer the complete_task tool; answers then come through it */
  completionTool?: boolean;
}

/** The one place a tool result becomes the text the model reads. */
export function formatToolMessage(result: { isError: boolean; text: string }): string {
  return result.isError ? `Error: ${result.text}` : result.text;
}

export class ToolEnv extends MultiTurnEnv<ToolEpisode> {
  constructor(private readonly options: ToolEnvOptions = {}) {
    super();
  }

  protected async respond(ep: ToolEpisode, turn: PolicyTurn): Promise<void> {
    const parsed = parseToolCalls(turn.text);
    const remoteErrors: Array<{ kind: string; message: string }> = [];
    const calls = turn.toolCalls
      ? turn.toolCalls.flatMap((c, i) => {
          const args = jsonObject(c.arguments);
          if (args) return [{ name: c.name, arguments: args }];
          remoteErrors.push({ kind: "bad_arguments", message: `tool_call ${i + 1}: arguments are not a JSON object: ${c.arguments.slice(0, 200)}` });
          return [];
        })
      : parsed.calls;
    const callIds = calls.map((_, i) => `call_${ep.turns}_${i}`);
    const assistant: ChatMessage = { role: "assistant", content: turn.toolCalls ? turn.text : parsed.content };
    // markup that did not parse is dropped from content (the template renders calls from
    // tool_calls); what the model wrote is kept beside it, so a reader sees the mistake itself
    if (!turn.toolCalls && parsed.errors.length > 0) assistant.raw_content = turn.text;
    // an endpoint's structured calls, one with arguments that are no JSON object: every call as
    // the Hermes template writes it, the bad arguments verbatim
    if (turn.toolCalls && remoteErrors.length > 0)
      assistant.raw_content = [turn.text, ...turn.toolCalls.map((c) => `${TOOL_CALL_OPEN}\n{"name": ${JSON.stringify(c.name)}, "arguments": ${c.arguments}}\n${TOOL_CALL_CLOSE}`)].filter((s) => s !== "").join("\n");
    if (calls.length) {
      assistant.tool_calls = calls.map((c, i) => ({
        id: callIds[i],
        type: "function" as const,
        function: { name: c.name, arguments: JSON.stringify(c.arguments) },
      }));
    }
    ep.messages.push(assistant);
    ep.ledger.coverAssistant(ep.messages.length);

    if (turn.finish === "length") {
      ep.done = true;
      ep.finish = "max_tokens";
      ep.finalAnswer = parsed.content;
      return;
    }
    const errors = turn.toolCalls ? remoteErrors : parsed.errors;
    if (calls.length === 0 && errors.length === 0) {
      ep.done = true;
      ep.finish = "answer";
      ep.finalAnswer = parsed.content;
      return;
    }
    for (const err of errors) {
      ep.parseErrors++;
      ep.toolCalls.push({ name: "", args: null, result: err.message, isError: true, error: `parse:${err.kind}`, ms: 0 });
    }
    if (calls.length === 0) {
      // malformed calls only: tell the model what was wrong, as a tool observation
      ep.messages.push({ role: "tool", content: formatToolMessage({ isError: true, text: errors.map((e) => e.message).join("\n") }) });
      return;
    }
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i];
      if (this.options.completionTool && call.name === COMPLETE_TASK_TOOL) {
        ep.done = true;
        ep.finish = "answer";
        ep.finalAnswer = String((call.arguments as { answer?: unknown }).answer ?? "");
        ep.toolCalls.push({ name: call.name, args: call.arguments, result: "", isError: false, ms: 0 });
        return;
      }
      const t0 = performance.now();
      // the task goes with the call: a form the server asks for mid-call is filled in knowing it
      const task = ep.messages.find((m) => m.role === "user")?.content;
      const result = await ep.toolbox.call(call.name, call.arguments, { timeoutMs: this.options.toolTimeoutMs, task });
      const record: ToolCallRecord = {
        name: call.name,
        args: call.arguments,
        result: result.text,
        isError: result.isError,
        ms: Math.round(performance.now() - t0),
      };
      if (result.fault) record.error = result.fault;
      if (result.outputProblem) record.outputProblem = result.outputProblem;
      ep.toolCalls.push(record);
      ep.messages.push({ role: "tool", content: formatToolMessage(result), tool_call_id: callIds[i], name: call.name });
    }
  }
}

function jsonObject(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
