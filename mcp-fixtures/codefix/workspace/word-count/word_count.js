// Number of whitespace-separated words in text.
export function countWords(text) {
  return text.split(" ").length;
}
