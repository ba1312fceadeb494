import assert from "node:assert/strict";
import { isLeapYear } from "./leap_year.js";

export default {
  "2024 is a leap year": () => assert.equal(isLeapYear(2024), true),
  "2023 is not a leap year": () => assert.equal(isLeapYear(2023), false),
  "1900 is not a leap year": () => assert.equal(isLeapYear(1900), false),
  "2000 is a leap year": () => assert.equal(isLeapYear(2000), true),
  "2400 is a leap year": () => assert.equal(isLeapYear(2400), true),
};
