import assert from "node:assert/strict";
import { sumRange } from "./sum_range.js";

export default {
  "sumRange(1, 5) is 15": () => assert.equal(sumRange(1, 5), 15),
  "sumRange(3, 3) is 3": () => assert.equal(sumRange(3, 3), 3),
  "sumRange(-2, 2) is 0": () => assert.equal(sumRange(-2, 2), 0),
  "sumRange(5, 1) is 0 (empty range)": () => assert.equal(sumRange(5, 1), 0),
  "sumRange(1, 100) is 5050": () => assert.equal(sumRange(1, 100), 5050),
};
