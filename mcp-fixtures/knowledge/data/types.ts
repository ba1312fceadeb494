/** The shape of one fact in the knowledge base. */
export interface Fact {
  /** Stable slug, e.g. "speed-of-light", "capital-france". */
  id: string;
  title: string;
  /** One or two sentences stating the fact. */
  text: string;
  /** The short canonical answer, e.g. "299792458 m/s", "Paris". */
  value: string;
  category: "constants" | "astronomy" | "units" | "geography" | "elements";
  /** Extra search words (synonyms, symbols). */
  tags: string;
}
