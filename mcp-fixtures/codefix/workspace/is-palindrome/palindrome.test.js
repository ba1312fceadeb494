import assert from "node:assert/strict";
import { isPalindrome } from "./palindrome.js";

export default {
  "'racecar' is a palindrome": () => assert.equal(isPalindrome("racecar"), true),
  "'hello' is not a palindrome": () => assert.equal(isPalindrome("hello"), false),
  "'Racecar' is a palindrome (case ignored)": () => assert.equal(isPalindrome("Racecar"), true),
  "'A man, a plan, a canal: Panama' is a palindrome": () => assert.equal(isPalindrome("A man, a plan, a canal: Panama"), true),
  "the empty string is a palindrome": () => assert.equal(isPalindrome(""), true),
};
