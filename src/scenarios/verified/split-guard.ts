/**
 * Keeps the verified generator's held-out scenarios from asking what a training scenario asks.
 *
 * A test scenario is either a held-out *phrasing* ("heldout:template") or held-out *values*:
 * - held-out values may not expect what any training scenario expects (the same product, the
 *   same capital), and a training scenario may not expect what one of them expects;
 * - a held-out phrasing may share its answer with a training task only when it asks about other
 *   things. It asks the same thing when it expects the same and one task's call arguments (tool
 *   names aside) are all among the other's: "What is the capital of Ukraine?" (search "capital
 *   Ukraine") and "Search for the capital of Ukraine, open the fact, give the city" (the same
 *   search, then get_fact); `read_file {path: b.json}` and `read_text_file {path: b.json}`.
 *   Those re-ask a fact training teaches, so held-out success would count memory. Two different
 *   sums that happen to be equal share only their answer, and stay.
 */
import type { ReferenceCall } from "../schema.js";
import { sortKeys } from "../sort-keys.js";
import type { Split } from "./recipe.js";

export interface SplitCandidate {
  split: Split;
  /** a held-out phrasing (test split only) */
  heldOutTemplate: boolean;
  /** the expected outcome, as a stable key */
  expected: string;
  calls: readonly ReferenceCall[];
}

type ArgsList = readonly string[];

const argsOf = (calls: readonly ReferenceCall[]): ArgsList => calls.map((c) => JSON.stringify(sortKeys(c.arguments)));
const within = (a: ArgsList, b: ArgsList): boolean => a.every((x) => b.includes(x));
const sameQuestion = (a: ArgsList, b: ArgsList): boolean => within(a, b) || within(b, a);

export class SplitGuard {
  private readonly train = new Map<string, ArgsList[]>();
  private readonly heldOutValues = new Set<string>();
  private readonly heldOutPhrasings = new Map<string, ArgsList[]>();

  /** true when `c` would put the same question on both sides of the split */
  clashes(c: SplitCandidate): boolean {
    const args = argsOf(c.calls);
    if (c.split === "train")
      return this.heldOutValues.has(c.expected) || (this.heldOutPhrasings.get(c.expected) ?? []).some((a) => sameQuestion(a, args));
    const trained = this.train.get(c.expected) ?? [];
    return c.heldOutTemplate ? trained.some((a) => sameQuestion(a, args)) : trained.length > 0;
  }

  add(c: SplitCandidate): void {
    if (c.split === "train") push(this.train, c.expected, argsOf(c.calls));
    else if (c.heldOutTemplate) push(this.heldOutPhrasings, c.expected, argsOf(c.calls));
    else this.heldOutValues.add(c.expected);
  }
}

function push(map: Map<string, ArgsList[]>, key: string, args: ArgsList): void {
  const list = map.get(key);
  if (list) list.push(args);
  else map.set(key, [args]);
}
