/**
 * The train-mcp command line: one commander program, one file per command under ./commands.
 * Every command module exports `register(program)`. Errors the user can fix (TrainMcpError with
 * usage=true, or commander's own usage errors) print one line and exit with code 2.
 */
import { Command, CommanderError, type Help, type Option } from "commander";
import { closestName } from "../closest-name.js";
import { isTrainMcpError, TrainMcpError } from "../errors.js";
import { bareDefaults } from "./help-defaults.js";
import { redactSecretValues } from "../mcp/command-credentials.js";
import { commands } from "./commands/index.js";

export function buildProgram(): Command {
  const program = new Command("train-mcp")
    .description("Teach an LLM agent to use any MCP server by reinforcement learning.")
    .version("0.1.0")
    .exitOverride()
    // commander's usage errors on one line, as ours: "train-mcp: unknown option '--stepz' (Did you mean --steps?)"
    .configureOutput({ outputError: (str, write) => write(`train-mcp: ${str.replace(/^error: /, "").trim().replace(/\s*\n\s*/g, " ")}\n`) })
    // `(default: 1)`, not `(default: "1")`; set before the commands are added, which inherit it
    .configureHelp({
      optionDescription(this: Help, option: Option) {
        return bareDefaults(this, option);
      },
    });
  for (const register of commands) register(program);
  checkRequiredAfterUnknown(program);
  return program;
}

/**
 * Commander checks required options before unknown ones, so a misspelt `--modle x` was reported
 * as "required option '--model' not specified": the required ones are checked in a preAction
 * hook instead, which runs after the unknown-option check (and its did-you-mean).
 */
function checkRequiredAfterUnknown(cmd: Command): void {
  const required = cmd.options.filter((o) => o.mandatory);
  for (const o of required) o.mandatory = false;
  if (required.length > 0)
    cmd.hook("preAction", (_self, action) => {
      if (action !== cmd) return;
      const missing = required.find((o) => cmd.getOptionValue(o.attributeName()) === undefined);
      if (missing) cmd.error(`error: required option '${missing.flags}' not specified`, { code: "commander.missingMandatoryOptionValue" });
    });
  for (const sub of cmd.commands) checkRequiredAfterUnknown(sub);
}

/** `help NAME` for a command that does not exist: commander would print the whole help instead. */
function checkHelpTopic(program: Command, argv: string[]): void {
  if (argv[0] !== "help" || argv.length < 2 || argv[1].startsWith("-")) return;
  const names = program.commands.flatMap((c) => [c.name(), ...c.aliases()]);
  if (names.includes(argv[1]) || argv[1] === "help") return;
  const near = closestName(argv[1], names);
  throw new TrainMcpError("ConfigInvalid", `unknown command ${argv[1]} (${near ? `did you mean ${near}?` : `the commands: ${names.join(", ")}`})`);
}

const ROOT_FLAGS = new Set(["-h", "--help", "-V", "--version"]);

/**
 * `train-mcp` alone runs the offline demo; `train-mcp --server X ...` is `train-mcp train ...`, and
 * so is a run named by a config file or resumed (their settings, not the demo's, fill the gaps).
 */
export function routeArgs(argv: string[]): string[] {
  if (argv.length === 0) return ["demo"];
  if (argv[0].startsWith("-") && !ROOT_FLAGS.has(argv[0])) {
    const names = (...flags: string[]) => argv.some((a) => flags.includes(a) || flags.some((f) => f.startsWith("--") && a.startsWith(`${f}=`)));
    return [names("-s", "--server", "--config", "--resume") ? "train" : "demo", ...argv];
  }
  return argv;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    checkHelpTopic(program, argv);
    await program.parseAsync(routeArgs(argv), { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (caught) {
    let e = caught;
    // the wasm module's abort (its heap is spent) says nothing of the cause on its own; the
    // modules load only then, so other errors stay quick
    if (e instanceof Error && e.message.startsWith("Aborted(")) {
      const [{ activeBackend }, { explainWasmAbort }] = await Promise.all([import("../policy/backend.js"), import("../policy/wasm-memory.js")]);
      e = explainWasmAbort(e, activeBackend() ?? "");
    }
    if (e instanceof CommanderError) {
      // --help and --version arrive here as "errors" with exit code 0
      return e.exitCode === 0 ? 0 : 2;
    }
    // error messages name server and endpoint URLs: their credentials stay out
    if (isTrainMcpError(e)) {
      process.stderr.write(`train-mcp: ${redactSecretValues(e.message)}\n`);
      if (e.code === "Interrupted") return typeof process.exitCode === "number" ? process.exitCode : 130;
      return e.usage ? 2 : 1;
    }
    const message = e instanceof Error ? e.message : String(e);
    process.stderr.write(`train-mcp: ${redactSecretValues(message)}\n`);
    if (process.env.TRAIN_MCP_DEBUG && e instanceof Error) process.stderr.write(`${e.stack}\n`);
    return 1;
  }
}
