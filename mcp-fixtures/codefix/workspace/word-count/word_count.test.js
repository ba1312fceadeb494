import assert from "node:assert/strict";
import { countWords } from "./word_count.js";

export default {
  "'one two three' has 3 words": () => assert.equal(countWords("one two three"), 3),
  "'hello' has 1 word": () => assert.equal(countWords("hello"), 1),
  "'  padded   text  ' has 2 words": () => assert.equal(countWords("  padded   text  "), 2),
  "the empty string has 0 words": () => assert.equal(countWords(""), 0),
  "tabs and newlines separate words": () => assert.equal(countWords("a\tb\nc"), 3),
};
