/**
 * Physical and mathematical constants and astronomy facts. Constants follow CODATA 2018 (SI
 * exact values where the 2019 SI fixes them); planetary figures follow the NASA Planetary Fact
 * Sheet (nssdc.gsfc.nasa.gov/planetary/factsheet).
 */
import type { Fact } from "./types.js";

// [id, title, text, value, tags]
const CONSTANTS: Array<[string, string, string, string, string]> = [
  ["speed-of-light", "Speed of light in vacuum", "The speed of light in vacuum, c, is exactly 299,792,458 metres per second (about 300,000 km/s). It is exact by definition of the metre.", "299792458 m/s", "c light speed physics constant"],
  ["planck-constant", "Planck constant", "The Planck constant h is exactly 6.62607015 × 10^-34 joule-seconds (J·s).", "6.62607015e-34 J·s", "h quantum physics constant"],
  ["reduced-planck-constant", "Reduced Planck constant", "The reduced Planck constant ħ = h / 2π is about 1.054571817 × 10^-34 J·s.", "1.054571817e-34 J·s", "hbar dirac quantum constant"],
  ["elementary-charge", "Elementary charge", "The elementary charge e (the charge of a proton) is exactly 1.602176634 × 10^-19 coulombs.", "1.602176634e-19 C", "electron proton charge constant"],
  ["boltzmann-constant", "Boltzmann constant", "The Boltzmann constant k is exactly 1.380649 × 10^-23 joules per kelvin.", "1.380649e-23 J/K", "k thermodynamics constant"],
  ["avogadro-constant", "Avogadro constant", "The Avogadro constant N_A is exactly 6.02214076 × 10^23 per mole: the number of particles in one mole.", "6.02214076e23 mol^-1", "avogadro number mole chemistry constant"],
  ["gas-constant", "Molar gas constant", "The molar gas constant R is about 8.314462618 J/(mol·K); it equals the Avogadro constant times the Boltzmann constant.", "8.314462618 J/(mol·K)", "ideal gas R chemistry constant"],
  ["gravitational-constant", "Newtonian constant of gravitation", "The gravitational constant G is about 6.67430 × 10^-11 m^3/(kg·s^2).", "6.67430e-11 m^3 kg^-1 s^-2", "G gravity newton constant"],
  ["standard-gravity", "Standard acceleration of gravity", "Standard gravity g0, the conventional acceleration due to gravity at Earth's surface, is exactly 9.80665 m/s^2.", "9.80665 m/s^2", "g gravity earth acceleration"],
  ["electron-mass", "Electron mass", "The rest mass of the electron is about 9.1093837015 × 10^-31 kg.", "9.1093837015e-31 kg", "electron particle mass"],
  ["proton-mass", "Proton mass", "The rest mass of the proton is about 1.67262192369 × 10^-27 kg, about 1836 times the electron mass.", "1.67262192369e-27 kg", "proton particle mass"],
  ["neutron-mass", "Neutron mass", "The rest mass of the neutron is about 1.67492749804 × 10^-27 kg.", "1.67492749804e-27 kg", "neutron particle mass"],
  ["atomic-mass-unit", "Atomic mass unit (dalton)", "One atomic mass unit (dalton, u), 1/12 of the mass of a carbon-12 atom, is about 1.66053906660 × 10^-27 kg.", "1.66053906660e-27 kg", "dalton amu u mass"],
  ["vacuum-permittivity", "Vacuum electric permittivity", "The electric constant ε0 (vacuum permittivity) is about 8.8541878128 × 10^-12 farads per metre.", "8.8541878128e-12 F/m", "epsilon electric constant"],
  ["vacuum-permeability", "Vacuum magnetic permeability", "The magnetic constant μ0 (vacuum permeability) is about 1.25663706212 × 10^-6 N/A^2.", "1.25663706212e-6 N/A^2", "mu magnetic constant"],
  ["stefan-boltzmann-constant", "Stefan–Boltzmann constant", "The Stefan–Boltzmann constant σ is about 5.670374419 × 10^-8 W/(m^2·K^4).", "5.670374419e-8 W m^-2 K^-4", "sigma radiation black body"],
  ["fine-structure-constant", "Fine-structure constant", "The fine-structure constant α is about 0.0072973525693, or about 1/137.035999.", "0.0072973525693", "alpha dimensionless electromagnetism"],
  ["rydberg-constant", "Rydberg constant", "The Rydberg constant R∞ is about 10,973,731.568160 per metre.", "10973731.568160 m^-1", "rydberg spectroscopy hydrogen"],
  ["faraday-constant", "Faraday constant", "The Faraday constant F, the charge of one mole of electrons, is about 96,485.33212 coulombs per mole.", "96485.33212 C/mol", "faraday electrochemistry"],
  ["bohr-radius", "Bohr radius", "The Bohr radius a0 is about 5.29177210903 × 10^-11 metres (about 0.529 ångström).", "5.29177210903e-11 m", "hydrogen atom radius"],
  ["standard-atmosphere", "Standard atmosphere", "One standard atmosphere (atm) is exactly 101,325 pascals.", "101325 Pa", "atm pressure air"],
  ["absolute-zero", "Absolute zero", "Absolute zero, 0 kelvin, is −273.15 degrees Celsius (−459.67 °F).", "-273.15 °C", "temperature kelvin zero"],
  ["pi", "Pi (π)", "Pi (π), the ratio of a circle's circumference to its diameter, is approximately 3.14159265358979.", "3.14159265358979", "pi circle math constant"],
  ["euler-number", "Euler's number e", "Euler's number e, the base of the natural logarithm, is approximately 2.71828182845905.", "2.71828182845905", "e natural logarithm exponential math"],
  ["golden-ratio", "Golden ratio", "The golden ratio φ = (1 + √5) / 2 is approximately 1.61803398874989.", "1.61803398874989", "phi fibonacci math"],
  ["square-root-of-2", "Square root of 2", "The square root of 2 is approximately 1.41421356237310.", "1.41421356237310", "sqrt pythagoras math"],
  ["speed-of-sound", "Speed of sound in air", "The speed of sound in dry air at 20 °C is about 343 metres per second (about 1,235 km/h).", "343 m/s", "sound acoustics air"],
  ["water-boiling-point", "Boiling point of water", "Pure water boils at about 100 °C (212 °F) at standard atmospheric pressure.", "100 °C", "water boil temperature"],
  ["water-freezing-point", "Freezing point of water", "Pure water freezes at 0 °C (32 °F) at standard atmospheric pressure.", "0 °C", "water freeze melt ice temperature"],
  ["water-density", "Density of water", "The density of liquid water is about 1,000 kg/m^3 (1 g/cm^3); its maximum, about 999.97 kg/m^3, is at about 4 °C.", "1000 kg/m^3", "water density"],
  ["astronomical-unit", "Astronomical unit", "The astronomical unit (au), roughly the mean Earth–Sun distance, is exactly 149,597,870,700 metres (about 149.6 million km).", "149597870700 m", "au earth sun distance astronomy"],
  ["light-year", "Light-year", "A light-year, the distance light travels in one Julian year, is 9,460,730,472,580.8 km (about 9.46 × 10^15 m).", "9.4607304725808e15 m", "ly distance astronomy"],
  ["parsec", "Parsec", "One parsec is about 3.0857 × 10^16 metres, or about 3.26156 light-years.", "3.0857e16 m", "pc distance astronomy"],
  ["earth-mean-radius", "Earth's mean radius", "Earth's mean radius is about 6,371 km.", "6371 km", "earth radius size planet"],
  ["earth-equatorial-radius", "Earth's equatorial radius", "Earth's equatorial radius is about 6,378.137 km (WGS 84), slightly larger than its polar radius of about 6,356.752 km.", "6378.137 km", "earth radius equator"],
  ["earth-circumference", "Earth's equatorial circumference", "Earth's circumference at the equator is about 40,075 km.", "40075 km", "earth circumference equator"],
  ["earth-mass", "Mass of the Earth", "The mass of the Earth is about 5.972 × 10^24 kg.", "5.972e24 kg", "earth mass planet"],
  ["moon-radius", "Moon's mean radius", "The Moon's mean radius is about 1,737.4 km.", "1737.4 km", "moon radius size"],
  ["earth-moon-distance", "Distance from Earth to the Moon", "The mean distance from the Earth to the Moon is about 384,400 km.", "384400 km", "moon distance orbit"],
  ["sun-mass", "Mass of the Sun", "The mass of the Sun is about 1.989 × 10^30 kg, about 333,000 Earth masses.", "1.989e30 kg", "sun solar mass star"],
  ["sun-radius", "Radius of the Sun", "The Sun's radius is about 696,000 km, about 109 times Earth's radius.", "696000 km", "sun solar radius star"],
  ["sunlight-travel-time", "Time for sunlight to reach Earth", "Light from the Sun takes about 8 minutes 20 seconds (about 499 seconds) to reach Earth.", "499 s", "sun light travel time"],
];

