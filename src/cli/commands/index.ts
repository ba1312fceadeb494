/** Every command the CLI knows; each module registers its own subcommand(s). */
import type { Command } from "commander";
import { register as tools } from "./tools.js";
import { register as call } from "./call.js";
import { register as trainCommands } from "./train.js";
import { register as evalCommand } from "./eval.js";
import { register as exportOnnx } from "./export-onnx.js";
import { register as scenarios } from "./scenarios.js";
import { register as report } from "./report.js";
import { register as serve } from "./serve.js";

export type RegisterCommand = (program: Command) => void;

export const commands: RegisterCommand[] = [
  tools,
  call,
  trainCommands,
  evalCommand,
  exportOnnx,
  scenarios,
  report,
  serve,
];
