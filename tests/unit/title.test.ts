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

  it("cuts long messages at a word and marks the cut", () => {
    const title = titleFromMessage("word ".repeat(40));
    expect(title.length).toBeLessThanOrEqual(61);
    expect(title.endsWith("word…")).toBe(true);
  });

  it("falls back to New chat when nothing readable is left", () => {
    expect(titleFromMessage("\u0000 ** ``")).toBe("New chat");
  });
});
