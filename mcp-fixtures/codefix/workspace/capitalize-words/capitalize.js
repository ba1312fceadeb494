// Upper-cases the first letter of every space-separated word.
export function capitalizeWords(text) {
  return text
    .split(" ")
    .map((word) => (word.length === 0 ? word : word[0].toUpperCase() + word.slice(2)))
    .join(" ");
}
