// Largest element of an array of numbers; undefined for an empty array.
export function maxOf(numbers) {
  if (numbers.length === 0) return undefined;
  let max = 0;
  for (const n of numbers) {
    if (n > max) max = n;
  }
  return max;
}
