/**
 * Builds the embedded default tokenizer from the repository's own text and writes, next to this
 * file, the Hugging Face files the policy loads: tokenizer.json (byte-level BPE, digits split
 * one by one, the chat/tool tags as single tokens), tokenizer_config.json (special tokens and
 * the compact chat template from chat_template.jinja) and config.json (a tiny model of the same
 * decoder architecture, sized to the vocabulary). Deterministic: the same repository gives
 * byte-identical files. Run with `npm run build:default-tokenizer`.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { trainByteLevelBpe, type SpecialToken } from "./bpe-trainer.js";
import { collectCorpus } from "./corpus.js";

const here = dirname(fileURLToPath(import.meta.url));

/** Added tokens, in id order (0..6). The chat markers are special; tool tags are not, as in
 *  Qwen, so decode(skipSpecial) keeps them for the tool-call parser. */
export const DEFAULT_SPECIAL_TOKENS: SpecialToken[] = [
  { content: "<|endoftext|>", special: true },
  { content: "<|im_start|>", special: true },
  { content: "<|im_end|>", special: true },
  { content: "<tool_call>", special: false },
  { content: "</tool_call>", special: false },
  { content: "<tool_response>", special: false },
  { content: "</tool_response>", special: false },
];

export const DEFAULT_VOCAB_SIZE = 2048;

function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

export function buildDefaultTokenizer(repoRoot: string, outDir: string): { vocabSize: number; merges: number; words: number; corpusChars: number; warnings: string[] } {
  const chatTemplate = readFileSync(join(here, "chat_template.jinja"), "utf8");
  const { parts, warnings } = collectCorpus(repoRoot, chatTemplate);
  const result = trainByteLevelBpe(
    parts.map((p) => p.text),
    { vocabSize: DEFAULT_VOCAB_SIZE, minFrequency: 2, specialTokens: DEFAULT_SPECIAL_TOKENS },
  );
  const tokenizerConfig = {
    tokenizer_class: "PreTrainedTokenizerFast",
    add_bos_token: false,
    add_prefix_space: false,
    bos_token: null,
    eos_token: "<|im_end|>",
    pad_token: "<|endoftext|>",
    unk_token: null,
    clean_up_tokenization_spaces: false,
    model_max_length: 2048,
    added_tokens_decoder: Object.fromEntries(
      DEFAULT_SPECIAL_TOKENS.map((t, id) => [String(id), { content: t.content, lstrip: false, normalized: false, rstrip: false, single_word: false, special: t.special }]),
    ),
    chat_template: chatTemplate,
  };
  // the model's vocabulary rows: the tokenizer's size rounded up to a multiple of 64 (2048 when
  // the corpus yields all the merges)
  const vocabRows = Math.ceil(result.vocabSize / 64) * 64;
  const config = {
    architectures: ["LlamaForCausalLM"],
    // Llama's architecture exactly, so transformers / vLLM / PEFT load it; the marker tells
    // train-mcp a tokenizer-less checkpoint of it takes the embedded tokenizer
    model_type: "llama",
    train_mcp_builtin: true,
    vocab_size: vocabRows,
    hidden_size: 256,
    intermediate_size: 768,
    num_hidden_layers: 4,
    num_attention_heads: 4,
    num_key_value_heads: 2,
    head_dim: 64,
    rms_norm_eps: 1e-6,
    rope_theta: 10000,
    max_position_embeddings: 2048,
    tie_word_embeddings: true,
    attention_bias: false,
    use_qk_norm: false,
    hidden_act: "silu",
    bos_token_id: null,
    eos_token_id: DEFAULT_SPECIAL_TOKENS.findIndex((t) => t.content === "<|im_end|>"),
    pad_token_id: DEFAULT_SPECIAL_TOKENS.findIndex((t) => t.content === "<|endoftext|>"),
    torch_dtype: "float32",
  };
  writeAtomic(join(outDir, "tokenizer.json"), `${JSON.stringify(result.tokenizerJson, null, 2)}\n`);
  writeAtomic(join(outDir, "tokenizer_config.json"), `${JSON.stringify(tokenizerConfig, null, 2)}\n`);
  writeAtomic(join(outDir, "config.json"), `${JSON.stringify(config, null, 2)}\n`);
  return { vocabSize: result.vocabSize, merges: result.merges, words: result.words, corpusChars: parts.reduce((n, p) => n + p.text.length, 0), warnings };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(here, "../../..");
  // the shipped base weights were trained on this vocabulary: a new one would scramble them
  if (existsSync(join(here, "model.safetensors")) && !process.argv.includes("--force")) {
    console.error(
      `build-tokenizer: ${join(here, "model.safetensors")} holds base weights trained on the current vocabulary; ` +
        "rebuild with --force only together with new weights (scripts/base-model/build.sh)",
    );
    process.exit(2);
  }
  const t0 = Date.now();
  const r = buildDefaultTokenizer(root, here);
  for (const w of r.warnings) console.warn(`warning: ${w}`);
  console.log(`default tokenizer: ${r.vocabSize} tokens (${r.merges} merges) from ${r.corpusChars} corpus characters, ${r.words} distinct words, in ${Date.now() - t0} ms -> ${here}`);
}
