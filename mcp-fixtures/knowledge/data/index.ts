/** The whole fact base, checked once at load time (unique ids, no empty fields). */
import { elementFacts } from "./elements.js";
import { geographyFacts } from "./geography.js";
import { scienceFacts } from "./science.js";
import type { Fact } from "./types.js";
import { unitFacts } from "./units.js";

export type { Fact } from "./types.js";

export function loadFacts(): Fact[] {
  const facts = [...scienceFacts(), ...unitFacts(), ...geographyFacts(), ...elementFacts()];
  const seen = new Set<string>();
  for (const f of facts) {
    if (seen.has(f.id)) throw new Error(`duplicate fact id ${f.id}`);
    seen.add(f.id);
    for (const key of ["id", "title", "text", "value"] as const) {
      if (f[key].trim() === "") throw new Error(`fact ${f.id} has an empty ${key}`);
    }
  }
  return facts;
}

export const FACT_CATEGORIES = ["constants", "astronomy", "units", "geography", "elements"] as const;
