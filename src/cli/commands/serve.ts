/**
 * `train-mcp serve --model <checkpoint-dir|default>`: an OpenAI-compatible server on 127.0.0.1
 * (src/serve/server.ts) for a local checkpoint: chat completions with tools, logprobs, streaming
 * and json_schema enforced by constrained decoding, plus vLLM's runtime LoRA endpoints. Runs
 * until Ctrl-C / SIGTERM. A missing model folder or a port in use is a usage error (exit 2).
 */
import * as path from "node:path";
import type { Command } from "commander";
import { TrainMcpError } from "../../errors.js";
import { intFlag } from "../number-flags.js";
import { startServer } from "../../serve/server.js";

interface ServeFlags {
  model: string;
  port: string;
  host: string;
  engine: string;
  adapter: string[];
  apiKey?: string;
  allowOrigin: string[];
  servedModelName?: string;
  seed: string;
  maxBatch: string;
  reasoningParser?: string;
  enablePrefixCaching: boolean;
  prefixCacheMib: string;
  quiet?: boolean;
}

/** `NAME=DIR` or `DIR` (named after the folder). */
export function parseAdapterFlag(v: string): { name: string; path: string } {
  const eq = v.indexOf("=");
  if (eq > 0) return { name: v.slice(0, eq), path: v.slice(eq + 1) };
  return { name: path.basename(path.resolve(v)), path: v };
}

export function register(program: Command): void {
  program
    .command("serve")
    .description("serve a checkpoint as an OpenAI-compatible chat-completions endpoint (127.0.0.1)")
    .requiredOption("--model <dir>", 'Hugging Face checkpoint folder, or "default" (the embedded tiny model)')
    .option("--port <n>", "TCP port (0 picks a free one)", "8000")
    .option("--host <addr>", "address to bind; anything but 127.0.0.1 exposes the model to the network (and, without --api-key, refuses loading LoRA adapters over HTTP)", "127.0.0.1")
    .option("--engine <kind>", "auto | ort | tfjs (auto: onnxruntime when it loads, else tfjs)", "auto")
    .option("--adapter <[name=]dir>", "PEFT LoRA adapter to serve under its name (repeatable)", (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option("--max-batch <n>", "concurrent requests (and n choices) decoded together at most", "8")
    .option("--api-key <key>", "require `Authorization: Bearer <key>` on /v1 routes (or $TRAIN_MCP_API_KEY, which `ps` does not show; vLLM reads $VLLM_API_KEY the same way)")
    .option("--served-model-name <name>", 'the base model\'s name in requests (default: "default" or the folder name)')
    .option("--seed <n>", "seed of the random init when the default model has no trained weights", "0")
    .option("--reasoning-parser <name>", "qwen3 | deepseek_r1: <think> text goes to the message's `reasoning` field (vLLM's flag)")
    .option("--no-enable-prefix-caching", "prefill every prompt whole (vLLM's flag; by default the keys and values of recent prompts are kept, so a prompt starting like one of them prefills only its new tokens)")
    .option("--prefix-cache-mib <n>", "the prefix store's budget per served model and adapter, in MiB of keys and values (0 turns caching off)", "256")
    .option("--allow-origin <origin>", "a web page origin (https://app.example) allowed to call the server, with CORS headers; repeatable, * for any (pages on localhost always may; others are refused)", (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option("--quiet", "no request log (warnings are still written)")
    .action(async (flags: ServeFlags) => {
      const engine = flags.engine;
      if (engine !== "auto" && engine !== "ort" && engine !== "tfjs") throw new TrainMcpError("ConfigInvalid", `--engine: expected auto, ort or tfjs, got "${engine}"`);
      const reasoningParser = flags.reasoningParser;
      if (reasoningParser !== undefined && reasoningParser !== "qwen3" && reasoningParser !== "deepseek_r1")
        throw new TrainMcpError("ConfigInvalid", `--reasoning-parser: expected qwen3 or deepseek_r1, got "${reasoningParser}"`);
      for (const o of flags.allowOrigin) {
        let ok = o === "*";
        try {
          ok ||= new URL(o).origin === o;
        } catch {
          // not a URL: refused below
        }
        if (!ok) throw new TrainMcpError("ConfigInvalid", `--allow-origin ${o}: expected an origin such as https://app.example or http://localhost:3000 (scheme, host, port; no path), or *`);
      }
      const prefixCacheMib = intFlag("--prefix-cache-mib", flags.prefixCacheMib, 0, 1 << 20);
      // --quiet drops the request log, not warnings (an adapter on another base, a public bind)
      const log = (line: string) => {
        if (!flags.quiet || line.startsWith("warning:")) process.stderr.write(`${new Date().toISOString()} ${line}\n`);
      };
      const server = await startServer({
        model: flags.model,
        port: intFlag("--port", flags.port, 0, 65535),
        host: flags.host,
        engine,
        adapters: flags.adapter.map(parseAdapterFlag),
        apiKey: flags.apiKey ?? (process.env.TRAIN_MCP_API_KEY || undefined),
        allowOrigins: flags.allowOrigin,
        servedModelName: servedModelNameFlag(flags.servedModelName),
        seed: intFlag("--seed", flags.seed, 0, 2 ** 31 - 1),
        maxBatch: intFlag("--max-batch", flags.maxBatch, 1, 256),
        reasoningParser,
        prefixCacheBytes: flags.enablePrefixCaching ? prefixCacheMib * 2 ** 20 : 0,
        log,
      });
      const names = server.registry.list().map((m) => m.name).join(", ");
      const engine0 = server.registry.list()[0]?.engine;
      const caching = engine0?.prefixCaching ? `, prefix caching on: ${engine0.prefixCacheTokens} tokens per model, ${prefixCacheMib} MiB` : ", prefix caching off";
      process.stdout.write(`train-mcp serve: ${server.url} (models: ${names}; engine: ${engine0?.kind}${caching})\n`);
      for (const m of server.registry.list()) process.stdout.write(`  ${m.name}: ${m.source}\n`);
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off("SIGINT", stop);
          process.off("SIGTERM", stop);
          resolve();
        };
        process.on("SIGINT", stop);
        process.on("SIGTERM", stop);
      });
      // requests in flight finish (a stream ends with its [DONE]) before the engines go
      process.stderr.write("train-mcp serve: stopping; requests in flight get up to 30 s to finish (a second signal stops at once)\n");
      const again = () => process.exit(130);
      process.once("SIGINT", again);
      process.once("SIGTERM", again);
      await server.close(30_000);
    });
}

/** `--served-model-name`: a name a request can give (not empty, no spaces around it) */
function servedModelNameFlag(name: string | undefined): string | undefined {
  if (name !== undefined && (name.trim() === "" || name.trim() !== name)) throw new TrainMcpError("ConfigInvalid", `--served-model-name ${JSON.stringify(name)}: give a name without spaces around it, as requests' "model" will spell it`);
  return name;
}
