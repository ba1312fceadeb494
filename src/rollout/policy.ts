/**
 * What a rollout asks of a policy: given conversations (messages + tools), produce the next
 * assistant turn of each, in one batched call. Local engines (tfjs, onnxruntime) work on token
 * ids and report the sampled ids and log-probs; a remote OpenAI-compatible endpoint reports
 * text (and log-probs when it can). The rollout code does not care which one runs.
 */
import type { OpenAiTool } from "../mcp/types.js";
import type { ChatMessage } from "./trajectory.js";
import type { TokenRecord } from "./retokenize.js";
import type { TokenLedger } from "./token-ledger.js";

export interface PolicyConversation {
  messages: ChatMessage[];
  tools: OpenAiTool[];
  /** token bookkeeping for local policies; remote policies leave it empty */
  ledger: TokenLedger;
  /** this conversation's own cap for the turn (what is left of its rollout's completion budget);
   *  the turn takes the smaller of it and TurnOptions.maxTokens */
  maxTokens?: number;
}

export interface PolicyTurn {
  /** the assistant's text as generated (special end tokens removed) */
  text: string;
  /** "length" when the turn hit its token limit: the rollout ends as truncated */
  finish: "stop" | "length";
  /** tool calls the endpoint returned structurally (remote policies); local policies parse text */
  toolCalls?: Array<{ name: string; arguments: string }>;
  /** per-token log-probs the endpoint reported (remote policies; local ones keep them in the ledger) */
  logprobs?: number[];
  /** tokens generated in this turn, where known (counts against the rollout's completion budget) */
  tokens?: number;
  /** this conversation's request failed (a remote policy answers each one apart): its episode
   *  ends as an error, the others of the batch go on */
  error?: string;
}

export interface TurnOptions {
  /** new tokens at most in this turn */
  maxTokens: number;
  temperature: number;
  topP: number;
  topK: number;
  /** seeds the sampler for this batch */
  seed: number;
}

export interface Policy {
  readonly kind: "local" | "remote";
  turn(conversations: PolicyConversation[], options: TurnOptions): Promise<PolicyTurn[]>;
  /** the token record of a finished conversation whose ledger is empty (a remote policy's), in
   *  the trainer's tokenization; absent: such rollouts carry no tokens and cannot be trained on */
  tokenize?(messages: readonly ChatMessage[], tools: OpenAiTool[], opts: { truncated: boolean }): TokenRecord;
}
