import assert from "node:assert/strict";
import { average } from "./average.js";

export default {
  "average([2, 4, 6]) is 4": () => assert.equal(average([2, 4, 6]), 4),
  "average([5]) is 5": () => assert.equal(average([5]), 5),
  "average([1, 2]) is 1.5": () => assert.equal(average([1, 2]), 1.5),
  "average([]) is 0": () => assert.equal(average([]), 0),
};
