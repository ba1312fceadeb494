import assert from "node:assert/strict";
import { capitalizeWords } from "./capitalize.js";

export default {
  "'hello world' becomes 'Hello World'": () => assert.equal(capitalizeWords("hello world"), "Hello World"),
  "'a b c' becomes 'A B C'": () => assert.equal(capitalizeWords("a b c"), "A B C"),
  "'mcp server' becomes 'Mcp Server'": () => assert.equal(capitalizeWords("mcp server"), "Mcp Server"),
  "the empty string stays empty": () => assert.equal(capitalizeWords(""), ""),
};
