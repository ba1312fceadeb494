/**
 * Which base model a LoRA adapter was trained on, and whether that is the base this server
 * serves. PEFT records it in adapter_config.json's `base_model_name_or_path`: train-mcp writes the
 * base's absolute folder (src/policy/peft.ts `saveAdapter`), PEFT in Python the Hub id or folder it
 * loaded. An adapter's deltas mean something only on the weights they were trained against; on
 * another base of the same shapes (Qwen2.5-0.5B and Qwen2.5-0.5B-Instruct, or the built-in model
 * pretrained and at random init) they load without any error and quietly serve a different model.
 * vLLM does not check this; a user who loads the wrong checkpoint's adapter wants to be told.
 *
 * The policy (models.ts applies it):
 *  - shapes do not fit: refused (400), the message naming both bases, since nothing can be served;
 *  - shapes fit, the recorded base is another model: loaded, because a base that was copied,
 *    renamed or converted is legitimate and refusing would leave no way to serve it, but with a
 *    warning in the server's log and in the load response, so neither operator nor client misses it;
 *  - no recorded base (PEFT allows null): nothing to compare, no warning.
 *
 * "The same base": the built-in model under any of its spellings ("default", or a train-mcp
 * clone's src/policy/default-model, as model-folder.ts reads them); else the recorded path, as
 * written or relative to the adapter, resolves to the served folder; else, when the recorded path
 * is no folder on this machine (a Hub id, another machine's path), its last segment names the
 * served folder (or the Hub cache's models--org--name it sits in). A recorded folder that exists
 * here but is not the served one is another model, even with the same name.
 */
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { defaultModelDir } from "../policy/default-model/index.js";

/** The one field of adapter_config.json read here; peft.ts checks the rest when merging. */
const AdapterBaseSchema = z
  .object({
    base_model_name_or_path: z.string().nullable().optional().describe("the base the adapter was trained on: a folder or a Hub id (null or absent: unknown)"),
  })
  .passthrough();

/** The base an adapter folder records, or null when it records none (or its config cannot be
 *  read: merging reports that with the details). */
export function recordedBase(adapterDir: string): string | null {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(path.join(adapterDir, "adapter_config.json"), "utf8"));
  } catch {
    return null;
  }
  const parsed = AdapterBaseSchema.safeParse(raw);
  const base = parsed.success ? parsed.data.base_model_name_or_path : null;
  return base && base.trim() !== "" ? base : null;
}

function real(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

const BUILT_IN = /(^|[\\/])src[\\/]policy[\\/]default-model[\\/]?$/;

/** The name a served folder goes by: its own, or the repository's in a Hub cache snapshot. */
function servedNames(servedDir: string): string[] {
  const names = [path.basename(servedDir)];
  const hub = /[\\/]models--[^\\/]+--([^\\/]+)[\\/]snapshots[\\/][^\\/]+[\\/]?$/.exec(servedDir);
  if (hub) names.push(hub[1]);
  return names.map((n) => n.toLowerCase());
}

/** Whether `recorded` (an adapter's base_model_name_or_path) names the served base folder. */
export function isSameBase(recorded: string, adapterDir: string, servedDir: string): boolean {
  const served = real(servedDir);
  const servedIsBuiltIn = served === real(defaultModelDir());
  if (recorded === "default" || BUILT_IN.test(recorded)) return servedIsBuiltIn;
  const tries = path.isAbsolute(recorded) ? [recorded] : [path.resolve(adapterDir, recorded), path.resolve(recorded)];
  const here = tries.filter((d) => fs.existsSync(d) && fs.statSync(d).isDirectory());
  if (here.length > 0) return here.some((d) => real(d) === served);
  const last = recorded.replace(/[\\/]+$/, "").split(/[\\/]/).pop()?.toLowerCase() ?? "";
  return last !== "" && servedNames(served).includes(last);
}
