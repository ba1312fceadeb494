/**
 * Hand-built trajectories and scenarios for the reward tests: a rollout described as a list of
 * steps (tool calls with their outcome, then a final answer) becomes a schema-valid Trajectory
 * with matching messages and tool-call records, as the rollout stage would record it.
 */
import { ScenarioSchema, type Scenario, type ScenarioInput } from "../../src/scenarios/schema.js";
import { TrajectorySchema, type ChatMessage, type Trajectory, type TrajectoryGroup } from "../../src/rollout/trajectory.js";

export interface Step {
  name: string;
  args?: unknown;
  /** raw argument text, to build a call whose JSON did not parse */
  rawArgs?: string;
  result?: string;
  isError?: boolean;
  error?: string;
}

export interface Build {
  steps?: Step[];
  answer?: string;
  finish?: Trajectory["finish"];
  id?: string;
  /** id prefix for tool calls: differs between otherwise identical rollouts */
  callIdPrefix?: string;
  task?: string;
}

export function trajectory(b: Build = {}): Trajectory {
  const steps = b.steps ?? [];
  const prefix = b.callIdPrefix ?? "call";
  const messages: ChatMessage[] = [
    { role: "system", content: "You are a shop assistant. Use the tools." },
    { role: "user", content: b.task ?? "Cancel order 5003." },
  ];
  steps.forEach((s, i) => {
    const id = `${prefix}_${i}`;
    messages.push({
      role: "assistant",
      content: "",
      tool_calls: [{ id, type: "function", function: { name: s.name, arguments: s.rawArgs ?? JSON.stringify(s.args ?? {}) } }],
    });
    messages.push({ role: "tool", content: s.result ?? "ok", tool_call_id: id, name: s.name });
  });
  const finish = b.finish ?? "answer";
  if (finish === "answer" && b.answer !== undefined) messages.push({ role: "assistant", content: b.answer });
  return TrajectorySchema.parse({
    id: b.id ?? "t",
    scenarioId: "s1",
    groupId: "g1",
    messages,
    tokenIds: [1, 2, 3],
    assistantMask: [0, 1, 1],
    sampleLogprobs: [0, -0.5, -0.5],
    toolCalls: steps.map((s) => ({
      name: s.name,
      args: s.rawArgs !== undefined ? s.rawArgs : (s.args ?? {}),
      result: s.result ?? "ok",
      isError: s.isError ?? false,
      ...(s.error !== undefined ? { error: s.error } : {}),
      ms: 3,
    })),
    finish,
    finalAnswer: finish === "answer" ? (b.answer ?? "") : "",
    turns: steps.length + (finish === "answer" ? 1 : 0),
  });
}

export function group(trajectories: Trajectory[]): TrajectoryGroup {
  return { scenarioId: "s1", groupId: "g1", trajectories: trajectories.map((t, i) => ({ ...t, id: `t${i}` })) };
}

export function scenario(extra: Partial<ScenarioInput> = {}): Scenario {
  return ScenarioSchema.parse({ id: "s1", task: "Cancel order 5003.", difficulty: 2, split: "train", ...extra });
}
