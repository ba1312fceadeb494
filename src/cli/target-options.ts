/**
 * The target flags every command that talks to an MCP server shares, and their translation to
 * `connect()` arguments. Parsing errors are TrainMcpError("ConfigInvalid") naming the flag, so
 * the CLI prints one line and exits 2.
 */
import { Command, Option } from "commander";
import * as fs from "node:fs";
import * as path from "node:path";
import { TrainMcpError } from "../errors.js";
import type { ConnectOptions } from "../mcp/options.js";
import { ELICITATION_MODES, type ElicitationMode } from "../mcp/elicitation.js";
import type { SamplingEndpoint } from "../mcp/sampling.js";
import { parseTimeoutMs } from "../mcp/timeout.js";
import { splitToolPatterns, type ToolFilter } from "../mcp/tool-filter.js";

export interface TargetFlags {
  server: string;
  env?: string[];
  cwd?: string;
  header?: string[];
  timeout?: string;
  serverLog?: string;
  inheritEnv?: "safe" | "all" | "none";
  templateDir?: string;
  resourceTools?: boolean;
  samplingModel?: string;
  samplingBaseUrl?: string;
  elicitation?: ElicitationMode;
  tools?: string[];
  excludeTools?: string[];
  sandbox?: boolean;
  sandboxNetwork?: boolean;
  serverInstructions?: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function addTargetOptions(cmd: Command): Command {
  return addConnectOptions(
    cmd.addOption(
      new Option("-s, --server <target>", "MCP server: http(s)://URL, stdio:<command line>, a command line, or fixture:<name>").makeOptionMandatory().argParser((target: string, previous: string | undefined) => {
        // commander keeps the last of a repeated flag: a server given first would go unseen
        if (previous !== undefined) throw new TrainMcpError("ConfigInvalid", `${cmd.parent?.parent ? `${cmd.parent.name()} ` : ""}${cmd.name()} talks to one server: --server was given twice (${previous}, then ${target}); run it once per server (train and eval take several)`);
        return target;
      }),
    ),
  );
}

/** The connection flags without --server, for commands whose --server is optional or repeated. */
export function addConnectOptions(cmd: Command): Command {
  return cmd
    .option("-e, --env <K=V>", "environment variable for a stdio server (repeatable); ${cwd} in a value is the server's working directory (its --template-dir copy)", collect)
    .option("--cwd <dir>", "working directory of a stdio server")
    .option("-H, --header <'K: V'>", "extra HTTP header, e.g. 'Authorization: Bearer …' (repeatable)", collect)
    // read at parse time, for every command (train's too): a bad value stops before anything starts
    .addOption(new Option("--timeout <duration>", "per-call and connect timeout: milliseconds, or with a unit (500ms, 30s, 2m); default 30s (30000 ms)").argParser((v) => String(parseTimeoutMs(v))))
    .option("--template-dir <dir>", "stdio: copy this folder to a fresh temp dir for every server instance, run the server there, delete the copy after (the server's files stay untouched)")
    .option("--resource-tools", "offer the server's MCP resources to the model as two tools, list_resources and read_resource (when the server declares resources)")
    .option("--sampling-model <name>", "answer the server's sampling requests (a tool asking the client's model for a completion) with this model, and declare the capability")
    .option("--sampling-base-url <url>", "OpenAI-compatible endpoint of --sampling-model (key from $OPENAI_API_KEY)")
    .addOption(
      new Option("--elicitation <mode>", "answer the server's elicitation forms (a tool asking the user for input mid-call), and declare the capability: decline, cancel, defaults (the server's pre-filled values), model (--sampling-model fills them in)").choices([
        ...ELICITATION_MODES,
      ]),
    )
    .option("--tools <names>", "offer only these tools of the server (comma-separated names or globs: 'git_log,git_show', 'get_*'; SERVER:NAME for one server of several, by the name `train-mcp tools` prints; repeatable): the others are not shown to the model, called or callable", collect)
    .option("--exclude-tools <names>", "leave these tools out (comma-separated names or globs; repeatable), after --tools", collect)
    .option("--server-instructions", "show the model the server's MCP instructions (how to use its tools) after the system prompt, as Claude Code does")
    .option("--sandbox", "stdio: run the server under bubblewrap (bwrap): read-only files but its --template-dir copy, no network, own process tree")
    .option("--sandbox-network", "--sandbox, keeping the network (a server that needs a database or an API)")
    .option("--server-log <file>", "file for the stdio server's stderr (default: a temp file, removed on success; train copies it to <run>/server.log)")
    .addOption(
      new Option("--inherit-env <mode>", "environment a stdio server inherits: safe (PATH, HOME, locale…), all, none")
        .choices(["safe", "all", "none"])
        .default("safe"),
    );
}

/** `--env K=V` and `--header 'Name: value'` lists as maps; errors name the flag, never the
 *  value (it is usually a secret). */
export function parseEnvAndHeaders(envList: string[] = [], headerList: string[] = []): { env: Record<string, string>; headers: Record<string, string> } {
  const env: Record<string, string> = {};
  for (const kv of envList) {
    const i = kv.indexOf("=");
    if (i < 0) throw new TrainMcpError("ConfigInvalid", `--env expects K=V, got a value with no "="`);
    if (i === 0) throw new TrainMcpError("ConfigInvalid", `--env expects K=V, got a value without a name before "="`);
    env[kv.slice(0, i)] = kv.slice(i + 1);
  }
  const headers: Record<string, string> = {};
  for (const h of headerList) {
    const i = h.indexOf(":");
    if (i <= 0) throw new TrainMcpError("ConfigInvalid", `--header expects 'Name: value', got a value without a colon`);
    const name = h.slice(0, i).trim();
    const value = h.slice(i + 1).trim();
    // e.g. a token read from a file with its newline: fetch would reject it, quoting the value
    if (/[\r\n\0]/.test(value)) throw new TrainMcpError("ConfigInvalid", `--header ${name}: the value contains a line break or NUL`);
    headers[name] = value;
  }
  return { env, headers };
}

export function connectArgs(flags: TargetFlags): { target: string; options: ConnectOptions } {
  const { env, headers } = parseEnvAndHeaders(flags.env, flags.header);
  const timeoutMs = flags.timeout === undefined ? undefined : parseTimeoutMs(flags.timeout);
  return {
    target: flags.server,
    options: {
      env,
      headers,
      cwd: flags.cwd,
      timeoutMs,
      serverLog: serverLogFlag(flags.serverLog),
      inheritEnv: flags.inheritEnv,
      templateDir: templateDirFlag(flags.templateDir),
      resourceTools: flags.resourceTools,
      serverInstructions: flags.serverInstructions,
      sampling: samplingFlags(flags),
      elicitation: flags.elicitation,
      tools: toolFilterFlags(flags),
      sandbox: flags.sandbox || flags.sandboxNetwork ? { network: !!flags.sandboxNetwork } : undefined,
    },
  };
}

/** `--tools` / `--exclude-tools` as a ToolFilter; a flag given with no name in it is an error */
export function toolFilterFlags(flags: Pick<TargetFlags, "tools" | "excludeTools">): ToolFilter | undefined {
  const include = splitToolPatterns(flags.tools);
  const exclude = splitToolPatterns(flags.excludeTools);
  if (include?.length === 0) throw new TrainMcpError("ConfigInvalid", "--tools expects tool names or globs (comma-separated), got none");
  if (exclude?.length === 0) throw new TrainMcpError("ConfigInvalid", "--exclude-tools expects tool names or globs (comma-separated), got none");
  return include || exclude ? { include, exclude } : undefined;
}

/** `--template-dir`: an existing folder, absolute (servers start in other directories) */
export function templateDirFlag(dir: string | undefined): string | undefined {
  if (dir === undefined) return undefined;
  const abs = path.resolve(dir);
  if (!fs.existsSync(abs) || !fs.statSync(abs).isDirectory()) throw new TrainMcpError("ConfigInvalid", `--template-dir ${dir}: no such folder`);
  return abs;
}

/** `--server-log FILE`: a file (made on first use, its folders too), never a folder */
export function serverLogFlag(file: string | undefined): string | undefined {
  if (file !== undefined && fs.existsSync(file) && fs.statSync(file).isDirectory()) throw new TrainMcpError("ConfigInvalid", `--server-log ${file} is a folder: name a file in it`);
  return file;
}

/** `--sampling-model` with `--sampling-base-url`: the endpoint that answers servers' sampling requests */
export function samplingFlags(flags: Pick<TargetFlags, "samplingModel" | "samplingBaseUrl">): SamplingEndpoint | undefined {
  const { samplingModel: model, samplingBaseUrl: baseUrl } = flags;
  if (model === undefined && baseUrl === undefined) return undefined;
  if (!model || !baseUrl) throw new TrainMcpError("ConfigInvalid", "--sampling-model and --sampling-base-url go together");
  if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol)) throw new TrainMcpError("ConfigInvalid", `--sampling-base-url expects an http(s) URL, got "${baseUrl}"`);
  return { model, baseUrl, apiKey: process.env.OPENAI_API_KEY };
}