// [planet, mean radius km, orbital period days, surface gravity m/s^2, mean distance from Sun in million km]
const PLANETS: Array<[string, string, string, string, string]> = [
  ["Mercury", "2,439.7", "88.0", "3.7", "57.9"],
  ["Venus", "6,051.8", "224.7", "8.9", "108.2"],
  ["Earth", "6,371.0", "365.2", "9.8", "149.6"],
  ["Mars", "3,389.5", "687.0", "3.7", "228.0"],
  ["Jupiter", "69,911", "4,331", "23.1", "778.5"],
  ["Saturn", "58,232", "10,747", "9.0", "1,432.0"],
  ["Uranus", "25,362", "30,589", "8.7", "2,867.0"],
  ["Neptune", "24,622", "59,800", "11.0", "4,515.0"],
];

const plain = (n: string): string => n.replace(/,/g, "");

export function scienceFacts(): Fact[] {
  const facts: Fact[] = CONSTANTS.map(([id, title, text, value, tags]) => ({
    id,
    title,
    text,
    value,
    category: id.startsWith("earth") || id.startsWith("moon") || id.startsWith("sun") || ["astronomical-unit", "light-year", "parsec"].includes(id) ? "astronomy" : "constants",
    tags,
  }));
  PLANETS.forEach(([planet, radius, period, gravity, distance], i) => {
    const p = planet.toLowerCase();
    const order = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth"][i];
    facts.push(
      { id: `planet-${p}-radius`, title: `Radius of ${planet}`, text: `${planet}, the ${order} planet from the Sun, has a mean radius of about ${radius} km.`, value: `${plain(radius)} km`, category: "astronomy", tags: `${p} planet radius size` },
      { id: `planet-${p}-orbital-period`, title: `Orbital period of ${planet}`, text: `${planet} takes about ${period} Earth days to orbit the Sun once (its year).`, value: `${plain(period)} days`, category: "astronomy", tags: `${p} planet year orbit period` },
      { id: `planet-${p}-gravity`, title: `Surface gravity of ${planet}`, text: `The surface gravity on ${planet} is about ${gravity} m/s^2 (Earth: 9.8 m/s^2).`, value: `${gravity} m/s^2`, category: "astronomy", tags: `${p} planet gravity weight` },
      { id: `planet-${p}-distance`, title: `Distance of ${planet} from the Sun`, text: `${planet} orbits at a mean distance of about ${distance} million km from the Sun.`, value: `${plain(distance)} million km`, category: "astronomy", tags: `${p} planet distance sun orbit` },
    );
  });
  facts.push(
    { id: "largest-planet", title: "Largest planet", text: "Jupiter is the largest planet in the Solar System, with a mean radius of about 69,911 km.", value: "Jupiter", category: "astronomy", tags: "biggest planet jupiter" },
    { id: "smallest-planet", title: "Smallest planet", text: "Mercury is the smallest planet in the Solar System, with a mean radius of about 2,439.7 km.", value: "Mercury", category: "astronomy", tags: "smallest planet mercury" },
    { id: "number-of-planets", title: "Number of planets in the Solar System", text: "The Solar System has eight planets: Mercury, Venus, Earth, Mars, Jupiter, Saturn, Uranus and Neptune.", value: "8", category: "astronomy", tags: "planets count solar system" },
  );
  return facts;
}
