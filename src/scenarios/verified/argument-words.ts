/**
 * A call's arguments as a task says them. Strings are quoted and numbers written as they are;
 * lists and records read as a person would write them, not as JSON: `entities [{"name":"harbor",
 * "entityType":"orbit","observations":["delta","maple"]}]` becomes `entity "harbor" (entity
 * type "orbit", observations "delta" and "maple")`, and two relations `2 relations: from "delta",
 * to "alpha", relation type "works with"; and from …`. The model still has to write the JSON: the
 * tool's schema in its prompt says where each word goes. Values nested deeper than a record's
 * list of words stay JSON, which says them exactly.
 */

type Scalar = string | number | boolean;

const isScalar = (v: unknown): v is Scalar => typeof v === "string" || typeof v === "number" || typeof v === "boolean";
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** "entityType" → "entity type", "max_count" → "max count" */
export function human(key: string): string {
  return key.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " ").toLowerCase();
}

/** English plural to singular, for the common endings ("entities" → "entity", "boxes" → "box"). */
export function singular(word: string): string {
  if (/[^aeiou]ies$/i.test(word)) return word.slice(0, -3) + "y";
  if (/(ss|sh|ch|x|z)es$/i.test(word)) return word.slice(0, -2);
  if (/ss$|us$|is$/i.test(word)) return word; // "address", "status", "analysis"
  return word.endsWith("s") ? word.slice(0, -1) : word;
}

/** "a", "b" and "c" */
function listWords(values: readonly Scalar[]): string {
  const words = values.map(scalarWords);
  return words.length <= 1 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}

function scalarWords(v: Scalar): string {
  return typeof v === "string" ? JSON.stringify(v) : String(v);
}

// the key that names a record, said first and bare: `"harbor" (entity type "orbit")`
const HEAD_KEYS = ["name", "title", "id"];

/** One record in words, or undefined when a value of it is nested too deep to say plainly;
 *  `headed`: an item of a list, said by its name first (a lone record says every field) */
function recordWords(record: Record<string, unknown>, headed: boolean): string | undefined {
  const head = headed ? HEAD_KEYS.find((k) => isScalar(record[k])) : undefined;
  const fields: string[] = [];
  for (const [k, v] of Object.entries(record)) {
    if (k === head) continue;
    if (isScalar(v)) fields.push(`${human(k)} ${scalarWords(v)}`);
    else if (Array.isArray(v) && v.every(isScalar)) fields.push(v.length === 0 ? `no ${human(k)}` : `${human(k)} ${listWords(v)}`);
    else return undefined;
  }
  if (!head) return fields.join(", ");
  return fields.length === 0 ? scalarWords(record[head] as Scalar) : `${scalarWords(record[head] as Scalar)} (${fields.join(", ")})`;
}

/** One argument, its name and its value, in words. */
export function argumentWords(key: string, value: unknown): string {
  const label = human(key);
  if (isScalar(value)) return `${label} ${scalarWords(value)}`;
  if (Array.isArray(value) && value.length === 0) return `no ${label}`;
  if (Array.isArray(value) && value.length > 0 && value.every(isScalar)) return `${label} ${listWords(value)}`;
  if (Array.isArray(value) && value.length > 0 && value.every(isRecord)) {
    const items = value.map((r) => recordWords(r, true));
    if (items.every((i): i is string => i !== undefined)) {
      if (items.length === 1) return `${singularLabel(label)} ${items[0]}`;
      // items with commas of their own are told apart by semicolons
      const sep = items.some((i) => i.includes(",")) ? "; " : ", ";
      return `${items.length} ${label}: ${items.slice(0, -1).join(sep)}${sep === "; " ? "; and " : " and "}${items.at(-1)}`;
    }
  }
  if (isRecord(value)) {
    const words = recordWords(value, false);
    if (words !== undefined && words !== "") return `${label} with ${words}`;
  }
  return `${label} ${JSON.stringify(value)}`;
}

/** "entity names" → "entity name": a one-item list reads in the singular */
export function singularLabel(label: string): string {
  const words = label.split(" ");
  const last = words.pop() ?? "";
  return [...words, singular(last)].join(" ");
}

/** Every argument of a call in words, or "no inputs". */
export function describeArgs(args: Record<string, unknown>): string {
  const parts = Object.entries(args).map(([k, v]) => argumentWords(k, v));
  return parts.length === 0 ? "no inputs" : parts.join(", ");
}
