/**
 * The embedded default model: a tokenizer built from the project's own text (see
 * build-tokenizer.ts) and the config of a tiny model of the same decoder architecture, stored as
 * ordinary Hugging Face files in this folder so they load through the same code path as any
 * checkpoint, offline.
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
