/** Shared by the engine-level serve tests: greedy generation parameters with one log-prob per
 *  token, a codec with no EOS id the model can write (every row runs to its max_tokens), and a
 *  batch run with nothing joining. */
import type { StepEngine } from "../../src/serve/engine.js";
import { runBatch, type BatchMember, type GenerateParams, type GenerateResult, type TextCodec } from "../../src/serve/generate.js";

export const noEosCodec: TextCodec = { decode: (ids) => ids.join(" "), eosTokenIds: [-1] };

export const greedy = (prompt: number[], maxTokens = 8, index = 0): GenerateParams => ({
  prompt,
  maxTokens,
  temperature: 0,
  topP: 1,
  topK: 0,
  seed: 0,
  index,
  stop: [],
  topLogprobs: 1,
});

/** Generates every sequence in `params` as one batch, nothing joining. */
export async function generateBatch(engine: StepEngine, codec: TextCodec, params: GenerateParams[]): Promise<GenerateResult[]> {
  const members: BatchMember[] = [];
  const results = params.map((p) => new Promise<GenerateResult>((done, fail) => members.push({ params: p, done, fail })));
  await runBatch(engine, codec, members);
  return Promise.all(results);
}
