/** Shared by the engine-level serve tests: greedy generation parameters with one log-prob per
 *  token, and a codec with no EOS id the model can write, so every row runs to its max_tokens. */
import type { GenerateParams, TextCodec } from "../../src/serve/generate.js";

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
