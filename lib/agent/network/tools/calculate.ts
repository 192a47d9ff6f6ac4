import { all, create } from "mathjs";
import { z } from "zod";
import { defineTool } from "./types";

// mathjs parses and evaluates expressions itself (no eval, no Function). Its
// functions that could change the instance or reach beyond one expression are
// replaced by ones that refuse, as its security guide recommends.
const math = create(all);
const evaluate = math.evaluate.bind(math);
const refuse = (name: string) => () => {
  throw new Error(`${name} is not available in calculate.`);
};
math.import(
  Object.fromEntries(
    ["import", "createUnit", "evaluate", "parse", "simplify", "derivative", "resolve", "reviver", "compile"].map((name) => [name, refuse(name)]),
  ),
  { override: true },
);

const MAX_EXPRESSION = 500;

export function calculateExpression(expression: string): { expression: string; result: string } {
  const value: unknown = evaluate(expression);
  if (typeof value === "function" || value === undefined) throw new Error("The expression has no value.");
  return { expression, result: math.format(value as never, { precision: 14 }) };
}

export const calculate = () =>
  defineTool({
    name: "calculate",
    description:
      "Evaluates arithmetic and converts units, exactly: \"(3 + 4) * 2\", \"sqrt(2)\", \"15% of 80\" as \"0.15 * 80\", \"5 km to miles\", \"100 degF to degC\".",
    input: z.object({
      expression: z.string().min(1).max(MAX_EXPRESSION).describe("A math expression, optionally with units and a `to` conversion"),
    }),
    async execute({ expression }) {
      return calculateExpression(expression);
    },
  });
