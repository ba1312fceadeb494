// True when text reads the same both ways, ignoring case, spaces and punctuation.
export function isPalindrome(text) {
  const letters = text.replace(/[^a-z0-9]/gi, "");
  return letters === letters.split("").reverse().join("");
}
