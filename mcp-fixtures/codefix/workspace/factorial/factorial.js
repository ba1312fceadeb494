// n! for a non-negative integer n.
export function factorial(n) {
  if (n === 1) return 1;
  return n * factorial(n - 1);
}
