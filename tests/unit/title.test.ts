import { describe, expect, it } from "vitest";
import { titleFromMessage } from "@threadline/history/title";

describe("the default thread title", () => {
  it("is the start of the first message as plain text on one line", () => {
    expect(titleFromMessage("  Plan my\ntrip to Lisbon  ")).toBe("Plan my trip to Lisbon");
    expect(titleFromMessage("Explain **markdown** tables:\n\n| a | b |\n|---|---|\n| 1 | 2 |")).toBe("Explain markdown tables: a b 1 2");
    expect(titleFromMessage("# Why does `useEffect` run twice?")).toBe("Why does useEffect run twice?");
    expect(titleFromMessage("See [the docs](https://example.com/x) and ~~old~~ notes")).toBe("See the docs and old notes");
    expect(titleFromMessage("```ts\nconst a = 1;\n```")).toBe("const a = 1;");
  });

  it("keeps every character the person typed that is not markup: a lone star, an underscore in a word, pipes outside a table", () => {
    expect(titleFromMessage("What is 11 * 11?")).toBe("What is 11 * 11?");
    expect(titleFromMessage("Is 2*3*4 = 24, and *why*?")).toBe("Is 2*3*4 = 24, and why?");
    expect(titleFromMessage("Rename my_var_name to **snake_case**")).toBe("Rename my_var_name to snake_case");
    expect(titleFromMessage("Is a || b the same as a | b?")).toBe("Is a || b the same as a | b?");
    expect(titleFromMessage("Price: $5 ~ 10 € & <b>tags</b> #hash")).toBe("Price: $5 ~ 10 € & <b>tags</b> #hash");
    expect(titleFromMessage("- 3 > 2 > 1, ***really***")).toBe("3 > 2 > 1, really");
    expect(titleFromMessage("---\nThe `a * b` and _c_ case\n***")).toBe("The a * b and c case");
  });

  it("cuts long messages at a word and marks the cut", () => {
    const title = titleFromMessage("word ".repeat(40));
    expect(title.length).toBeLessThanOrEqual(61);
    expect(title.endsWith("word…")).toBe(true);
  });

  it("falls back to New chat when nothing readable is left", () => {
    expect(titleFromMessage("\u0000 ** ``")).toBe("New chat");
  });
});
