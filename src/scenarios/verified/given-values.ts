/**
 * Values the user gives for tools' arguments (`--value NAME=VALUE`, config `argument_values`):
 * what no tool's result reveals (a page to fetch, a repository path, a project key), offered to
 * the verified generator like harvested values. A name no argument has, or one that names a
 * credential, is refused.
 */
import { TrainMcpError } from "../../errors.js";
import { isSecretArgumentName } from "../../mcp/command-credentials.js";
import type { ToolSpec } from "../../mcp/types.js";
import { normKey, ValuePool } from "./harvest.js";
import { singular } from "./schema-values.js";

/** The user's values, each as text and, where it is a plain number, as that number too (for an integer argument). */
export function givenPool(values: Readonly<Record<string, readonly string[]>> | undefined): ValuePool {
  const pool = new ValuePool();
  for (const [name, list] of Object.entries(values ?? {}))
    for (const v of list) {
      pool.add(name, v);
      if (v.trim() !== "" && String(Number(v)) === v) pool.add(name, Number(v));
    }
  return pool;
}

/** `--value NAME=VALUE`s as the values option (by name, in the order given). */
export function parseValueSpecs(specs: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const spec of specs) {
    const eq = spec.indexOf("=");
    const name = eq > 0 ? spec.slice(0, eq).trim() : "";
    if (!name) throw new TrainMcpError("ConfigInvalid", `--value ${JSON.stringify(spec)}: expected NAME=VALUE, an argument's name and a value for it (e.g. --value url=http://127.0.0.1:8080/)`);
    (out[name] ??= []).push(spec.slice(eq + 1));
  }
  return out;
}

/** Refuses a value for a name no tool's argument has (a typo would silently give nothing): the error names the arguments there are. */
export function checkValueNames(values: Readonly<Record<string, readonly string[]>>, tools: readonly ToolSpec[]): void {
  const names = new Map<string, string>();
  const walk = (schema: unknown, depth: number): void => {
    if (depth > 4 || !schema || typeof schema !== "object") return;
    const s = schema as { properties?: Record<string, unknown>; items?: unknown };
    for (const [k, sub] of Object.entries(s.properties ?? {})) {
      if (!names.has(normKey(k))) names.set(normKey(k), k);
      walk(sub, depth + 1);
    }
    walk(s.items, depth + 1);
  };
  for (const t of tools) walk(t.inputSchema, 0);
  for (const name of Object.keys(values)) {
    // a scenario file holds its calls' arguments, and is shared: the server gets a credential by --env or --header
    if (isSecretArgumentName(name))
      throw new TrainMcpError("ConfigInvalid", `--value ${name}=…: ${JSON.stringify(name)} names a credential, and every task's calls (with their arguments) are written to the scenario file: give the server its credentials by --env or --header instead`);
    if (!names.has(normKey(name)) && !names.has(normKey(singular(name))))
      throw new TrainMcpError("ConfigInvalid", `--value ${name}=…: no tool of the server takes an argument named ${JSON.stringify(name)} (their arguments: ${[...names.values()].sort().join(", ") || "none"})`);
  }
}

/** `--value NAME=VALUE`s as the values option, checked against the tools' argument names. */
export function parseGivenValues(specs: readonly string[], tools: readonly ToolSpec[]): Record<string, string[]> {
  const values = parseValueSpecs(specs);
  checkValueNames(values, tools);
  return values;
}
