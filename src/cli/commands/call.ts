/**
 * `train-mcp call --server <target> <tool> '<json args>' [--json]`: one tool call, printed as
 * the policy would see it (normalized text). Exit codes: 0 the tool succeeded, 1 the tool
 * reported an error (or timed out / lost its server), 2 the user's input was wrong (bad JSON,
 * unknown tool, arguments rejected by the tool's schema, unreachable server).
 */
import type { Command } from "commander";
import { TrainMcpError } from "../../errors.js";
import { connect } from "../../mcp/connect.js";
import { addTargetOptions, connectArgs, type TargetFlags } from "../target-options.js";

export function register(program: Command): void {
  addTargetOptions(
    program
      .command("call")
      .description("call one tool of an MCP server and print the normalized result")
      .argument("<tool>", "tool name")
      .argument("[args]", "arguments as a JSON object", "{}"),
  )
    .option("--json", "print {isError, text, structuredContent}")
    .action(async (tool: string, rawArgs: string, flags: TargetFlags & { json?: boolean }) => {
      const args = parseArgs(rawArgs);
      const { target, options } = connectArgs(flags);
      const toolbox = await connect(target, options);
      try {
        const result = await toolbox.call(tool, args);
        if (result.fault === "unknown_tool" || result.fault === "invalid_arguments") {
          throw new TrainMcpError("ConfigInvalid", result.text);
        }
        if (flags.json) {
          const { isError, text, structuredContent } = result;
          process.stdout.write(JSON.stringify({ isError, text, structuredContent }, null, 2) + "\n");
        } else {
          process.stdout.write(result.text.endsWith("\n") ? result.text : result.text + "\n");
        }
        if (result.outputProblem) process.stderr.write(`note: ${result.outputProblem}\n`);
        if (result.isError) process.exitCode = 1;
      } finally {
        await toolbox.close();
      }
    });
}

function parseArgs(raw: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    throw new TrainMcpError("ConfigInvalid", `arguments are not valid JSON (${(e as Error).message}): ${raw}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TrainMcpError("ConfigInvalid", `arguments must be a JSON object like '{"x": 1}', got: ${raw}`);
  }
  return value as Record<string, unknown>;
}
