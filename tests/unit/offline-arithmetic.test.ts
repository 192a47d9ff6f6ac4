import { describe, expect, it } from "vitest";
import { calculateExpression } from "@/lib/agent/network/tools/calculate";
import { arithmeticExpression, calculationPhrase } from "@/lib/model/offline-arithmetic";

// Everyday phrasing a newcomer asks the offline demo, read as an expression
// and evaluated by the real calculator: each must give the answer a person expects.
const PHRASINGS: [message: string, result: string][] = [
  ["What time is it in Tokyo, and what is 17% of 230?", "39.1"],
  ["what is 15 percent of 80", "12"],
  ["What's 2 to the power of 10?", "1024"],
  ["what is the square root of 144", "12"],
  ["convert 5 miles to km", "8.04672 km"],
  ["what is 12 times 7", "84"],
  ["Calculate 3 + 4 * 2", "11"],
  ["What is 100 divided by 8?", "12.5"],
  ["what is 1,250 plus 750", "2000"],
  ["What is 90 minus 35?", "55"],
  ["how much is 20% of 45?", "9"],
  ["What's 7 squared?", "49"],
  ["what is 3 cubed", "27"],
  ["what is the cube root of 27", "3"],
  ["what is 2 raised to 8", "256"],
  ["what is 2 to the 5th power", "32"],
  ["Convert 100 fahrenheit to celsius", "37.777777777778 degC"],
  ["what is 20 degrees celsius in fahrenheit", "68 degF"],
  ["convert 10 kilograms to pounds", "22.046226218488 lb"],
  ["Convert 3 feet into inches", "36 inch"],
  ["what is 2 liters in gallons", "0.5283441047163 gallon"],
  ["convert 90 minutes to hours", "1.5 hour"],
  ["convert 60 mph to km/h", "96.56064 km / hour"],
  ["what is half of 250", "125"],
  ["what is the sum of 17 and 25", "42"],
  ["What is the product of 6 and 9?", "54"],
  ["what is the difference between 100 and 64", "36"],
  ["what is seven times eight", "56"],
  ["what's 12.5% of 80, please", "10"],
  ["what is 10 mod 3", "1"],
  ["compute (3 + 5) * 2", "16"],
  ["What is 5 multiplied by 11?", "55"],
  ["what is twice 21", "42"],
  ["what is a quarter of 60", "15"],
  ["evaluate sqrt(2) * sqrt(2)", "2"],
];

describe("the offline demo's reading of arithmetic", () => {
  it.each(PHRASINGS)("reads %j as an expression the calculator answers with %s", (message, result) => {
    const phrase = calculationPhrase(message);
    expect(phrase).not.toBeNull();
    const expression = arithmeticExpression(phrase!);
    expect(expression).not.toBeNull();
    expect(calculateExpression(expression!).result).toBe(result);
  });

  it.each([
    "what is the meaning of life in 42 words",
    "what is 5 apples plus 3 oranges",
    "what is 2 in binary",
  ])("does not read %j as a calculation: nothing the calculator would refuse is sent to it", (message) => {
    const phrase = calculationPhrase(message);
    expect(phrase).not.toBeNull();
    expect(arithmeticExpression(phrase!)).toBeNull();
  });

  it.each(["What time is it in Lisbon?", "What is Threadline?", "what is the time in 5 cities"])("finds no calculation in %j", (message) => {
    expect(calculationPhrase(message)).toBeNull();
  });

  it("leaves the calculator's refusals as they are: a bad expression is still an error", () => {
    expect(() => calculateExpression("17% of 230")).toThrow();
  });
});
