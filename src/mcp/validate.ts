/**
 * Argument validation with ajv before a call is sent, so a model's malformed call comes back as
 * an observation naming the failing path (`/items/0/qty: must be >= 1`) instead of a server-side
 * crash or a vague error. Servers send JSON Schema in several dialects: draft-07 (most), 2020-12
 * (zod 4 / newer SDKs), 2019-09; each dialect gets its own ajv instance, picked by `$schema`.
 * Unknown formats and keywords are tolerated (strict: false); a schema ajv cannot compile at all
 * disables validation for that tool (the server still validates) rather than the tool itself.
 * One compiled validator per tool, compiled lazily on first call and kept.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { JsonSchema } from "./types.js";

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped
type AddFormats = (ajv: AnyAjv) => unknown;
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);

type AnyAjv = Ajv | Ajv2019 | Ajv2020;
type Dialect = "draft-07" | "2019-09" | "2020-12";

const MAX_LISTED_ERRORS = 5;

function makeAjv(dialect: Dialect): AnyAjv {
  // validateSchema: false: a schema that bends its meta-schema (an empty `required`, a stray keyword
  // value) still validates what it clearly says, instead of disabling validation for the tool
  const options = { strict: false, allErrors: true, logger: false as const, validateFormats: true, validateSchema: false };
  const ajv = dialect === "2020-12" ? new Ajv2020(options) : dialect === "2019-09" ? new Ajv2019(options) : new Ajv(options);
  addFormats(ajv);
  return ajv;
}

function dialectOf(schema: JsonSchema): Dialect {
  const uri = typeof schema.$schema === "string" ? schema.$schema : "";
  if (uri.includes("2020-12")) return "2020-12";
  if (uri.includes("2019-09")) return "2019-09";
  return "draft-07";
}

export type ArgumentCheck = { ok: true; args: Record<string, unknown> } | { ok: false; message: string };

export class ArgumentValidator {
  private readonly instances = new Map<Dialect, AnyAjv>();
  /** per tool: a validator, or null when the schema could not be compiled */
  private readonly compiled = new Map<string, ValidateFunction | null>();

  /** Validates `args` for `tool`; a JSON string is parsed first (models often emit one). */
  check(tool: string, schema: JsonSchema, args: unknown): ArgumentCheck {
    let value = args;
    if (value === undefined || value === null) value = {};
    if (typeof value === "string") {
      try {
        value = value.trim() === "" ? {} : JSON.parse(value);
      } catch (e) {
        return { ok: false, message: `arguments are not valid JSON: ${(e as Error).message}` };
      }
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return { ok: false, message: `/: arguments must be a JSON object, got ${Array.isArray(value) ? "array" : typeof value}` };
    }
    const validate = this.validatorFor(tool, schema);
    if (validate && !validate(value)) {
      return { ok: false, message: formatErrors(validate.errors ?? []) };
    }
    return { ok: true, args: value as Record<string, unknown> };
  }

  /**
   * What is wrong with a tool's structured result against its `outputSchema` (MCP: servers MUST
   * conform, clients SHOULD check), or undefined when it conforms or the schema cannot compile.
   */
  checkOutput(tool: string, schema: JsonSchema, structured: unknown): string | undefined {
    if (structured === undefined) return "it declares an outputSchema but sent no structuredContent";
    const validate = this.validatorFor(`${tool}\u0000output`, schema);
    return validate && !validate(structured) ? `its structuredContent does not match its outputSchema: ${formatErrors(validate.errors ?? [])}` : undefined;
  }

  /** `key`: the tool's name, or the name and "\u0000output" for its outputSchema */
  private validatorFor(key: string, schema: JsonSchema): ValidateFunction | null {
    if (this.compiled.has(key)) return this.compiled.get(key) ?? null;
    let fn: ValidateFunction | null = null;
    const dialect = dialectOf(schema);
    // $schema/$id would make ajv look up or register meta-schemas and ids shared across tools
    const { $schema: _s, $id: _id, ...body } = schema;
    try {
      let ajv = this.instances.get(dialect);
      if (!ajv) this.instances.set(dialect, (ajv = makeAjv(dialect)));
      fn = ajv.compile(body);
    } catch {
      fn = null; // uncompilable schema (draft-04 quirks, broken $ref): leave validation to the server
    }
    this.compiled.set(key, fn);
    return fn;
  }
}

/** `/items/0/qty: must be >= 1; /: must have required property 'sku'` */
export function formatErrors(errors: ErrorObject[]): string {
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    // anyOf/oneOf summaries repeat what the branch errors already said
    if (e.keyword === "anyOf" || e.keyword === "oneOf") continue;
    const line = `${e.instancePath || "/"}: ${e.message ?? "is invalid"}${detail(e)}`;
    if (seen.has(line)) continue;
    seen.add(line);
    lines.push(line);
  }
  if (lines.length === 0 && errors.length) lines.push(`${errors[0].instancePath || "/"}: ${errors[0].message ?? "is invalid"}`);
  const shown = lines.slice(0, MAX_LISTED_ERRORS);
  if (lines.length > shown.length) shown.push(`(${lines.length - shown.length} more)`);
  return shown.join("; ");
}

function detail(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  if (e.keyword === "enum" && Array.isArray(p.allowedValues)) {
    return `: ${p.allowedValues.map((v) => JSON.stringify(v)).join(", ")}`;
  }
  if (e.keyword === "additionalProperties" && typeof p.additionalProperty === "string") {
    return ` (${JSON.stringify(p.additionalProperty)})`;
  }
  if (e.keyword === "const" && "allowedValue" in p) return `: ${JSON.stringify(p.allowedValue)}`;
  return "";
}
