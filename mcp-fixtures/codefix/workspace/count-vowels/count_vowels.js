// Number of vowels (a, e, i, o, u; any case) in text.
const VOWELS = "aeio";

export function countVowels(text) {
  let count = 0;
  for (const ch of text) {
    if (VOWELS.includes(ch)) count++;
  }
  return count;
}
