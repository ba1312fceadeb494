/**
 * Countries: capital city, population and land area. Populations are UN World Population
 * Prospects 2022 estimates for mid-2023, rounded (they change every year: treat as "about");
 * areas are total areas in km^2 from national statistics offices or the CIA World Factbook.
 * An area is omitted (null) where sources disagree widely (disputed territory, dependencies).
 */
import type { Fact } from "./types.js";

// [country, capital, population in millions (UN 2023 estimate), total area in km^2, capital note]
type Row = [string, string, string | null, string | null, string?];
const COUNTRIES: Row[] = [
  ["India", "New Delhi", "1,428.6", "3,287,263"],
  ["China", "Beijing", "1,425.7", "9,596,961"],
  ["United States", "Washington, D.C.", "340.0", "9,833,520"],
  ["Indonesia", "Jakarta", "277.5", "1,904,569", "a move of the capital to Nusantara is under way"],
  ["Pakistan", "Islamabad", "240.5", null],
  ["Nigeria", "Abuja", "223.8", "923,768"],
  ["Brazil", "Brasília", "216.4", "8,515,767"],
  ["Bangladesh", "Dhaka", "173.0", null],
  ["Russia", "Moscow", "144.4", "17,098,246"],
  ["Mexico", "Mexico City", "128.5", "1,964,375"],
  ["Ethiopia", "Addis Ababa", "126.5", "1,104,300"],
  ["Japan", "Tokyo", "123.3", "377,975"],
  ["Philippines", "Manila", "117.3", "300,000"],
  ["Egypt", "Cairo", "112.7", "1,001,450"],
  ["Democratic Republic of the Congo", "Kinshasa", "102.3", "2,344,858"],
  ["Vietnam", "Hanoi", "98.9", "331,212"],
  ["Iran", "Tehran", "89.2", "1,648,195"],
  ["Turkey", "Ankara", "85.8", "783,562"],
  ["Germany", "Berlin", "83.3", "357,588"],
  ["Thailand", "Bangkok", "71.8", "513,120"],
  ["United Kingdom", "London", "67.7", "242,495"],
  ["France", "Paris", "64.8", "551,695", "area is for metropolitan France"],
  ["South Africa", "Pretoria", "60.4", "1,221,037", "Pretoria is the executive capital; Cape Town is the legislative and Bloemfontein the judicial capital"],
  ["Italy", "Rome", "58.9", "301,340"],
  ["Kenya", "Nairobi", "55.1", "580,367"],
  ["Colombia", "Bogotá", "52.1", "1,141,748"],
  ["South Korea", "Seoul", "51.8", null],
  ["Spain", "Madrid", "47.5", "505,990"],
  ["Argentina", "Buenos Aires", "45.8", "2,780,400"],
  ["Algeria", "Algiers", "45.6", "2,381,741"],
  ["Poland", "Warsaw", "41.0", "312,696"],
  ["Canada", "Ottawa", "38.8", "9,984,670"],
  ["Morocco", "Rabat", "37.8", null],
  ["Saudi Arabia", "Riyadh", "36.9", "2,149,690"],
  ["Ukraine", "Kyiv", null, "603,550"],
  ["Peru", "Lima", "34.4", "1,285,216"],
  ["Nepal", "Kathmandu", "30.9", "147,181"],
  ["Australia", "Canberra", "26.4", "7,692,024"],
  ["Chile", "Santiago", "19.6", "756,102"],
  ["Kazakhstan", "Astana", "19.6", "2,724,900"],
  ["Netherlands", "Amsterdam", "17.6", null, "Amsterdam is the constitutional capital; the government sits in The Hague"],
  ["Sweden", "Stockholm", "10.6", "450,295"],
  ["Greece", "Athens", "10.3", "131,957"],
  ["Portugal", "Lisbon", "10.2", null],
  ["Austria", "Vienna", "9.0", "83,871"],
  ["Switzerland", "Bern", "8.8", "41,285", "Bern is the federal city, the de facto capital"],
  ["Denmark", "Copenhagen", "5.9", "43,094", "area excludes Greenland and the Faroe Islands"],
  ["Finland", "Helsinki", "5.5", null],
  ["Norway", "Oslo", "5.5", null],
  ["New Zealand", "Wellington", "5.2", null],
  ["Ireland", "Dublin", "5.1", "70,273"],
  ["Mongolia", "Ulaanbaatar", "3.4", "1,564,116"],
  ["Iceland", "Reykjavík", "0.375", "103,000"],
];

