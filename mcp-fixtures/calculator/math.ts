/**
 * A sandboxed mathjs instance and the number formatting the calculator uses.
 *
 * Follows the mathjs security guide (https://mathjs.org/docs/expressions/security.html): keep a
 * reference to `evaluate`, then override the functions that let an expression reach the parser or
 * grow the instance (`import`, `createUnit`, `evaluate`, `parse`, `simplify`, `derivative`,
 * `resolve`, `reviver`, ...). We also disable the matrix constructors (an expression like
 * `ones(1e5, 1e5)` is a memory bomb) and the random functions (results must be reproducible).
 * Nothing here uses JavaScript `eval`.
 */
import { all, create, type MathJsInstance } from "mathjs";
import { clean, MAX_EXPRESSION_LENGTH } from "./format.js";

const math: MathJsInstance = create(all);
const limitedEvaluate = math.evaluate.bind(math);

const disabled = [
  "import", "createUnit", "reviver", "evaluate", "parse", "compile", "simplify", "derivative",
  "resolve", "rationalize", "ones", "zeros", "identity", "range", "matrix", "sparse", "resize",
  "diag", "random", "randomInt", "pickRandom", "map", "forEach", "filter", "apply",
] as const;
math.import(
  Object.fromEntries(
    disabled.map((name) => [
      name,
      () => {
        throw new Error(`function ${name} is not available in this calculator`);
      },
    ]),
  ),
  { override: true },
);


/**
 * Rewrites the everyday notations mathjs does not know: "15% of 80" -> "(15/100)*(80)", the
 * multiplication and division signs × · ÷, and the word "x" between numbers ("3 x 4").
 */
export function normalizeExpression(expression: string): string {
  return expression
    .replace(/[×·]/g, "*")
    .replace(/÷/g, "/")
    .replace(/(\d)\s+x\s+(?=\d)/g, "$1 * ")
    .replace(/(\d+(?:\.\d+)?)\s*%\s*of\s+/gi, "($1/100)*");
}

export type EvalOutcome = { ok: true; value: number } | { ok: false; error: string };

/** Evaluates one arithmetic expression to a single finite number, or explains why not. */
export function evaluateExpression(expression: string): EvalOutcome {
  const trimmed = expression.trim();
  if (trimmed.length === 0) return { ok: false, error: "the expression is empty" };
  if (trimmed.length > MAX_EXPRESSION_LENGTH) {
    return { ok: false, error: `the expression is ${trimmed.length} characters long; the limit is ${MAX_EXPRESSION_LENGTH}` };
  }
  let raw: unknown;
  try {
    raw = limitedEvaluate(normalizeExpression(trimmed), {});
  } catch (err) {
    return { ok: false, error: `could not evaluate ${JSON.stringify(trimmed)}: ${(err as Error).message}` };
  }
  let value: number | undefined;
  if (typeof raw === "number") value = raw;
  else if (typeof raw === "boolean") value = raw ? 1 : 0;
  else if (math.isBigNumber(raw) || math.isFraction(raw)) value = math.number(raw as never) as number;
  if (value === undefined) {
    const kind = math.typeOf(raw);
    return { ok: false, error: `the expression must evaluate to a single number, but it gave a ${kind}` };
  }
  if (Number.isNaN(value)) return { ok: false, error: `the result of ${JSON.stringify(trimmed)} is not a number (NaN)` };
  if (!Number.isFinite(value)) {
    return { ok: false, error: `the result of ${JSON.stringify(trimmed)} is infinite (division by zero or overflow)` };
  }
  return { ok: true, value: clean(value) };
}
