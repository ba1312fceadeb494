/**
 * `train-mcp tools --server <target> [--json] [--tokens [--model DIR]]`: what a server offers.
 * The table is for people (name, required arguments, description cut to the terminal); `--json`
 * is for machines: `[{name, description, inputSchema}]`. `--tokens` adds what each tool takes in
 * a model's prompt, to choose what `--tools` keeps when they do not all fit.
 */
import type { Command } from "commander";
import { connect } from "../../mcp/connect.js";
import type { ToolSpec } from "../../mcp/types.js";
import fs from "node:fs";
import path from "node:path";
import { addTargetOptions, connectArgs, type TargetFlags } from "../target-options.js";
import { resolveConfig } from "../../policy/config.js";
import { ChatTokenizer } from "../../policy/tokenizer.js";
import { systemPromptFor } from "../../rollout/group.js";
import { readRolloutSettings } from "../../train/checkpoint.js";
import { resolveModelDir } from "../../train/policy-setup.js";
import { MIN_ROOM, promptCost } from "../../train/prompt-room.js";

export function register(program: Command): void {
  addTargetOptions(program.command("tools").description("list the tools of an MCP server"))
    .option("--json", "print a JSON array of {name, description, inputSchema}")
    .option("--tokens", "also the tokens each tool takes in a model's prompt (--model's chat template), and all of them against its context: what --tools / --exclude-tools would save")
    .option("--model <dir|default>", "the model --tokens counts for: a Hugging Face model folder, or the built-in one", "default")
    .action(async (flags: TargetFlags & { json?: boolean; tokens?: boolean; model: string }) => {
      const { target, options } = connectArgs(flags);
      // a bad --model is found before the server starts
      const counter = flags.tokens ? await tokenCounter(flags.model) : undefined;
      const toolbox = await connect(target, options);
      try {
        const cost = counter ? promptCost(counter.tokenizer, systemPromptFor(counter.systemPrompt, toolbox), toolbox.openAiTools()) : undefined;
        const out = flags.json
          ? JSON.stringify(toolbox.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema, ...(cost ? { tokens: cost.perTool.get(t.name) } : {}) })), null, 2)
          : toolTable(toolbox.tools, process.stdout.columns || 100, cost?.perTool);
        process.stdout.write(out + "\n");
        // the name --tools SERVER:PATTERN knows it by, on stderr: stdout stays the table (or JSON)
        const version = toolbox.serverVersion;
        if (toolbox.serverName) process.stderr.write(`server "${toolbox.serverName}"${version ? ` ${version}` : ""}: ${toolbox.tools.length} tool${toolbox.tools.length === 1 ? "" : "s"}\n`);
        if (cost && counter) {
          const model = flags.model === "default" ? "the built-in model's" : `${flags.model}'s`;
          const over = cost.total + MIN_ROOM - counter.context;
          const verdict = over > 0 ? `: it does not fit, leave more than ${over} tokens of tools out (--tools, --exclude-tools; the task needs room too) or use a model with a longer context` : "; the task and the model's turns need the rest";
          process.stderr.write(`the system turn with these ${toolbox.tools.length} tools takes ${cost.total} tokens of ${model} ${counter.context}-token context (${cost.total - cost.bare} for the tools)${verdict}\n`);
        }
        for (const note of toolbox.toolNotes) process.stderr.write(`note: ${note}\n`);
        const given = toolbox.givenInstructions;
        if (given && flags.serverInstructions) process.stderr.write(`the server's instructions (after the system prompt, --server-instructions):\n${given}\n`);
        else if (given) process.stderr.write(`note: the server gives instructions for its tools (${given.length} characters): --server-instructions prints them here, and shows them to a model in training\n`);
      } finally {
        await toolbox.close();
      }
    });
}

export function requiredArgs(tool: ToolSpec): string[] {
  const req = tool.inputSchema.required;
  return Array.isArray(req) ? req.filter((r): r is string => typeof r === "string") : [];
}

/** name | required args | [tokens |] description, columns padded, the description cut to `width` */
export function toolTable(tools: ToolSpec[], width: number, tokens?: ReadonlyMap<string, number>): string {
  if (tools.length === 0) return "(the server offers no tools)";
  const rows = tools.map((t) => [t.name, requiredArgs(t).join(", ") || "-", ...(tokens ? [String(tokens.get(t.name) ?? "")] : []), oneLine(t.description || t.title || "")]);
  const header = ["TOOL", "REQUIRED ARGS", ...(tokens ? ["TOKENS"] : []), "DESCRIPTION"];
  const w0 = Math.max(header[0].length, ...rows.map((r) => r[0].length));
  const w1 = Math.min(40, Math.max(header[1].length, ...rows.map((r) => r[1].length)));
  const wt = tokens ? Math.max(header[2].length, ...rows.map((r) => r[2].length)) : 0;
  const room = Math.max(20, width - w0 - w1 - 4 - (tokens ? wt + 2 : 0));
  return [header, ...rows]
    .map((r) => {
      const description = r.at(-1)!;
      const count = tokens ? `${r[2].padStart(wt)}  ` : "";
      return `${r[0].padEnd(w0)}  ${cut(r[1], w1).padEnd(w1)}  ${count}${cut(description, room)}`.trimEnd();
    })
    .join("\n");
}

/** The tokenizer, system prompt and context `--tokens` counts with: a model folder's own */
async function tokenCounter(model: string): Promise<{ tokenizer: ChatTokenizer; systemPrompt: string | undefined; context: number }> {
  const dir = resolveModelDir(model);
  const tokenizer = await ChatTokenizer.fromDir(dir);
  const context = resolveConfig(JSON.parse(fs.readFileSync(path.join(dir, "config.json"), "utf8")), path.join(dir, "config.json")).maxPositions;
  return { tokenizer, systemPrompt: readRolloutSettings(dir)?.system_prompt, context };
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

function cut(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, Math.max(1, n - 1))}…`;
}
