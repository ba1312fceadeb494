/** Every command the CLI knows; each module registers its own subcommand(s). */
import type { Command } from "commander";

export type RegisterCommand = (program: Command) => void;

export const commands: RegisterCommand[] = [];
