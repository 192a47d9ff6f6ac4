// How the offline demo model reads everyday arithmetic and unit phrasing as
// an expression the calculator accepts: "17% of 230" as "17 / 100 * 230",
// "2 to the power of 10" as "2 ^ 10", "convert 5 miles to km" as
// "5 mile to km". Words are rewritten one rule at a time into the
// calculator's notation; whatever is left must then be numbers, operators,
// brackets, the calculator's few functions and the units below, or the
// phrase is not read at all (the model then says so, rather than calling the
// calculator with words it would refuse).

/** Unit words as the calculator (mathjs) names them. */
const UNITS: Record<string, string> = {
  mile: "mile", miles: "mile", mi: "mile",
  kilometer: "km", kilometers: "km", kilometre: "km", kilometres: "km", km: "km", kms: "km",
  meter: "m", meters: "m", metre: "m", metres: "m", m: "m",
  centimeter: "cm", centimeters: "cm", centimetre: "cm", centimetres: "cm", cm: "cm",
  millimeter: "mm", millimeters: "mm", millimetre: "mm", millimetres: "mm", mm: "mm",
  foot: "ft", feet: "ft", ft: "ft",
  inch: "inch", inches: "inch",
  yard: "yard", yards: "yard", yd: "yard",
  pound: "lb", pounds: "lb", lb: "lb", lbs: "lb",
  kilogram: "kg", kilograms: "kg", kilo: "kg", kilos: "kg", kg: "kg",
  gram: "g", grams: "g", g: "g",
  ounce: "oz", ounces: "oz", oz: "oz",
  liter: "liter", liters: "liter", litre: "liter", litres: "liter", l: "liter",
  gallon: "gallon", gallons: "gallon",
  celsius: "degC", centigrade: "degC", c: "degC", fahrenheit: "degF", f: "degF", kelvin: "K",
  hour: "hour", hours: "hour", minute: "minute", minutes: "minute", second: "second", seconds: "second",
  day: "day", days: "day", week: "week", weeks: "week",
  mph: "mile/hour", kph: "km/hour", "km/h": "km/hour",
};

/** The calculator's functions the phrasing below may produce. */
const FUNCTIONS = new Set(["sqrt", "cbrt", "abs", "round", "floor", "ceil"]);

const NUMBER = String.raw`-?\d+(?:[.,]\d+)*(?:\.\d+)?`;
const WORD_NUMBERS: Record<string, string> = {
  zero: "0", one: "1", two: "2", three: "3", four: "4", five: "5", six: "6", seven: "7", eight: "8", nine: "9", ten: "10",
  eleven: "11", twelve: "12", twenty: "20",
};

/** Rewrites applied in order; each is a pattern over the lower-cased phrase and what it becomes. */
const REWRITES: [RegExp, string][] = [
  // Numbers as people write them: thousands separators.
  [/(\d),(\d{3})\b/g, "$1$2"],
  [/\b(?:a\s+)?half\s+of\s+/g, "0.5 * "],
  [/\b(?:a\s+)?quarter\s+of\s+/g, "0.25 * "],
  [/\btwice\s+/g, "2 * "],
  // Degrees before their scale: "20 degrees celsius", "68 °F".
  [/\s*(?:degrees?|°)\s*(celsius|centigrade|fahrenheit|kelvin|c|f)\b/g, " $1"],
  // Percentages.
  [new RegExp(String.raw`(${NUMBER})\s*(?:%|percent|per cent)\s+of\s+`, "g"), "$1 / 100 * "],
  [new RegExp(String.raw`(${NUMBER})\s*(?:%|percent|per cent)`, "g"), "($1 / 100)"],
  // Powers and roots.
  [/\b(?:the\s+)?square\s+root\s+of\s+/g, "sqrt "],
  [/\b(?:the\s+)?cube\s+root\s+of\s+/g, "cbrt "],
  [/\s+(?:raised\s+)?to\s+the\s+power\s+of\s+/g, " ^ "],
  [new RegExp(String.raw`\s+to\s+the\s+(${NUMBER})(?:st|nd|rd|th)\s+power\b`, "g"), " ^ $1"],
  [/\s+raised\s+to\s+/g, " ^ "],
  [/\s+squared\b/g, " ^ 2"],
  [/\s+cubed\b/g, " ^ 3"],
  // Words of the four operations.
  [/\bthe\s+sum\s+of\s+(.+?)\s+and\s+/g, "$1 + "],
  [/\bthe\s+product\s+of\s+(.+?)\s+and\s+/g, "$1 * "],
  [/\bthe\s+difference\s+between\s+(.+?)\s+and\s+/g, "$1 - "],
  [/\s+(?:times|multiplied\s+by|x)\s+/g, " * "],
  [/\s+(?:divided\s+by|over)\s+/g, " / "],
  [/\s+(?:plus|added\s+to|and)\s+/g, " + "],
  [/\s+(?:minus|less)\s+/g, " - "],
  [/\s+(?:mod|modulo)\s+/g, " mod "],
  [/\bsqrt\s+(\S+)/g, "sqrt($1)"],
  [/\bcbrt\s+(\S+)/g, "cbrt($1)"],
  // Conversions: "in" and "into" as "to".
  [/\s+(?:in|into|as)\s+(?=[a-z°])/g, " to "],
];

