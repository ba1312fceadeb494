import assert from "node:assert/strict";
import { binarySearch } from "./binary_search.js";

export default {
  "finds 3 at index 1 in [1, 3, 5, 7, 9]": () => assert.equal(binarySearch([1, 3, 5, 7, 9], 3), 1),
  "finds 9 at index 4 (last element)": () => assert.equal(binarySearch([1, 3, 5, 7, 9], 9), 4),
  "finds 1 at index 0 (first element)": () => assert.equal(binarySearch([1, 3, 5, 7, 9], 1), 0),
  "finds the only element of [4]": () => assert.equal(binarySearch([4], 4), 0),
  "returns -1 for 6": () => assert.equal(binarySearch([1, 3, 5, 7, 9], 6), -1),
  "returns -1 in an empty array": () => assert.equal(binarySearch([], 2), -1),
};