const slug = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");

function millions(m: string): string {
  const n = Number(m.replace(/,/g, ""));
  return n >= 1000 ? `${(n / 1000).toFixed(3).replace(/0+$/, "")} billion` : n < 1 ? `${Math.round(n * 1000)} thousand` : `${m} million`;
}

export function geographyFacts(): Fact[] {
  const facts: Fact[] = [];
  for (const [country, capital, pop, area, note] of COUNTRIES) {
    const s = slug(country);
    facts.push({
      id: `capital-${s}`,
      title: `Capital of ${country}`,
      text: `The capital of ${country} is ${capital}.${note && !note.startsWith("area") ? ` (${note[0].toUpperCase()}${note.slice(1)}.)` : ""}`,
      value: capital,
      category: "geography",
      tags: `${country} ${capital} capital city country`,
    });
    if (pop !== null) {
      facts.push({
        id: `population-${s}`,
        title: `Population of ${country}`,
        text: `${country} has a population of about ${millions(pop)} people (UN estimate for 2023).`,
        value: `${Math.round(Number(pop.replace(/,/g, "")) * 1e6)}`,
        category: "geography",
        tags: `${country} population people inhabitants country`,
      });
    }
    if (area !== null) {
      facts.push({
        id: `area-${s}`,
        title: `Area of ${country}`,
        text: `${country} has a total area of about ${area} km^2${note?.startsWith("area") ? ` (${note})` : ""}.`,
        value: `${area.replace(/,/g, "")} km^2`,
        category: "geography",
        tags: `${country} area size square kilometres country`,
      });
    }
  }
  facts.push(
    { id: "geo-mount-everest", title: "Height of Mount Everest", text: "Mount Everest, on the Nepal–China border, is the highest mountain above sea level at 8,848.86 m (2020 survey).", value: "8848.86 m", category: "geography", tags: "everest highest mountain height tallest" },
    { id: "geo-nile-length", title: "Length of the Nile", text: "The Nile, usually counted as the longest river in the world, is about 6,650 km long.", value: "6650 km", category: "geography", tags: "nile longest river length africa" },
    { id: "geo-amazon-length", title: "Length of the Amazon", text: "The Amazon River is about 6,400 km long and carries more water than any other river.", value: "6400 km", category: "geography", tags: "amazon river length south america" },
    { id: "geo-largest-ocean", title: "Largest ocean", text: "The Pacific Ocean is the largest and deepest ocean, covering about 165 million km^2.", value: "Pacific Ocean", category: "geography", tags: "pacific largest ocean biggest" },
    { id: "geo-largest-country", title: "Largest country by area", text: "Russia is the largest country by area, about 17,098,246 km^2.", value: "Russia", category: "geography", tags: "largest biggest country area russia" },
    { id: "geo-smallest-country", title: "Smallest country by area", text: "Vatican City is the smallest country in the world, about 0.44 km^2.", value: "Vatican City", category: "geography", tags: "smallest country vatican" },
    { id: "geo-most-populous-country", title: "Most populous country", text: "India is the most populous country, having passed China in 2023 with about 1.43 billion people.", value: "India", category: "geography", tags: "most populous country population largest india" },
    { id: "geo-largest-desert", title: "Largest hot desert", text: "The Sahara is the largest hot desert, about 9.2 million km^2 in northern Africa.", value: "Sahara", category: "geography", tags: "sahara desert largest africa" },
    { id: "geo-deepest-lake", title: "Deepest lake", text: "Lake Baikal in Siberia, Russia, is the deepest lake in the world, about 1,642 m deep.", value: "Lake Baikal", category: "geography", tags: "baikal deepest lake russia" },
    { id: "geo-continents", title: "Number of continents", text: "By the most common convention there are seven continents: Africa, Antarctica, Asia, Australia (Oceania), Europe, North America and South America.", value: "7", category: "geography", tags: "continents count" },
  );
  return facts;
}
