import { generateText, jsonSchema, streamText, tool } from "ai";
import { describe, expect, it } from "vitest";
import { createOfflineModel, plannedReminder, plannedToolCalls, toSecondPerson } from "@/lib/model/offline-model";
import { requestKindHeaders, SUMMARY_REQUEST, TITLE_REQUEST } from "@/lib/model/request-kind.mjs";
import { modelTitle, TITLE_INSTRUCTIONS, titleRequestText } from "@/lib/model/title-request";
import { offlineSummary, SUMMARY_INSTRUCTIONS, summaryRequestText } from "@/lib/model/summary-request";

describe("the offline demo model", () => {
  it("streams its reply word by word and answers what the user wrote", async () => {
    const result = streamText({
      model: createOfflineModel(),
      messages: [
        { role: "user", content: "first" },
        { role: "assistant", content: "ok" },
        { role: "user", content: "What is Threadline?" },
      ],
    });
    const deltas: string[] = [];
    for await (const delta of result.textStream) deltas.push(delta);
    const text = deltas.join("");
    expect(deltas.length).toBeGreaterThan(20);
    expect(text).toContain('You wrote: "What is Threadline?"');
    expect(text).toContain("2 messages from you");
    expect(text).toMatch(/offline demo model/);
  });

  it("stops when aborted", async () => {
    const controller = new AbortController();
    const result = streamText({ model: createOfflineModel(), prompt: "hi", abortSignal: controller.signal, onError: () => {} });
    let seen = 0;
    for await (const part of result.fullStream) {
      if (part.type === "text-delta" && ++seen === 3) controller.abort();
    }
    expect(seen).toBe(3);
  });

  it("answers a summary request, known by its headers and not by its prompt, with the offline summary", async () => {
    const prompt = summaryRequestText(undefined, [{ id: "u1", role: "user", parts: [{ type: "text", text: "I take my tea with lemon" }] }]);
    const marked = await generateText({ model: createOfflineModel(), system: SUMMARY_INSTRUCTIONS, prompt, headers: requestKindHeaders(SUMMARY_REQUEST) });
    expect(marked.text).toBe(offlineSummary(prompt));
    expect(marked.text).toContain("I take my tea with lemon");
    // The same words without the header are an ordinary message.
    const unmarked = await generateText({ model: createOfflineModel(), system: SUMMARY_INSTRUCTIONS, prompt });
    expect(unmarked.text).toMatch(/offline demo model/);
  });

  it("answers a title request, known by its headers, with a deterministic title of what the message is about", async () => {
    const prompt = titleRequestText("What is the best time to visit Porto in spring?", "Late April, mostly.");
    const ask = () => generateText({ model: createOfflineModel(), system: TITLE_INSTRUCTIONS, prompt, headers: requestKindHeaders(TITLE_REQUEST) });
    const marked = await ask();
    expect(marked.text).toBe("Best time to visit Porto");
    expect((await ask()).text).toBe(marked.text);
    expect(modelTitle(marked.text)).toBe("Best time to visit Porto");
    const unmarked = await generateText({ model: createOfflineModel(), system: TITLE_INSTRUCTIONS, prompt });
    expect(unmarked.text).toMatch(/offline demo model/);
  });

  it("calls its tools for the newcomer's first natural question, in the calculator's notation", () => {
    const calls = plannedToolCalls("What time is it in Tokyo, and what is 17% of 230?", new Set(["current_time", "calculate", "search_threads"]));
    expect(calls).toEqual([
      { toolName: "current_time", input: { timeZone: "Tokyo" } },
      { toolName: "calculate", input: { expression: "17 / 100 * 230" } },
    ]);
  });

  it("answers a calculation it cannot read in words, and calls no tool for it", async () => {
    const calculate = tool({ description: "calculate", inputSchema: jsonSchema<{ expression: string }>({ type: "object", properties: { expression: { type: "string" } } }) });
    const { text, toolCalls } = await generateText({ model: createOfflineModel(), prompt: "what is 5 apples plus 3 oranges?", tools: { calculate } });
    expect(toolCalls).toEqual([]);
    expect(text).toContain('I could not read "5 apples plus 3 oranges" as a calculation');
    expect(text).toContain("17% of 230");
  });
});

describe("the offline model saying the user's words back", () => {
  it("turns their first person into the second, in the case they wrote it", () => {
    expect(toSecondPerson("stretch my legs")).toBe("stretch your legs");
    expect(toSecondPerson("call me when I am done")).toBe("call you when you are done");
    expect(toSecondPerson("I'm late, I've a train, I’ll run and I'd rather not")).toBe("you're late, you've a train, you’ll run and you'd rather not");
    expect(toSecondPerson("where was I, and am I late? I was early")).toBe("where were you, and are you late? you were early");
    expect(toSecondPerson("the book is mine, so ask myself")).toBe("the book is yours, so ask yourself");
    expect(toSecondPerson("My tea. Me first. CALL ME")).toBe("Your tea. You first. CALL YOU");
  });

  it("leaves what only looks like a pronoun, and the second person, as it is", () => {
    expect(toSecondPerson("take the I-95 to meet Amy at my-time.com")).toBe("take the I-95 to meet Amy at my-time.com");
    expect(toSecondPerson("add i to j, then mine-craft")).toBe("add i to j, then mine-craft");
    expect(toSecondPerson("ask you about the plan")).toBe("ask you about the plan");
  });

  it("confirms a reminder in the second person, while the reminder keeps the words the user typed", async () => {
    const ask = "Remind me in 2 minutes to stretch my legs";
    const reminder = plannedReminder(ask, Date.parse("2026-01-31T12:00:00Z"))!;
    expect(reminder.text).toBe("stretch my legs");
    const { text } = await generateText({
      model: createOfflineModel(),
      messages: [
        { role: "user", content: ask },
        { role: "assistant", content: [{ type: "tool-call", toolCallId: "call_1", toolName: "schedule_reminder", input: reminder }] },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: "call_1",
              toolName: "schedule_reminder",
              output: { type: "json", value: { text: reminder.text, local: "Sat, Jan 31, 12:02", timeZone: "UTC" } },
            },
          ],
        },
      ],
    });
    expect(text).toContain("I will remind you to stretch your legs on **Sat, Jan 31, 12:02** (UTC).");
  });
});
