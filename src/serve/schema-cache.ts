/**
 * Compiled schemas by their JSON text, so a schema that comes with every request (a client's
 * response_format, an agent's tool list) compiles once. Compiling is mostly well under a
 * millisecond, but number bounds that leave few short numbers (exclusiveMinimum 0 with maximum
 * 0.001, as in test/serve/schemas.ts `tightNumbers`) cost a search for the shortest one: about
 * 75 ms on the CPU for that schema, on the event loop, where every other request waits for it.
 * A node tree is never changed once built, so requests share it (and the automaton's caches
 * keyed by node carry over). Least recently used entries go first, past CACHE_SIZE; a schema
 * that fails to compile is not kept (it throws again, with its request's path).
 */
import { compileSchema, type CompileOptions, type SchemaNode } from "./schema-node.js";

/** How many compiled schemas are kept (default 128: a few per client, many clients). */
const CACHE_SIZE = 128;
const cache = new Map<string, SchemaNode>();

/** compileSchema, served from the cache when the same schema (same text, same strictness) came before. */
export function compileSchemaCached(schema: unknown, path: string, o: CompileOptions = {}): SchemaNode {
  const key = `${o.loose ? "loose" : "strict"}:${JSON.stringify(schema)}`;
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key); // most recently used last
    cache.set(key, hit);
    return hit;
  }
  const node = compileSchema(schema, path, o);
  cache.set(key, node);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return node;
}
