import { describe, expect, it } from "vitest";
import { titleFromMessage } from "@/lib/history/title";
import { modelTitle, offlineTitle, titleRequestText } from "@/lib/model/title-request";

describe("the title in a model's answer", () => {
  it.each([
    ["Porto weekend plans", "Porto weekend plans"],
    ["  Title: Porto weekend plans\n", "Porto weekend plans"],
    ['"Porto weekend plans"', "Porto weekend plans"],
    ["“Porto weekend plans”", "Porto weekend plans"],
    ["**Porto** weekend `plans`", "Porto weekend plans"],
    ["# Porto\nweekend", "Porto weekend"],
    ["Weekend in Porto 🧳", "Weekend in Porto 🧳"],
  ])("%j is %j", (answer, title) => {
    expect(modelTitle(answer)).toBe(title);
  });

  it("is cut as a first-words title is", () => {
    const long = "A very long title that the model wrote although it was asked for six words only";
    expect(modelTitle(long)).toBe(titleFromMessage(long));
    expect(modelTitle(long)!.length).toBeLessThanOrEqual(61);
  });

  it.each(["", "   ", '""', "Title:", "***", "\u0000"])("is none in %j", (answer) => {
    expect(modelTitle(answer)).toBeNull();
  });
});

describe("a title request", () => {
  it("quotes the message and the reply, each cut to its start", () => {
    const text = titleRequestText("x".repeat(5_000), "reply");
    expect(text.startsWith(`User: ${"x".repeat(2_000)}…\n\nAssistant: reply`)).toBe(true);
  });
});

describe("the offline title", () => {
  it("keeps the first telling words of the message, capitalized", () => {
    expect(offlineTitle(titleRequestText("can you tell me how to bake sourdough bread at home", "…"))).toBe("Bake Sourdough Bread At Home");
    expect(offlineTitle(titleRequestText("¿Qué hora es en Tokio?", "…"))).toBe("Qué Hora Es En Tokio");
  });

  it("is empty for a message of filler words only, which leaves the first words", () => {
    expect(offlineTitle(titleRequestText("hello there", "Hi!"))).toBe("");
    expect(modelTitle(offlineTitle(titleRequestText("hello there", "Hi!")))).toBeNull();
  });
});
