/**
 * The one entry point of the MCP layer: `connect(target, options)` → a Toolbox.
 *   connect("http://127.0.0.1:3000/mcp", { headers: { Authorization: "Bearer …" } })
 *   connect("stdio:npx -y some-mcp-server --flag", { env: { API_KEY: "…" } })
 *   connect("fixture:calculator")
 * It resolves the target (target.ts) into a launch spec, starts the first server instance,
 * lists its tools and returns the toolbox (toolbox.ts). Failures to start or reach the server
 * throw TrainMcpError("ServerUnreachable"), one line naming the target; later faults never throw.
 * A tool filter (options.tools) whose pattern matches none of the server's tools throws
 * ConfigInvalid, naming the pattern and the nearest tool.
 */
import { TrainMcpError } from "../errors.js";
import type { LaunchSpec } from "./connection.js";
import { fixtureCommand, fixtureNames, type FixtureName } from "./fixtures.js";
import { resolveOptions, type ConnectOptions, type ResolvedOptions } from "./options.js";
import { describeTarget, parseTarget, type TargetSpec } from "./target.js";
import { toolFilterProblem } from "./tool-filter.js";
import { McpToolbox } from "./toolbox.js";

export type { ConnectOptions } from "./options.js";
export type { TargetSpec } from "./target.js";
export { McpToolbox } from "./toolbox.js";

export async function connect(target: string | TargetSpec, options: ConnectOptions = {}): Promise<McpToolbox> {
  const toolbox = await openToolbox(target, options);
  const problem = toolFilterProblem([toolbox.toolFilterReport]);
  if (problem) {
    await toolbox.close();
    throw new TrainMcpError("ConfigInvalid", problem);
  }
  return toolbox;
}

/** connect() without checking that each tool-filter pattern matched: for several servers, where
 *  a pattern need match on one of them only (train's ServerSet checks that) */
export async function openToolbox(target: string | TargetSpec, options: ConnectOptions = {}): Promise<McpToolbox> {
  const spec = typeof target === "string" ? parseTarget(target) : target;
  let resolved: ResolvedOptions;
  try {
    resolved = resolveOptions(options);
  } catch (e) {
    if (e instanceof TrainMcpError) throw e;
    throw new TrainMcpError("ConfigInvalid", (e as Error).message);
  }
  return McpToolbox.start(launchSpec(spec, resolved), resolved);
}

export function launchSpec(spec: TargetSpec, o: ResolvedOptions): LaunchSpec {
  const label = describeTarget(spec);
  if (spec.kind === "http") {
    if (o.templateDir) throw new TrainMcpError("ConfigInvalid", "templateDir needs a stdio server (it becomes the server's working directory)");
    if (o.sandbox) throw new TrainMcpError("ConfigInvalid", `--sandbox runs the stdio servers train-mcp starts; ${label} is an HTTP server, running wherever it was started (sandbox it there)`);
    return { kind: "http", url: spec.url, headers: o.headers, label };
  }
  let command = spec.kind === "stdio" ? spec.command : "";
  let args = spec.kind === "stdio" ? spec.args : [];
  if (spec.kind === "fixture") {
    if (!(fixtureNames as readonly string[]).includes(spec.name)) {
      throw new TrainMcpError("ConfigInvalid", `unknown fixture "${spec.name}"; bundled fixtures: ${fixtureNames.join(", ")}`);
    }
    ({ command, args } = fixtureCommand(spec.name as FixtureName));
  }
  return { kind: "stdio", command, args, env: o.env, cwd: o.cwd, logPath: o.serverLog, label, ...(o.sandbox ? { sandbox: o.sandbox } : {}) };
}
