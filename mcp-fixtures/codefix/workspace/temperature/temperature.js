// Degrees Celsius to degrees Fahrenheit.
export function toFahrenheit(celsius) {
  return celsius * 5 / 9 + 32;
}
