/**
 * Compiled schemas are kept by their text: a response_format or tool list a client sends with
 * every request compiles once (a schema with tight number bounds takes tens of milliseconds to
 * compile, on the event loop), whichever request brings it; strictness is part of the key, and a
 * schema that fails to compile is not kept.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareChat } from "../../src/serve/chat-completions.js";
import { ModelRegistry } from "../../src/serve/models.js";
import { Scheduler } from "../../src/serve/queue.js";
import { ChatCompletionRequestSchema } from "../../src/serve/request-schema.js";
import { compileSchemaCached } from "../../src/serve/schema-cache.js";
import { SchemaError } from "../../src/serve/schema-node.js";
import { SCHEMAS } from "./schemas.js";

let registry: ModelRegistry;
beforeAll(async () => {
  registry = await ModelRegistry.load({ model: "default", engine: "tfjs" });
});
afterAll(async () => {
  await registry?.close();
});

describe("compiled schema cache", () => {
  it("gives the same node for the same schema text and strictness; a failing schema throws each time", () => {
    const a = compileSchemaCached(structuredClone(SCHEMAS.tightNumbers), "x");
    expect(compileSchemaCached(structuredClone(SCHEMAS.tightNumbers), "y")).toBe(a);
    expect(compileSchemaCached(structuredClone(SCHEMAS.tightNumbers), "x", { loose: true })).not.toBe(a);
    // strict refuses what loose lets through: the two are never confused
    const pattern = { type: "string", pattern: "^a" };
    expect(compileSchemaCached(pattern, "p", { loose: true })).toMatchObject({ kind: "string" });
    expect(() => compileSchemaCached(pattern, "p")).toThrow(SchemaError);
    expect(() => compileSchemaCached(pattern, "q")).toThrow("q.pattern");
  });

  it("serves a repeated response_format and tool list from the cache, request after request", () => {
    const ctx = { registry, scheduler: new Scheduler(1, false) };
    const request = () =>
      ChatCompletionRequestSchema.parse({
        model: "default",
        messages: [{ role: "user", content: "numbers" }],
        response_format: { type: "json_schema", json_schema: { name: "tight", strict: true, schema: structuredClone(SCHEMAS.tightNumbers) } },
      });
    expect(prepareChat(ctx, request()).schema).toBe(prepareChat(ctx, request()).schema);
    const tools = () =>
      ChatCompletionRequestSchema.parse({
        model: "default",
        messages: [{ role: "user", content: "numbers" }],
        tools: [{ type: "function", function: { name: "f", parameters: structuredClone(SCHEMAS.tightNumbers) } }],
        tool_choice: "required",
      });
    const [first, second] = [prepareChat(ctx, tools()).schema, prepareChat(ctx, tools()).schema];
    // the call object is built per request; the arguments' node inside it is the compiled one
    const args = (n: typeof first) => (n?.kind === "object" ? n.props.get("arguments") : undefined);
    expect(args(first)).toBeDefined();
    expect(args(second)).toBe(args(first));
  });
});
