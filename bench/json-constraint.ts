/**
 * `npm run bench:json-constraint`: milliseconds per token of serve's constrained decoding
 * (JsonConstraint.pick + advance) with the default model's real vocabulary and seeded random
 * logits (an untrained model's stand-in), for an easy schema and heavy ones that QA found slow:
 * RULER's reply, an object of 300 required integers (past saving near max_tokens: the document
 * cannot close in 120 tokens), 30 anyOf object alternatives sharing a string property, 16-deep
 * nested anyOf arrays, session 18's QA fuzz schema. 120 tokens per run at temperature 1; the figure is the median of --runs
 * seeds (default 5). The last line is one JSON object: {schema: median ms/token}.
 */
import { loadDefaultTokenizer } from "../src/policy/default-model/index.js";
import { Rng } from "../src/policy/sampling.js";
import { JsonConstraint, TokenTexts } from "../src/serve/json-constraint.js";
import { compileSchema } from "../src/serve/schema-node.js";

const runsFlag = process.argv.indexOf("--runs");
const runs = runsFlag >= 0 ? Number(process.argv[runsFlag + 1]) : 5;
const MAX_TOKENS = 120;

const nested = (() => {
  let s: Record<string, unknown> = { type: "integer" };
  for (let i = 0; i < 16; i++) s = { anyOf: [{ type: "array", items: s, maxItems: 2 }, { type: "array", items: { anyOf: [s, { type: "string" }] }, maxItems: 2 }] };
  return s;
})();
const SCHEMAS: Record<string, unknown> = {
  ruler: {
    type: "object",
    properties: { scores: { type: "object", properties: { "1": { type: "object", properties: { explanation: { type: "string" }, score: { type: "number", minimum: 0, maximum: 1 } }, required: ["explanation", "score"], additionalProperties: false } }, required: ["1"], additionalProperties: false } },
    required: ["scores"],
    additionalProperties: false,
  },
  props300: {
    type: "object",
    properties: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`p${i}`, { type: "integer" }])),
    required: Array.from({ length: 300 }, (_, i) => `p${i}`),
    additionalProperties: false,
  },
  anyOf30: { anyOf: Array.from({ length: 30 }, (_, i) => ({ type: "object", properties: { [`f${i}`]: { type: "integer" }, g: { type: "string" } }, required: [`f${i}`] })) },
  nestedAnyOf16: nested,
  // session 18's QA fuzz schema: a number no 24-character text can go below, in arrays
  qaFuzz: {
    anyOf: [
      { type: "string", maxLength: 5 },
      {
        type: "array",
        items: {
          type: "object",
          properties: {
            k0: { type: "array", items: { type: "number", maximum: -999999999.999 }, minItems: 2 },
            k1: { const: { a: [1, 2] } },
            k2: { type: "object", properties: { k0: { type: "string" } }, required: ["k0"], additionalProperties: false },
            k3: { type: "number", exclusiveMinimum: 1 },
          },
          required: ["k0", "k2"],
        },
        minItems: 2,
      },
    ],
  },
};

const tok = await loadDefaultTokenizer();
const V = tok.vocabSize;
const texts = TokenTexts.build(V, (id) => tok.decode([id]), (id) => tok.isSpecial(id));
const result: Record<string, number> = {};
for (const [name, schema] of Object.entries(SCHEMAS)) {
  const node = compileSchema(schema);
  const perToken: number[] = [];
  for (let seed = 0; seed < runs; seed++) {
    const c = new JsonConstraint(node, texts, tok.eosTokenIds);
    const noise = new Rng(seed, 99);
    const rng = new Rng(seed);
    let n = 0;
    let ms = 0;
    for (let step = 0; step < MAX_TOKENS; step++) {
      const logits = Float32Array.from({ length: V }, () => (noise.next() - 0.5) * 8);
      const t0 = performance.now();
      const t = c.pick(logits, { temperature: 1, topK: 0, topP: 1 }, rng, MAX_TOKENS - step);
      const eos = tok.eosTokenIds.includes(t);
      if (!eos) c.advance(t);
      ms += performance.now() - t0;
      n++;
      if (eos || c.done) break;
    }
    perToken.push(ms / n);
  }
  perToken.sort((a, b) => a - b);
  result[name] = Number(perToken[Math.floor(perToken.length / 2)].toFixed(2));
  console.log(`${name.padEnd(14)} ${result[name].toFixed(2)} ms/token (median of ${runs}; ${perToken.map((x) => x.toFixed(1)).join(", ")})`);
}
console.log(JSON.stringify(result));
