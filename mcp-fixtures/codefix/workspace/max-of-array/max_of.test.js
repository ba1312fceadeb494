import assert from "node:assert/strict";
import { maxOf } from "./max_of.js";

export default {
  "maxOf([1, 5, 3]) is 5": () => assert.equal(maxOf([1, 5, 3]), 5),
  "maxOf([7]) is 7": () => assert.equal(maxOf([7]), 7),
  "maxOf([-4, -2, -9]) is -2": () => assert.equal(maxOf([-4, -2, -9]), -2),
  "maxOf([]) is undefined": () => assert.equal(maxOf([]), undefined),
  "maxOf([-1.5]) is -1.5": () => assert.equal(maxOf([-1.5]), -1.5),
};
