/**
 * The episode loop every environment shares (after verifiers' MultiTurnEnv): ask the policy
 * for the next assistant turn of every live episode in ONE batched call, let the environment
 * respond to each, repeat until all are done or out of turns. Subclasses override only
 * `respond` (what the environment does with a turn). A failure is recorded on the episode
 * (finish "error"), never thrown out of the batch.
 */
import type { Policy, PolicyTurn, TurnOptions } from "./policy.js";
import type { PolicyConversation } from "./policy.js";
import type { FinishReason } from "./trajectory.js";

export interface Episode extends PolicyConversation {
  turns: number;
  /** log-probs a remote policy reported, one array per assistant turn */
  turnLogprobs: number[][];
  done: boolean;
  finish?: FinishReason;
  error?: string;
  finalAnswer: string;
  /** tokens the policy generated so far in this episode, counted against maxCompletionTokens */
  completionTokens?: number;
}

export interface EpisodeLoopOptions extends TurnOptions {
  /** assistant turns at most per episode */
  maxTurns: number;
  /** generated tokens at most per episode, all turns together (TRL's max_completion_length);
   *  a turn gets what is left, and an episode with nothing left ends truncated ("max_tokens") */
  maxCompletionTokens?: number;
  /** after each round of turns: how many of the episodes are done (a progress bar's tick) */
  onRound?: (done: number) => void;
}

export abstract class MultiTurnEnv<E extends Episode> {
  /** What the environment does with the policy's turn: append messages, maybe end the episode. */
  protected abstract respond(episode: E, turn: PolicyTurn): Promise<void>;

  async run(episodes: E[], policy: Policy, options: EpisodeLoopOptions): Promise<void> {
    for (let round = 0; ; round++) {
      if (options.maxCompletionTokens !== undefined) {
        for (const ep of episodes.filter((e) => !e.done)) {
          ep.maxTokens = options.maxCompletionTokens - (ep.completionTokens ?? 0);
          if (ep.maxTokens <= 0) [ep.done, ep.finish] = [true, "max_tokens"];
        }
      }
      const live = episodes.filter((e) => !e.done);
      if (round > 0) options.onRound?.(episodes.length - live.length);
      if (live.length === 0) return;
      let turns: PolicyTurn[];
      try {
        // a different seed each round, so later turns do not replay the first turn's draws
        turns = await policy.turn(live, { ...options, seed: options.seed + round * 7919 });
      } catch (e) {
        for (const ep of live) this.fail(ep, `policy: ${(e as Error).message}`);
        return;
      }
      await Promise.all(
        live.map(async (ep, k) => {
          if (turns[k].error !== undefined) {
            this.fail(ep, `policy: ${turns[k].error}`);
            return;
          }
          ep.turns++;
          ep.completionTokens = (ep.completionTokens ?? 0) + (turns[k].tokens ?? 0);
          if (turns[k].logprobs) ep.turnLogprobs.push(turns[k].logprobs!);
          try {
            await this.respond(ep, turns[k]);
          } catch (e) {
            this.fail(ep, (e as Error).message);
            return;
          }
          if (!ep.done && ep.turns >= options.maxTurns) {
            ep.done = true;
            ep.finish = "max_turns";
          }
        }),
      );
    }
  }

  protected fail(ep: E, message: string): void {
    ep.done = true;
    ep.finish = "error";
    ep.error = message;
  }
}
