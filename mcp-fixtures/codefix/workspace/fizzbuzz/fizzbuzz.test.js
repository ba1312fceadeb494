import assert from "node:assert/strict";
import { fizzBuzz } from "./fizzbuzz.js";

export default {
  "fizzBuzz(3) is Fizz": () => assert.equal(fizzBuzz(3), "Fizz"),
  "fizzBuzz(10) is Buzz": () => assert.equal(fizzBuzz(10), "Buzz"),
  "fizzBuzz(15) is FizzBuzz": () => assert.equal(fizzBuzz(15), "FizzBuzz"),
  "fizzBuzz(45) is FizzBuzz": () => assert.equal(fizzBuzz(45), "FizzBuzz"),
  "fizzBuzz(7) is '7'": () => assert.equal(fizzBuzz(7), "7"),
};
