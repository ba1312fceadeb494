/** Response schemas the serve tests enforce: the RULER judge reply, nested arrays, enums, anyOf, open objects. */
export const SCHEMAS = {
  ruler: {
    type: "object",
    properties: {
      scores: {
        type: "array",
        items: {
          type: "object",
          properties: {
            trajectory_id: { type: "string" },
            explanation: { type: "string" },
            score: { type: "number", minimum: 0, maximum: 1 },
          },
          required: ["trajectory_id", "explanation", "score"],
          additionalProperties: false,
        },
      },
    },
    required: ["scores"],
    additionalProperties: false,
  },
  nested: {
    type: "object",
    properties: {
      grid: { type: "array", items: { type: "array", items: { type: "integer", minimum: -5, maximum: 5 }, minItems: 1, maxItems: 3 }, minItems: 2, maxItems: 3 },
      tags: { type: "array", items: { type: "string", enum: ["alpha", "beta", "gamma"] } },
    },
    required: ["grid", "tags"],
    additionalProperties: false,
  },
  scenario: {
    type: "object",
    properties: {
      task: { type: "string", minLength: 3, maxLength: 40 },
      difficulty: { type: "string", enum: ["easy", "medium", "hard"] },
      answer: { anyOf: [{ type: "number" }, { type: "null" }, { type: "boolean" }] },
      meta: { type: "object", properties: { ok: { type: "boolean" }, n: { type: "integer", exclusiveMinimum: 0 } }, required: ["ok", "n"], additionalProperties: false },
    },
    required: ["task", "difficulty", "answer", "meta"],
    additionalProperties: false,
  },
  // additionalProperties left open (JSON Schema's default: any further key)
  open: {
    type: "object",
    properties: { a: { type: "number" }, b: { type: "integer", minimum: 1, maximum: 9 } },
    required: ["a", "b"],
  },
  // non-ASCII members of a mixed (nullable) enum and of an object const: a byte-level vocabulary
  // may hold no token with "ü" whole, so the \u escape must be open to it
  nonAscii: {
    type: "object",
    properties: {
      city: { type: ["string", "null"], enum: ["Zürich", "Genève", null] },
      home: { const: { city: "Zürich" } },
      mixed: { type: "array", items: { enum: ["é", 1, 2.5] }, maxItems: 3 },
    },
    required: ["city", "home", "mixed"],
    additionalProperties: false,
  },
  // bounds near a double's precision and the length limit
  tightNumbers: {
    type: "object",
    properties: {
      small: { type: "number", exclusiveMinimum: 0, maximum: 0.001 },
      negative: { type: "number", exclusiveMaximum: 0, minimum: -0.001 },
      half: { type: "array", items: { type: "number", exclusiveMinimum: 0.5, maximum: 0.5001 }, minItems: 1, maxItems: 2 },
      far: { type: "array", items: { type: "number", exclusiveMaximum: -999999999.5 }, maxItems: 2 },
    },
    required: ["small", "negative", "half", "far"],
    additionalProperties: false,
  },
} as const;