/** Words that ask for a calculation and add nothing to it. */
const FILLER = /^(?:(?:please|can you|could you|would you|tell me|how much is|how many|is|what's|what is|whats|calculate|compute|evaluate|work out|convert|the result of|the value of|exactly|roughly|about|approximately)\s+)+/;

/**
 * The calculator's expression for a phrase of arithmetic or units, or null
 * when it holds anything else (a word the calculator would not know).
 */
export function arithmeticExpression(phrase: string): string | null {
  let text = phrase
    .toLowerCase()
    .replace(/[“”"'’?!]+/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[.,;:]+$/, "");
  text = text
    .replace(FILLER, "")
    .replace(/,?\s*(?:please|thanks|thank you)$/, "")
    .replace(new RegExp(String.raw`\b(${Object.keys(WORD_NUMBERS).join("|")})\b`, "g"), (word) => WORD_NUMBERS[word]);
  for (const [pattern, replacement] of REWRITES) text = text.replace(pattern, replacement);
  // Unit words as the calculator names them; a bare number and unit joined.
  const tokens = text.match(/\d+(?:\.\d+)?|[a-z/]+|\^|[-+*/()%]|\S/g) ?? [];
  const out: string[] = [];
  for (const token of tokens) {
    if (/^\d/.test(token) || /^[-+*/()^]$/.test(token) || token === "to" || token === "mod" || FUNCTIONS.has(token)) out.push(token);
    else if (UNITS[token] !== undefined) out.push(UNITS[token]);
    else return null;
  }
  if (!out.some((token) => /^\d/.test(token))) return null;
  return out
    .join(" ")
    .replace(/\( /g, "(")
    .replace(/ \)/g, ")")
    .replace(/(\w) \(/g, "$1(");
}

/** The phrase of a message that asks for a calculation, if it asks for one: what follows "what is", "calculate", "convert"… up to the sentence's end. */
export function calculationPhrase(text: string): string | null {
  const asked = /\b(?:calculate|compute|evaluate|convert|work out|how much is|what(?:'s| is))\s+([^?!;]+?)\s*(?:[?!;]|,? and (?=what|how|calculate|convert)|$)/i.exec(text)?.[1];
  if (!asked || /\btime\b/i.test(asked)) return null;
  return /\d/.test(asked) || WORDS_OF_SUMS.test(asked) ? asked : null;
}

/** A sum in words: a number word and an operation ("seven times eight"). */
const WORDS_OF_SUMS = new RegExp(
  String.raw`\b(?:${Object.keys(WORD_NUMBERS).join("|")})\b.*\b(?:times|plus|minus|divided|multiplied|squared|cubed|percent)\b`,
  "i",
);
