import assert from "node:assert/strict";
import { countVowels } from "./count_vowels.js";

export default {
  "'hello' has 2 vowels": () => assert.equal(countVowels("hello"), 2),
  "'rhythm' has 0 vowels": () => assert.equal(countVowels("rhythm"), 0),
  "'sun' has 1 vowel": () => assert.equal(countVowels("sun"), 1),
  "'Education' has 5 vowels": () => assert.equal(countVowels("Education"), 5),
  "'AEIOU' has 5 vowels": () => assert.equal(countVowels("AEIOU"), 5),
};
