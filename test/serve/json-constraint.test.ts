/**
 * The schema automaton and constrained token choice, without HTTP: valid documents pass and
 * invalid prefixes are refused; and with the default model's real vocabulary and RANDOM logits
 * (a seeded stand-in for an untrained model) every output parses and validates with ajv, within
 * max_tokens, for several schemas and seeds: the closing mode must finish every document.
 */
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { loadDefaultTokenizer } from "../../src/policy/default-model/index.js";
import { Rng } from "../../src/policy/sampling.js";
import { JsonState } from "../../src/serve/json-automaton.js";
import { JsonConstraint, TokenTexts } from "../../src/serve/json-constraint.js";
import { numberCompletion, numberPrefixOk } from "../../src/serve/number-prefix.js";
import { ANY_OBJECT, compileSchema } from "../../src/serve/schema-node.js";
import { SCHEMAS } from "./schemas.js";

function accepts(schema: unknown, text: string): boolean {
  let s: JsonState | null = JsonState.start(compileSchema(schema));
  s = s.feed(text);
  return s !== null && s.canEnd;
}

describe("json automaton", () => {
  it("accepts valid documents and refuses invalid ones", () => {
    const ruler = SCHEMAS.ruler;
    expect(accepts(ruler, '{"scores": [{"trajectory_id": "a", "explanation": "x\\"y\\u00e9", "score": 0.75}]}')).toBe(true);
    expect(accepts(ruler, '{"scores":[]}')).toBe(true);
    expect(accepts(ruler, '{"scores":[{"trajectory_id":"a","explanation":"b","score":1.5}]}')).toBe(false);
    expect(accepts(ruler, '{"scores":[{"trajectory_id":"a","score":1}]}')).toBe(false); // explanation missing
    expect(accepts(ruler, '{"scores":[],"extra":1}')).toBe(false); // additionalProperties false
    expect(accepts(ruler, '{"scores":[],"scores":[]}')).toBe(false); // duplicate key
    expect(accepts({ type: "integer", minimum: 3, maximum: 12 }, "7")).toBe(true);
    expect(accepts({ type: "integer", minimum: 3, maximum: 12 }, "7.5")).toBe(false);
    expect(accepts({ type: "array", items: { type: "boolean" }, minItems: 2, maxItems: 2 }, "[true,false]")).toBe(true);
    expect(accepts({ type: "array", items: { type: "boolean" }, minItems: 2, maxItems: 2 }, "[true]")).toBe(false);
    expect(accepts({ type: "array", items: { type: "boolean" }, maxItems: 2 }, "[true,true,true]")).toBe(false);
    expect(accepts({ anyOf: [{ type: "string", enum: ["yes", "no"] }, { type: "null" }] }, '"no"')).toBe(true);
    expect(accepts({ anyOf: [{ type: "string", enum: ["yes", "no"] }, { type: "null" }] }, '"maybe"')).toBe(false);
    expect(accepts({ type: ["string", "null"] }, "null")).toBe(true);
    expect(accepts({ enum: [1, "a", true] }, "true")).toBe(true);
    // keys may be escaped, if the escape spells an allowed name
    expect(accepts(ruler, '{"\\u0073cores":[]}')).toBe(true);
    expect(JsonState.start(compileSchema(ruler)).feed('{"\\u0074')).toBeNull();
  });

  it("bounds whitespace: at most 8 in a gap between tokens, 8 in a row in a free property name, 64 in a string value", () => {
    const start = () => JsonState.start(ANY_OBJECT);
    const doc = '{"a":[1,true],"b":"x"}';
    const gaps = [0, 1, 4, 5, 6, 7, 8, 12, 13, 14, 17, 18, 21];
    const ws8 = " \n\t\r \n\t ";
    for (const at of gaps) {
      const head = doc.slice(0, at);
      expect(start().feed(head + ws8), `8 at ${at}`).not.toBeNull();
      expect(start().feed(head + ws8 + " "), `9 at ${at}`).toBeNull();
    }
    // every gap filled to the bound at once is still a whole document
    const spaced = gaps.reduceRight((t, at) => t.slice(0, at) + ws8 + t.slice(at), doc);
    expect(start().feed(spaced)?.canEnd).toBe(true);
    expect(start().feed(doc + " ")).toBeNull(); // nothing after the document
    // a free property name: no more blank space in a row than a gap (escapes count as what they write)
    expect(start().feed(`{"${" ".repeat(8)}k${" ".repeat(8)}`)).not.toBeNull();
    expect(start().feed(`{"${" ".repeat(9)}`)).toBeNull();
    expect(start().feed(`{"k${"\\n".repeat(8)}`)).not.toBeNull();
    expect(start().feed(`{"k${"\\n".repeat(4)}${"\\u0020".repeat(5)}`)).toBeNull();
    // a string value: indented code is content, a page of blank space is not
    expect(start().feed(`{"k":"${" ".repeat(64)}x\\n${" ".repeat(63)}`)).not.toBeNull();
    expect(start().feed(`{"k":"${" ".repeat(65)}`)).toBeNull();
    // the schema's own spellings are exempt
    expect(accepts({ enum: [`a${" ".repeat(70)}b`] }, JSON.stringify(`a${" ".repeat(70)}b`))).toBe(true);
    expect(accepts({ type: "object", properties: { [" ".repeat(12)]: { type: "integer" } }, required: [" ".repeat(12)], additionalProperties: false }, `{"${" ".repeat(12)}":1}`)).toBe(true);
    // the fast path for plain text agrees with the automaton
    const inValue = start().feed(`{"k":"${" ".repeat(60)}`)!;
    expect(inValue.freeStringAccepts("    ")).toBe(true);
    expect(inValue.freeStringAccepts("     ")).toBe(false);
    expect(inValue.freeStringAccepts(`ab${" ".repeat(65)}`)).toBe(false);
    expect(start().feed('{"k":"x')!.freeStringAccepts(`a${" ".repeat(64)}b`)).toBe(true);
    // a pending escape at the bound is completed with a character that is no whitespace
    for (const text of [`{"k${"\\n".repeat(8)}\\`, `{"k${" ".repeat(8)}\\u002`, `{"k":"${" ".repeat(64)}\\`]) {
      const s = start().feed(text)!;
      const rest = s.completion()!;
      expect(s.feed(rest)?.canEnd, text + rest).toBe(true);
      expect(() => JSON.parse(text + rest) as unknown).not.toThrow();
    }
  });

  it("never lets a bounded number into a dead end", () => {
    const unit = { kind: "number" as const, integer: false, min: { value: 0, exclusive: false }, max: { value: 1, exclusive: false } };
    expect(numberPrefixOk("0.", unit)).toBe(true);
    expect(numberPrefixOk("1", unit)).toBe(true);
    expect(numberPrefixOk("1.0", unit)).toBe(true);
    expect(numberPrefixOk("1.5", unit)).toBe(false);
    expect(numberPrefixOk("7", unit)).toBe(false);
    expect(numberPrefixOk("-", unit)).toBe(true); // -0 is 0
    expect(numberPrefixOk("-1", unit)).toBe(false);
    const big = { kind: "number" as const, integer: true, min: { value: 1000, exclusive: true }, max: null };
    expect(numberCompletion("", big)).toBe("1001");
    expect(numberPrefixOk("1000", big)).toBe(true); // 10000 still reachable
    // at the 24-character limit only a complete number may stand ("…e" could never be finished)
    const any = { kind: "number" as const, integer: false, min: null, max: null };
    expect(numberPrefixOk(`${"4".repeat(22)}e`, any)).toBe(true);
    expect(numberPrefixOk(`${"4".repeat(23)}e`, any)).toBe(false);
    expect(numberPrefixOk(`${"4".repeat(23)}.`, any)).toBe(false);
    expect(numberPrefixOk("4".repeat(24), any)).toBe(true);
    // at the limit a number must also be in range: "0.000…0" (24 characters) is 0, not above 0
    const positive = { kind: "number" as const, integer: false, min: { value: 0, exclusive: true }, max: { value: 0.001, exclusive: false } };
    expect(numberPrefixOk(`0.${"0".repeat(22)}`, positive)).toBe(false);
    expect(numberPrefixOk(`0.${"0".repeat(21)}1`, positive)).toBe(true);
    // past a double's precision a fraction cannot go on: "0.5" and 16 zeros parses to 0.5
    const aboveHalf = { kind: "number" as const, integer: false, min: { value: 0.5, exclusive: true }, max: { value: 0.5001, exclusive: false } };
    expect(numberPrefixOk(`0.5${"0".repeat(15)}`, aboveHalf)).toBe(true);
    expect(numberPrefixOk(`0.5${"0".repeat(16)}`, aboveHalf)).toBe(false);
    expect(numberPrefixOk(`0.5${"0".repeat(14)}1`, aboveHalf)).toBe(true);
  });

  it("refuses at compile time what cannot be written: bounds beyond 24 characters, enum members not of their type", () => {
    expect(() => compileSchema({ type: "integer", minimum: 1e25 }, "schema")).toThrow(/^schema: no integer of at most 24 characters satisfies the bounds/);
    expect(() => compileSchema({ type: "number", minimum: 1e-30, maximum: 2e-30 }, "schema")).toThrow(/^schema: no number of at most 24 characters/);
    expect(() => compileSchema({ type: "object", properties: { x: { type: "number", minimum: 1e25 } } }, "schema")).toThrow(/^schema\.properties\.x: no number/);
    expect(() => compileSchema({ type: "integer", enum: ["a"] }, "schema")).toThrow('schema.enum: "a" is not of the type "integer" beside it');
    expect(compileSchema({ type: "number", enum: [1, 2.5] })).toEqual({ kind: "literal", texts: ["1", "2.5"] });
    // a non-ASCII literal may be written raw or escaped
    expect(accepts({ const: { city: "Zürich" } }, '{"city":"Z\\u00fcrich"}')).toBe(true);
    expect(accepts({ const: { city: "Zürich" } }, '{"city":"Zürich"}')).toBe(true);
  });

  it("names the shortest completion", () => {
    const s = JsonState.start(compileSchema(SCHEMAS.ruler)).feed('{"scores":[{"score":0.5')!;
    expect(s.completion()).toBe(',"trajectory_id":"","explanation":""}]}');
    expect(() => JSON.parse('{"scores":[{"score":0.5' + s.completion())).not.toThrow();
  });

  it("refuses unsupported keywords with the path", () => {
    expect(() => compileSchema({ type: "object", properties: { a: { type: "string", format: "email" } } }, "schema")).toThrow(/schema\.properties\.a\.format: keyword "format" is not supported/);
    expect(() => compileSchema({ $ref: "#/$defs/x" })).toThrow("schema.$ref: #/$defs/x points at nothing in the schema");
  });

  it("inlines local $refs, refuses recursive and remote ones, and in loose mode skips what it cannot enforce", () => {
    const viaRef = compileSchema({ $defs: { P: { type: "integer", minimum: 1 } }, type: "object", properties: { a: { $ref: "#/$defs/P" }, b: { type: "array", items: { $ref: "#/definitions/Q" } } }, definitions: { Q: { enum: ["x", "y"] } } });
    const inline = compileSchema({ type: "object", properties: { a: { type: "integer", minimum: 1 }, b: { type: "array", items: { enum: ["x", "y"] } } } });
    expect(viaRef).toEqual(inline);
    const tree = { $defs: { Node: { type: "object", properties: { next: { $ref: "#/$defs/Node" } } } }, $ref: "#/$defs/Node" };
    expect(() => compileSchema(tree)).toThrow("#/$defs/Node refers to itself: recursive schemas are not supported");
    expect(() => compileSchema({ $ref: "https://example.com/s.json" })).toThrow(/only local references/);
    const strictOnes = { type: "object", properties: { id: { type: "string", pattern: "^a", maxLength: 3 }, k: { oneOf: [{ type: "integer" }, { type: "null" }] } }, minProperties: 1 };
    expect(() => compileSchema(strictOnes)).toThrow(/keyword "(pattern|minProperties)" is not supported/);
    expect(compileSchema(strictOnes, "schema", { loose: true })).toEqual(
      compileSchema({ type: "object", properties: { id: { type: "string", maxLength: 3 }, k: { anyOf: [{ type: "integer" }, { type: "null" }] } } }),
    );
  });
});

