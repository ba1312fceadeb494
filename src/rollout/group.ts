/**
 * Groups of rollouts: G episodes of each scenario, played against the real server. Episodes
 * of many groups run together in waves of at most `maxConcurrentRollouts`, so the policy
 * samples them in one batch per turn. With `isolate`, every episode gets its own fresh server
 * instance (stateful servers: each rollout starts from the same state, after the scenario's
 * setup calls if it has any); those instances stay open until `release()`, so state checks can
 * run on them after the rollout.
 */
import type { Toolbox } from "../mcp/types.js";
import type { Scenario } from "../scenarios/schema.js";
import { runSetup } from "../scenarios/setup.js";
import type { Policy } from "./policy.js";
import { TokenLedger } from "./token-ledger.js";
import { completeTaskTool, type ToolEpisode, ToolEnv } from "./tool-env.js";
import type { Trajectory, TrajectoryGroup } from "./trajectory.js";

export const DEFAULT_SYSTEM_PROMPT =
  "You are a helpful assistant. Use the tools to solve the user's task. When you have the result, reply with the final answer.";

/**
 * The system prompt of a rollout on `toolbox`: the run's (or the default), then the server's MCP
 * instructions when the run shows them (--server-instructions), as Claude Code adds each
 * connected server's instructions to its system prompt: a model trained with them is prompted
 * as it will be where it is used.
 */
export function systemPromptFor(base: string | undefined, toolbox: Pick<Toolbox, "instructions" | "serverName">): string {
  const system = base ?? DEFAULT_SYSTEM_PROMPT;
  if (!toolbox.instructions) return system;
  return `${system}\n\nInstructions from the ${toolbox.serverName ? `"${toolbox.serverName}" ` : ""}server:\n${toolbox.instructions}`;
}

export interface PlayOptions {
  /** G: rollouts per scenario (>= 1; GRPO needs >= 2) */
  groupSize: number;
  /** assistant turns at most per rollout (default 6) */
  maxTurns?: number;
  /** new tokens at most per assistant turn (default 256) */
  maxTokensPerTurn?: number;
  /** new tokens at most per rollout, all its turns together (TRL's max_completion_length;
   *  default: no cap beyond maxTurns × maxTokensPerTurn) */
  maxCompletionTokens?: number;
  temperature?: number; // default 1
  topP?: number; // default 1
  topK?: number; // default 0 (off)
  seed: number;
  /** a fresh server instance per rollout (default false) */
  isolate?: boolean;
  /** rollouts in flight together, i.e. the sampler's batch (default 32) */
  maxConcurrentRollouts?: number;
  systemPrompt?: string;
  completionTool?: boolean;
  toolTimeoutMs?: number;
  /** the training step, recorded on each trajectory */
  step?: number;
  /** each scenario's group index within the step (default: its position in the list), so that
   * group ids stay unique when one step plays several lists or the same scenario twice */
  groupIndices?: readonly number[];
  /** called after each wave with the number of finished rollouts (progress bars) */
  onProgress?: (done: number, total: number) => void;
}

export interface PlayedGroup extends TrajectoryGroup {
  /** the toolbox each trajectory ran on (the shared one unless isolated), for state checks */
  toolboxes: Toolbox[];
}

export interface PlayResult {
  groups: PlayedGroup[];
  /** closes the isolated server instances */
  release(): Promise<void>;
}

