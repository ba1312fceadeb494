/**
 * The sampler contract every engine (tfjs, onnxruntime, a remote endpoint) implements, so the
 * rollout code does not care which one runs.
 */
export interface SampleOptions {
  /** new tokens at most per sequence */
  maxTokens: number;
  /** 0 means greedy */
  temperature: number;
  /** 1 disables nucleus filtering */
  topP: number;
  /** 0 disables top-k */
  topK: number;
  /** generation ends when the decoded text ends with one of these (the stop string is kept) */
  stop: string[];
  /** seeds the random source; same seed, same tokens */
  seed: number;
}

export interface SampleResult {
  /** the generated token ids, prompt excluded; when finish is "eos" the last id IS the end
   *  token (the trainer must learn to emit it), when "stop" the ids end with the stop string */
  ids: number[];
  text: string;
  /** log-probability of each sampled token under the model's own distribution (softmax of the
   *  raw logits, before temperature, top-k and top-p): the quantity the trainer recomputes */
  logprobs: number[];
  finish: "stop" | "eos" | "length";
}

export interface Sampler {
  generate(prompts: number[][], options: SampleOptions): Promise<SampleResult[]>;
}
