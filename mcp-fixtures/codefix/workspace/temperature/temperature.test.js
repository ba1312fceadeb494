import assert from "node:assert/strict";
import { toFahrenheit } from "./temperature.js";

export default {
  "0 C is 32 F": () => assert.equal(toFahrenheit(0), 32),
  "100 C is 212 F": () => assert.equal(toFahrenheit(100), 212),
  "-40 C is -40 F": () => assert.equal(toFahrenheit(-40), -40),
  "37 C is 98.6 F (to one decimal)": () => assert.equal(Math.round(toFahrenheit(37) * 10) / 10, 98.6),
};