export async function playGroups(scenarios: Scenario[], policy: Policy, toolbox: Toolbox, options: PlayOptions): Promise<PlayResult> {
  if (!(options.groupSize >= 1)) throw new Error(`groupSize must be >= 1, got ${options.groupSize}`);
  const G = options.groupSize;
  const tools = toolbox.openAiTools();
  if (options.completionTool) tools.push(completeTaskTool);
  const system = systemPromptFor(options.systemPrompt, toolbox);
  const isolated: Toolbox[] = [];
  const env = new ToolEnv({ toolTimeoutMs: options.toolTimeoutMs, completionTool: options.completionTool });

  interface Slot {
    scenario: Scenario;
    groupIndex: number;
    member: number;
    episode?: ToolEpisode;
    toolbox?: Toolbox;
    setupError?: string;
    ms: number;
  }
  const slots: Slot[] = scenarios.flatMap((scenario, groupIndex) =>
    Array.from({ length: G }, (_, member) => ({ scenario, groupIndex, member, ms: 0 })),
  );
  const wave = Math.max(1, options.maxConcurrentRollouts ?? 32);
  for (let start = 0; start < slots.length; start += wave) {
    const batch = slots.slice(start, start + wave);
    await Promise.all(
      batch.map(async (slot) => {
        const setup = slot.scenario.setup ?? [];
        if (setup.length > 0 && !options.isolate) {
          // on the one shared instance, every rollout's setup would pile onto the others'
          slot.setupError = `setup: scenario ${slot.scenario.id} starts from a state its setup calls make, which needs a fresh server instance per rollout (--isolate on)`;
          return;
        }
        try {
          slot.toolbox = options.isolate ? await toolbox.isolated() : toolbox;
          if (options.isolate) isolated.push(slot.toolbox);
        } catch (e) {
          slot.setupError = `server: ${(e as Error).message}`;
          return;
        }
        slot.setupError = await runSetup(slot.toolbox, setup, { timeoutMs: options.toolTimeoutMs, task: slot.scenario.task });
        if (slot.setupError) return;
        slot.episode = {
          messages: [
            { role: "system", content: system },
            { role: "user", content: slot.scenario.task },
          ],
          tools,
          ledger: new TokenLedger(),
          turns: 0,
          turnLogprobs: [],
          done: false,
          finalAnswer: "",
          toolbox: slot.toolbox,
          toolCalls: [],
          parseErrors: 0,
        };
      }),
    );
    const episodes = batch.flatMap((s) => (s.episode ? [s.episode] : []));
    const t0 = performance.now();
    await env.run(episodes, policy, {
      maxTurns: options.maxTurns ?? 6,
      maxTokens: options.maxTokensPerTurn ?? 256,
      maxCompletionTokens: options.maxCompletionTokens,
      temperature: options.temperature ?? 1,
      topP: options.topP ?? 1,
      topK: options.topK ?? 0,
      seed: options.seed + start,
      // rollouts that ended (or could not start) move the bar as they end, not when the wave does
      onRound: (done) => options.onProgress?.(start + done + (batch.length - episodes.length), slots.length),
    });
    const ms = performance.now() - t0;
    for (const s of batch) s.ms = ms;
    options.onProgress?.(Math.min(start + wave, slots.length), slots.length);
  }

  const groups: PlayedGroup[] = scenarios.map((scenario, groupIndex) => ({
    scenarioId: scenario.id,
    groupId: `${options.step ?? 0}-${options.groupIndices?.[groupIndex] ?? groupIndex}-${scenario.id}`,
    trajectories: [],
    toolboxes: [],
  }));
  for (const slot of slots) {
    const group = groups[slot.groupIndex];
    group.trajectories.push(toTrajectory(slot.scenario.id, group.groupId, slot.member, options.step ?? 0, slot, policy));
    group.toolboxes.push(slot.toolbox ?? toolbox);
  }
  return {
    groups,
    release: async () => {
      await Promise.all(isolated.map((t) => t.close().catch(() => undefined)));
    },
  };
}

function toTrajectory(
  scenarioId: string,
  groupId: string,
  member: number,
  step: number,
  slot: { episode?: ToolEpisode; setupError?: string; ms: number },
  policy: Policy,
): Trajectory {
  const ep = slot.episode;
  let ledger = ep?.ledger.toJSON() ?? { ids: [], mask: [], logprobs: [] };
  let tokenError: string | undefined;
  // a remote policy records no tokens while it plays: the trainer's tokenization, afterwards
  if (ep && ledger.ids.length === 0 && policy.tokenize && ep.messages.some((m) => m.role === "assistant")) {
    try {
      ledger = policy.tokenize(ep.messages, ep.tools, { truncated: ep.finish === "max_tokens" });
    } catch (e) {
      tokenError = `tokenize: ${(e as Error).message}`;
    }
  }
  return {
    id: `${groupId}-${member}`,
    scenarioId,
    groupId,
    step,
    messages: ep?.messages ?? [],
    tokenIds: ledger.ids,
    assistantMask: ledger.mask,
    sampleLogprobs: ledger.logprobs,
    ...(ep?.turnLogprobs.length ? { turnLogprobs: ep.turnLogprobs } : {}),
    toolCalls: ep?.toolCalls ?? [],
    finish: ep?.finish ?? "error",
    error: ep?.error ?? slot.setupError ?? tokenError,
    finalAnswer: ep?.finalAnswer ?? "",
    turns: ep?.turns ?? 0,
    rewards: {},
    reward: 0,
    success: false,
    ms: Math.round(slot.ms),
  };
}
