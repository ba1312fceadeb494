/**
 * Unit conversion facts. Values are the exact legal definitions where one exists (the 1959
 * international yard and pound, the US and imperial gallons, SI prefixes), otherwise rounded.
 */
import type { Fact } from "./types.js";

// [id, title, text, value, tags]
const UNITS: Array<[string, string, string, string, string]> = [
  ["inch-to-cm", "Inch in centimetres", "One inch is exactly 2.54 centimetres.", "2.54 cm", "in inches length imperial"],
  ["foot-to-m", "Foot in metres", "One foot (12 inches) is exactly 0.3048 metres.", "0.3048 m", "ft feet length imperial"],
  ["yard-to-m", "Yard in metres", "One yard (3 feet) is exactly 0.9144 metres.", "0.9144 m", "yd yards length imperial"],
  ["mile-to-km", "Mile in kilometres", "One (statute) mile is exactly 1.609344 kilometres (5,280 feet).", "1.609344 km", "mi miles length distance"],
  ["km-to-mile", "Kilometre in miles", "One kilometre is about 0.621371 miles.", "0.621371 mi", "km kilometres miles distance"],
  ["nautical-mile", "Nautical mile in metres", "One nautical mile is exactly 1,852 metres.", "1852 m", "nmi sea navigation length"],
  ["angstrom", "Ångström in metres", "One ångström is 10^-10 metres (0.1 nanometre).", "1e-10 m", "angstrom atomic length"],
  ["pound-to-kg", "Pound in kilograms", "One pound (avoirdupois) is exactly 0.45359237 kilograms.", "0.45359237 kg", "lb lbs weight mass imperial"],
  ["kg-to-pound", "Kilogram in pounds", "One kilogram is about 2.20462 pounds.", "2.20462 lb", "kg weight mass pounds"],
  ["ounce-to-g", "Ounce in grams", "One ounce (avoirdupois) is exactly 28.349523125 grams.", "28.349523125 g", "oz weight mass"],
  ["stone-to-kg", "Stone in kilograms", "One stone (14 pounds) is exactly 6.35029318 kilograms.", "6.35029318 kg", "st weight body mass imperial"],
  ["tonne", "Tonne in kilograms", "One metric tonne is 1,000 kilograms.", "1000 kg", "ton metric mass"],
  ["short-ton", "Short ton in kilograms", "One short ton (US ton, 2,000 pounds) is exactly 907.18474 kilograms.", "907.18474 kg", "us ton mass"],
  ["long-ton", "Long ton in kilograms", "One long ton (imperial ton, 2,240 pounds) is exactly 1,016.0469088 kilograms.", "1016.0469088 kg", "imperial ton uk mass"],
  ["us-gallon-to-l", "US gallon in litres", "One US liquid gallon is exactly 3.785411784 litres.", "3.785411784 L", "gal volume liquid us"],
  ["imperial-gallon-to-l", "Imperial gallon in litres", "One imperial (UK) gallon is exactly 4.54609 litres.", "4.54609 L", "gal volume uk imperial"],
  ["us-fluid-ounce", "US fluid ounce in millilitres", "One US fluid ounce is exactly 29.5735295625 millilitres.", "29.5735295625 mL", "fl oz volume us"],
  ["us-cup", "US cup in millilitres", "One US customary cup (8 US fluid ounces) is 236.5882365 millilitres.", "236.5882365 mL", "cup cooking volume"],
  ["us-pint", "US pint in millilitres", "One US liquid pint (16 US fluid ounces) is 473.176473 millilitres.", "473.176473 mL", "pint volume us"],
  ["litre", "Litre in cubic centimetres", "One litre is 1,000 cubic centimetres (one cubic decimetre).", "1000 cm^3", "liter l volume"],
  ["acre-to-m2", "Acre in square metres", "One international acre is exactly 4,046.8564224 square metres.", "4046.8564224 m^2", "acre area land"],
  ["hectare", "Hectare in square metres", "One hectare is 10,000 square metres (0.01 km^2), about 2.471 acres.", "10000 m^2", "ha area land"],
  ["square-mile", "Square mile in square kilometres", "One square mile is exactly 2.589988110336 square kilometres.", "2.589988110336 km^2", "sq mi area"],
  ["kwh-to-joule", "Kilowatt-hour in joules", "One kilowatt-hour is exactly 3.6 megajoules (3,600,000 J).", "3.6e6 J", "kwh energy electricity"],
  ["calorie", "Calorie in joules", "One (thermochemical) calorie is exactly 4.184 joules; a food Calorie (kilocalorie) is 4,184 J.", "4.184 J", "cal kcal energy food"],
  ["electronvolt", "Electronvolt in joules", "One electronvolt is exactly 1.602176634 × 10^-19 joules.", "1.602176634e-19 J", "ev energy particle"],
  ["horsepower", "Mechanical horsepower in watts", "One mechanical (imperial) horsepower is about 745.7 watts.", "745.7 W", "hp power engine"],
  ["metric-horsepower", "Metric horsepower in watts", "One metric horsepower (PS) is exactly 735.49875 watts.", "735.49875 W", "ps hp power metric"],
  ["bar", "Bar in pascals", "One bar is exactly 100,000 pascals.", "100000 Pa", "bar pressure"],
  ["psi", "PSI in pascals", "One pound per square inch (psi) is about 6,894.757 pascals.", "6894.757 Pa", "psi pressure tyre"],
  ["mmhg", "Millimetre of mercury in pascals", "One millimetre of mercury (mmHg) is about 133.322 pascals.", "133.322 Pa", "mmhg torr pressure blood"],
  ["fahrenheit-to-celsius", "Fahrenheit to Celsius", "To convert Fahrenheit to Celsius: C = (F − 32) × 5/9. For example 212 °F = 100 °C.", "C = (F - 32) * 5/9", "temperature conversion formula"],
  ["celsius-to-fahrenheit", "Celsius to Fahrenheit", "To convert Celsius to Fahrenheit: F = C × 9/5 + 32. For example 100 °C = 212 °F.", "F = C * 9/5 + 32", "temperature conversion formula"],
  ["celsius-to-kelvin", "Celsius to kelvin", "To convert Celsius to kelvin add 273.15: K = C + 273.15.", "K = C + 273.15", "temperature kelvin conversion"],
  ["knot", "Knot in km/h", "One knot (one nautical mile per hour) is exactly 1.852 km/h.", "1.852 km/h", "kn speed sea aviation"],
  ["mph-to-kmh", "Mile per hour in km/h", "One mile per hour is exactly 1.609344 km/h (0.44704 m/s).", "1.609344 km/h", "mph speed"],
  ["kmh-to-ms", "Kilometre per hour in m/s", "One kilometre per hour is 1/3.6 metres per second, about 0.27778 m/s.", "0.27778 m/s", "kmh speed"],
  ["byte-bits", "Bits in a byte", "One byte is 8 bits.", "8 bits", "byte bit data"],
  ["kibibyte", "Kibibyte in bytes", "One kibibyte (KiB) is 1,024 bytes; one kilobyte (kB) is 1,000 bytes.", "1024 bytes", "kib kb data storage"],
  ["mebibyte", "Mebibyte in bytes", "One mebibyte (MiB) is 1,048,576 bytes (2^20).", "1048576 bytes", "mib mb data storage"],
  ["gibibyte", "Gibibyte in bytes", "One gibibyte (GiB) is 1,073,741,824 bytes (2^30).", "1073741824 bytes", "gib gb data storage"],
  ["degree-to-radian", "Degree in radians", "One degree is π/180 radians, about 0.0174533 rad.", "0.0174533 rad", "angle degrees radians"],
  ["radian-to-degree", "Radian in degrees", "One radian is 180/π degrees, about 57.2958°.", "57.2958 degrees", "angle radians degrees"],
  ["seconds-per-day", "Seconds in a day", "One day has 86,400 seconds (24 × 60 × 60).", "86400 s", "day time seconds"],
  ["seconds-per-week", "Seconds in a week", "One week has 604,800 seconds.", "604800 s", "week time seconds"],
  ["julian-year", "Julian year in days and seconds", "A Julian year is exactly 365.25 days, or 31,557,600 seconds.", "365.25 days", "year time astronomy"],
];

export function unitFacts(): Fact[] {
  return UNITS.map(([id, title, text, value, tags]) => ({ id: `unit-${id}`, title, text, value, category: "units", tags }));
}
