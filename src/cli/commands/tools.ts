/**
 * `train-mcp tools --server <target> [--json]`: what a server offers. The table is for people
 * (name, required arguments, description cut to the terminal); `--json` is for machines:
 * `[{name, description, inputSchema}]`.
 */
import type { Command } from "commander";
import { connect } from "../../mcp/connect.js";
import type { ToolSpec } from "../../mcp/types.js";
import { addTargetOptions, connectArgs, type TargetFlags } from "../target-options.js";

export function register(program: Command): void {
  addTargetOptions(program.command("tools").description("list the tools of an MCP server"))
    .option("--json", "print a JSON array of {name, description, inputSchema}")
    .action(async (flags: TargetFlags & { json?: boolean }) => {
      const { target, options } = connectArgs(flags);
      const toolbox = await connect(target, options);
      try {
        const out = flags.json
          ? JSON.stringify(toolbox.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })), null, 2)
          : toolTable(toolbox.tools, process.stdout.columns || 100);
        process.stdout.write(out + "\n");
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

/** name | required args | description, columns padded, the description cut to `width` */
export function toolTable(tools: ToolSpec[], width: number): string {
  if (tools.length === 0) return "(the server offers no tools)";
  const rows = tools.map((t) => [t.name, requiredArgs(t).join(", ") || "-", oneLine(t.description || t.title || "")]);
  const header = ["TOOL", "REQUIRED ARGS", "DESCRIPTION"];
  const w0 = Math.max(header[0].length, ...rows.map((r) => r[0].length));
  const w1 = Math.min(40, Math.max(header[1].length, ...rows.map((r) => r[1].length)));
  const room = Math.max(20, width - w0 - w1 - 4);
  return [header, ...rows]
    .map(([a, b, c]) => `${a.padEnd(w0)}  ${cut(b, w1).padEnd(w1)}  ${cut(c, room)}`.trimEnd())
    .join("\n");
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

function cut(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, Math.max(1, n - 1))}…`;
}