describe("a document the vocabulary cannot finish", () => {
  it("answers plain text inside a string at once for every alternative alive, sure only when it fits all or none", () => {
    const alt = (maxLength: number, key: string) => ({ type: "object", properties: { g: { type: "string", maxLength }, [key]: { type: "integer" } }, required: ["g", key] });
    const at = (schema: unknown, text: string) => JsonState.start(compileSchema(schema)).feed(text)!;
    const inValue = at({ anyOf: [alt(10, "a"), alt(10, "b")] }, '{"g": "');
    expect(inValue.freeStringAccepts("abc")).toBe(true);
    expect(inValue.freeStringAccepts("abcdefghijkl")).toBe(false); // too long for both
    expect(inValue.freeStringAccepts('ab"')).toBeNull(); // a quote: the slow path decides
    const uneven = at({ anyOf: [alt(10, "a"), alt(2, "b")] }, '{"g": "');
    expect(uneven.freeStringAccepts("abc")).toBeNull(); // fits one alternative only: the completion may change
    expect(uneven.feed("abc")).not.toBeNull();
    // open objects: a key no owed or used name starts with is free text in every alternative
    const inKey = at({ anyOf: [alt(10, "a"), alt(10, "b")] }, '{"x');
    expect(inKey.freeStringAccepts("yz")).toBe(true);
    expect(at({ anyOf: [alt(10, "a"), alt(10, "b")] }, '{"').freeStringAccepts("yz")).toBeNull(); // "" starts every owed name
  });

  it("past saving near max_tokens (the shortest completion longer than what is left), writes that completion at once", () => {
    const texts = new TokenTexts(["{", "}", '"a"', ":", "0", ",", '"b"', '"c"', " ", null]);
    const node = compileSchema({ type: "object", properties: { a: { type: "integer" }, b: { type: "integer" }, c: { type: "integer" } }, required: ["a", "b", "c"], additionalProperties: false });
    const c = new JsonConstraint(node, texts, [9]);
    expect(c.feedText('{"a":0')).toBe(true);
    const logits = Float32Array.from([0, 0, 0, 0, 0, 0, 0, 0, 9, 0]); // the model wants a space
    // ',"b":0,"c":0}' needs 9 tokens; with 4 left the document cannot close, so no space is spent
    expect(c.pick(logits, { temperature: 1, topK: 0, topP: 1 }, new Rng(1), 4)).toBe(5);
  });

  it("near max_tokens, greedy takes the best token that still lets the document close, and sampling only such tokens", () => {
    const texts = new TokenTexts(["{", "}", '"a"', ":", "1", " ", "11111111", "0", null]);
    const node = compileSchema({ type: "object", properties: { a: { type: "integer" } }, required: ["a"], additionalProperties: false });
    const opened = () => {
      const c = new JsonConstraint(node, texts, [8]);
      expect(c.feedText('{"a":')).toBe(true);
      return c;
    };
    // a space is the favourite, the long number next: with 3 tokens left ("0", "}", EOS) a space
    // would leave no room to close, so greedy writes the number
    const logits = Float32Array.from([0, 0, 0, 0, 1, 3, 2, 0, 0]);
    expect(opened().pick(logits, { temperature: 0, topK: 0, topP: 1 }, new Rng(1), 3)).toBe(6);
    expect(opened().pick(logits, { temperature: 0, topK: 0, topP: 1 }, new Rng(1), 10)).toBe(5); // room enough: the space
    for (let seed = 0; seed < 20; seed++) expect([4, 6, 7]).toContain(opened().pick(logits, { temperature: 1, topK: 0, topP: 1 }, new Rng(seed), 3));
  });

  it("is an error naming where it stopped, never an unfinished document ended as if whole", () => {
    // a vocabulary that can open the string but has no "b" to go on with
    const texts = new TokenTexts(['"', "{", "}", "a", null]);
    const c = new JsonConstraint(compileSchema({ enum: ["b", 1] }), texts, [4]);
    const rng = new Rng(1);
    const logits = new Float32Array(5);
    const first = c.pick(logits, { temperature: 0, topK: 0, topP: 1 }, rng, 10);
    expect(texts.texts[first]).toBe('"');
    c.advance(first);
    expect(() => c.pick(logits, { temperature: 0, topK: 0, topP: 1 }, rng, 9)).toThrow(/^constrained decoding: no token of this model's vocabulary continues the JSON document here \("\\""\)/);
  });
});

describe("constrained decoding with random logits", async () => {
  const tok = await loadDefaultTokenizer();
  const V = tok.vocabSize;
  const texts = TokenTexts.build(V, (id) => tok.decode([id]), (id) => tok.isSpecial(id));
  const ajv = new Ajv({ strict: false });

  function run(schema: unknown, seed: number, maxTokens: number, temperature: number): { text: string; finished: boolean } {
    const node = schema === "json_object" ? ANY_OBJECT : compileSchema(schema);
    const c = new JsonConstraint(node, texts, tok.eosTokenIds);
    const noise = new Rng(seed, 99);
    const rng = new Rng(seed);
    const ids: number[] = [];
    for (let step = 0; step < maxTokens; step++) {
      const logits = Float32Array.from({ length: V }, () => (noise.next() - 0.5) * 8);
      const t = c.pick(logits, { temperature, topK: 0, topP: 1 }, rng, maxTokens - step);
      if (tok.eosTokenIds.includes(t)) return { text: tok.decode(ids), finished: true };
      c.advance(t);
      ids.push(t);
      if (c.done) return { text: tok.decode(ids), finished: true };
    }
    return { text: tok.decode(ids), finished: false };
  }

  for (const [name, schema] of Object.entries(SCHEMAS)) {
    it(`always yields a valid document: ${name}`, () => {
      const validate = ajv.compile(schema as object);
      for (let seed = 0; seed < 12; seed++) {
        const { text, finished } = run(schema, seed, 48 + seed * 4, seed % 3 === 0 ? 0 : 1);
        expect(finished, text).toBe(true);
        const doc = JSON.parse(text);
        expect(validate(doc), `${text}\n${JSON.stringify(validate.errors)}`).toBe(true);
      }
    });
  }

  it("json_object: any object", () => {
    for (let seed = 0; seed < 8; seed++) {
      const { text } = run("json_object", seed, 40, 1);
      const doc: unknown = JSON.parse(text);
      expect(typeof doc === "object" && doc !== null && !Array.isArray(doc)).toBe(true);
    }
  });
});

describe("constrained decoding of a model that wants only blank space", async () => {
  const tok = await loadDefaultTokenizer();
  const V = tok.vocabSize;
  const texts = TokenTexts.build(V, (id) => tok.decode([id]), (id) => tok.isSpecial(id));
  const blank = texts.texts.map((t) => t !== null && /^\s+$/.test(t));

  /** The longest run of whitespace between tokens, in property names, and in string values. */
  function runs(text: string): { gap: number; key: number; value: number } {
    const longest = (s: string) => Math.max(0, ...(s.match(/\s+/g) ?? []).map((m) => m.length));
    const out = { gap: 0, key: 0, value: 0 };
    const walk = (v: unknown) => {
      if (typeof v === "string") out.value = Math.max(out.value, longest(v));
      else if (Array.isArray(v)) v.forEach(walk);
      else if (v !== null && typeof v === "object")
        for (const [k, x] of Object.entries(v)) {
          out.key = Math.max(out.key, longest(k));
          walk(x);
        }
    };
    walk(JSON.parse(text));
    out.gap = longest(text.replace(/"(?:[^"\\]|\\.)*"/g, '""'));
    return out;
  }

  it("writes no more of it than the bounds allow, and still closes the document within max_tokens", () => {
    for (const [name, schema] of [["json_object", null], ["open", SCHEMAS.open], ["ruler", SCHEMAS.ruler]] as const) {
      for (const temperature of [0, 1]) {
        const c = new JsonConstraint(schema === null ? ANY_OBJECT : compileSchema(schema), texts, tok.eosTokenIds);
        const noise = new Rng(3, 99);
        const rng = new Rng(3);
        const max = 160;
        let text = "";
        for (let step = 0; step < max; step++) {
          // blank tokens far above everything else: left alone, the model writes nothing but them
          const logits = Float32Array.from({ length: V }, (_, id) => (blank[id] ? 20 : (noise.next() - 0.5) * 8)); // [V]
          const t = c.pick(logits, { temperature, topK: 0, topP: 1 }, rng, max - step);
          if (tok.eosTokenIds.includes(t)) break;
          c.advance(t);
          text += texts.texts[t];
          if (c.done) break;
        }
        const r = runs(text);
        expect(c.done, `${name} T=${temperature}: ${JSON.stringify(text)}`).toBe(true);
        expect(r.gap, `${name} T=${temperature}: ${JSON.stringify(text)}`).toBeLessThanOrEqual(8);
        expect(r.key, `${name} T=${temperature}: ${JSON.stringify(text)}`).toBeLessThanOrEqual(8);
        expect(r.value, `${name} T=${temperature}: ${JSON.stringify(text)}`).toBeLessThanOrEqual(64);
      }
    }
  });
});

describe("constrained decoding, large-vocabulary path", async () => {
  const tok = await loadDefaultTokenizer();
  // 12,000 ids: the real texts repeated, so the lazy by-logit path runs
  const B = tok.vocabSize;
  const base = TokenTexts.build(B, (id) => tok.decode([id]), (id) => tok.isSpecial(id)).texts;
  const V = 12_000;
  const texts = new TokenTexts(Array.from({ length: V }, (_, id) => (id < B || base[id % B] === null ? base[id] ?? null : base[id % B])));
  const validate = new Ajv({ strict: false }).compile(SCHEMAS.ruler);

  it("yields valid documents, greedy and sampled", () => {
    for (let seed = 0; seed < 6; seed++) {
      const c = new JsonConstraint(compileSchema(SCHEMAS.ruler), texts, tok.eosTokenIds);
      const noise = new Rng(seed, 7);
      const rng = new Rng(seed);
      let text = "";
      const max = 50;
      for (let step = 0; step < max; step++) {
        const logits = Float32Array.from({ length: V }, () => (noise.next() - 0.5) * 8);
        const t = c.pick(logits, { temperature: seed % 2 ? 1 : 0, topK: seed % 3 === 2 ? 40 : 0, topP: seed % 3 === 1 ? 0.9 : 1 }, rng, max - step);
        if (tok.eosTokenIds.includes(t)) break;
        c.advance(t);
        text += texts.texts[t];
        if (c.done) break;
      }
      expect(validate(JSON.parse(text)), text).toBe(true);
    }
  });
});
