/**
 * The embedded default model: a tokenizer built from the project's own text (see
 * build-tokenizer.ts), the config of a tiny model of the same decoder architecture and its
 * weights (model.safetensors, F16, pretrained on the calculator fixture's tasks by
 * scripts/base-model/), stored as ordinary Hugging Face files in this folder so they load through
 * the same code path as any checkpoint, offline. train_mcp.json holds the system prompt and turn
 * limits it was trained with, which `train-mcp eval` uses.
 */
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { ChatTokenizer } from "../tokenizer.js";

/** The folder holding config.json, tokenizer.json and tokenizer_config.json. */
export function defaultModelDir(): string {
  return dirname(fileURLToPath(import.meta.url));
}

export function loadDefaultTokenizer(): Promise<ChatTokenizer> {
  return ChatTokenizer.fromDir(defaultModelDir());
}
