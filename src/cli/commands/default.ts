/**
 * What `train-mcp` with no arguments does for now: list the tools of the bundled calculator
 * fixture and make one example call, so a newcomer sees the toolbox work end to end. The
 * end-to-end training issue replaces this with the offline training demo.
 */
import type { Command } from "commander";
import { connect } from "../../mcp/connect.js";
import { toolTable } from "./tools.js";

export function register(program: Command): void {
  program.action(async () => {
    const toolbox = await connect("fixture:calculator");
    try {
      process.stdout.write(`Tools of fixture:calculator\n\n${toolTable(toolbox.tools, process.stdout.columns || 100)}\n\n`);
      const args = { expression: "1000 * (1 + 0.05)^3" };
      const result = await toolbox.call("calculate", args);
      process.stdout.write(`calculate ${JSON.stringify(args)}\n→ ${result.text}\n`);
      if (result.isError) process.exitCode = 1;
    } finally {
      await toolbox.close();
    }
  });
}
