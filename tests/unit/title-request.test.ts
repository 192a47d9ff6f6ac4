import { describe, expect, it } from "vitest";
import { titleFromMessage } from "@threadline/history/title";
import { offlineTitle } from "@/lib/model/offline-title";
import { modelTitle, titleRequestText } from "@/lib/model/title-request";

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
  // First messages a newcomer sends the demo, and what the sidebar then reads.
  it.each([
    ["What time is it in Tokyo, and what is 17% of 230?", "Time in Tokyo and a percentage"],
    ["Note for later: I love flamingos because they are pink", "Flamingos"],
    ["What is the best time to visit Porto in spring?", "Best time to visit Porto"],
    ["can you tell me how to bake sourdough bread at home", "Bake sourdough bread at home"],
    ["¿Qué hora es en Tokio?", "Qué hora es en Tokio"],
    ["What is Threadline?", "Threadline"],
    ["Convert 5 miles to km", "A unit conversion"],
    ["what is 12 times 7", "A calculation"],
    ["What time is it?", "The time"],
    ["Hi! Can you help me with my resume, it needs work", "Resume"],
    ["I want to learn about black holes and how they form", "Black holes and how they form"],
    ["How do I center a div in CSS?", "Center a div in CSS"],
    ["Let's talk about the Roman empire.", "Roman empire"],
    ["What did I say about flamingos in my other chats?", "Flamingos in other chats"],
    ["Why is the sky blue", "Sky blue"],
    ["Explain quantum entanglement", "Quantum entanglement"],
    ["Remember that I like green tea", "Green tea"],
    ["Please remember my sister is called Ana", "Sister is called Ana"],
    ["Forget that I live in Lisbon", "I live in Lisbon"],
  ])("of %j is %j", (message, title) => {
    expect(offlineTitle(titleRequestText(message, "…"))).toBe(title);
  });

  it("is empty for a message of greetings only, which leaves the first words", () => {
    expect(offlineTitle(titleRequestText("hello there", "Hi!"))).toBe("");
    expect(modelTitle(offlineTitle(titleRequestText("hello there", "Hi!")))).toBeNull();
  });
});
