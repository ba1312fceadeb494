import assert from "node:assert/strict";
import { factorial } from "./factorial.js";

export default {
  "factorial(5) is 120": () => assert.equal(factorial(5), 120),
  "factorial(1) is 1": () => assert.equal(factorial(1), 1),
  "factorial(0) is 1": () => assert.equal(factorial(0), 1),
  "factorial(10) is 3628800": () => assert.equal(factorial(10), 3628800),
};
