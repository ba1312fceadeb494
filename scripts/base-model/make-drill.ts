/**
 * A copying drill for the built-in model's base weights: short chat turns whose answer copies
 * numbers and words from the context (into a JSON object, or the value of a named field out of a
 * tool-response-like block). A model trained from scratch learns the format of tool calls fast
 * but copying late; dense copy targets bring that forward. Seeded; JSONL of {ids, mask}.
 *
 * Level "simple": only 1-3 short numbers into {"values": [...]}, the first stage of a curriculum.
 *
 *   npx tsx scripts/base-model/make-drill.ts OUT.jsonl [N] [SEED] [simple|full]
 */
import { createWriteStream } from "node:fs";
import { loadDefaultTokenizer } from "../../src/policy/default-model/index.js";
import { mulberry32 } from "../../src/policy/weights.js";

const [out = "", nArg = "40000", seedArg = "7", level = "full"] = process.argv.slice(2);
if (!out) {
  process.stderr.write("usage: make-drill.ts OUT.jsonl [N] [SEED]\n");
  process.exit(2);
}
const rand = mulberry32(Number(seedArg));
const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
const pick = <T>(xs: readonly T[]): T => xs[int(0, xs.length - 1)];
const WORDS = ["alpha", "mercury", "Paris", "helium", "orbit", "copper", "Nile", "Tokyo", "meter", "planet", "Berlin", "carbon", "gold", "Mars", "ocean", "river", "Lima", "neon", "Kenya", "joule"];
function num(): string {
  const r = rand();
  if (r < 0.45) return String(int(0, 999));
  if (r < 0.7) return String(int(1000, 99999));
  if (r < 0.9) return `${int(0, 999)}.${int(0, 99)}`;
  return `-${int(1, 500)}`;
}
const tok = await loadDefaultTokenizer();
const enc = (s: string) => tok.encode(s);
const END = "<|im_end|>";

function simple(): { prompt: string; answer: string } {
  const short = () => {
    let s = String(int(1, 9));
    for (let i = int(1, 4); i > 1; i--) s += int(0, 9);
    return rand() < 0.2 ? `${s}.${int(0, 9)}` : s;
  };
  const ns = Array.from({ length: int(1, 3) }, short);
  const lead = pick(["Compute", "What is", "Find", "Use", "Tell me", "Given", "Check"]);
  return { prompt: `${lead} ${ns.join(rand() < 0.5 ? ", " : " and ")}.`, answer: `{"values": [${ns.join(", ")}]}` };
}

function example(): { prompt: string; answer: string } {
  if (level === "simple") return simple();
  const kind = rand();
  if (kind < 0.35) {
    // numbers (and an expression) from a request into JSON arguments
    const ns = Array.from({ length: int(1, 4) }, num);
    const ops = ["+", "-", "*", "/"];
    const expr = ns.length === 1 ? ns[0] : ns.reduce((a, b) => `${a} ${pick(ops)} ${b}`);
    const lead = pick(["Compute", "What is", "Calculate", "Work out", "Evaluate", "Find"]);
    if (rand() < 0.5) return { prompt: `${lead} ${expr}.`, answer: JSON.stringify({ expression: expr }) };
    return { prompt: `${lead} the numbers ${ns.join(", ")}.`, answer: JSON.stringify({ values: ns.map(Number) }) };
  }
  if (kind < 0.55) {
    // words and numbers into named fields
    const w = pick(WORDS);
    const a = num();
    const b = num();
    return { prompt: `Use ${w} with a = ${a} and b = ${b}.`, answer: JSON.stringify({ query: w, a: Number(a), b: Number(b) }) };
  }
  // the value of one field of a result block
  const keys = ["count", "sum", "mean", "value", "amount", "total", "result", "min", "max", "price", "stock", "id"];
  const fields = [...keys].sort(() => rand() - 0.5).slice(0, int(2, 6));
  const vals = fields.map(() => (rand() < 0.8 ? num() : pick(WORDS)));
  const asked = int(0, fields.length - 1);
  const body = rand() < 0.5 ? fields.map((k, i) => `${k}: ${vals[i]}`).join("\n") : JSON.stringify(Object.fromEntries(fields.map((k, i) => [k, vals[i]])), null, 2);
  return { prompt: `<tool_response>\n${body}\n</tool_response>\nWhat is the ${fields[asked]}?`, answer: vals[asked] };
}

const sink = createWriteStream(out);
for (let i = 0; i < Number(nArg); i++) {
  const { prompt, answer } = example();
  const p = enc(`<|im_start|>user\n${prompt}${END}\n<|im_start|>assistant\n`);
  const a = enc(answer + END);
  sink.write(JSON.stringify({ fixture: "drill", ids: [...p, ...a], mask: [...p.map(() => 0), ...a.map(() => 1)] }) + "\n");
}
await new Promise<void>((r) => sink.end(r));
process.stderr.write(`${nArg} drill sequences -> ${out}\n`);
