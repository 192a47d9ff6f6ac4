import { describe, expect, it } from "vitest";
import { dueTime, localTime } from "@/lib/reminders/due-time";
import { plannedReminder, plannedToolCalls } from "@/lib/model/offline-model";

describe("a reminder's time", () => {
  it("reads an ISO 8601 time with its offset as that instant, whatever the user's zone", () => {
    expect(dueTime("2026-11-26T17:00:00+01:00", "Asia/Tokyo")?.toISOString()).toBe("2026-11-26T16:00:00.000Z");
    expect(dueTime("2026-11-26T17:00:00Z", "Europe/Paris")?.toISOString()).toBe("2026-11-26T17:00:00.000Z");
  });

  it("reads a wall-clock time as the user's own, daylight saving included", () => {
    expect(dueTime("2026-11-26T17:00", "Europe/Paris")?.toISOString()).toBe("2026-11-26T16:00:00.000Z");
    expect(dueTime("2026-07-01T17:00:00", "Europe/Paris")?.toISOString()).toBe("2026-07-01T15:00:00.000Z");
    expect(dueTime("2026-07-01 09:30", "America/New_York")?.toISOString()).toBe("2026-07-01T13:30:00.000Z");
  });

  it("refuses what is no date and time, or no real one", () => {
    for (const at of ["tomorrow", "2026-11-26", "2026-02-30T10:00", "17:00", "2026-11-26T25:00"]) expect(dueTime(at, "UTC"), at).toBeUndefined();
  });

  it("says the time in the user's zone", () => {
    expect(localTime(new Date("2026-11-26T16:00:00Z"), "Europe/Paris")).toBe("Thursday, 26 November 2026 at 17:00");
  });
});

describe("the offline model's reminders", () => {
  const now = Date.parse("2026-11-26T10:00:00Z");

  it("hears a reminder asked for in so many minutes, hours or days, either way round", () => {
    expect(plannedReminder("remind me in 2 minutes to stretch", now)).toEqual({ at: "2026-11-26T10:02:00.000Z", text: "stretch" });
    expect(plannedReminder("Please remind me to call Ana in an hour.", now)).toEqual({ at: "2026-11-26T11:00:00.000Z", text: "call Ana" });
    expect(plannedReminder("remind me in 3 days about the invoice", now)).toEqual({ at: "2026-11-29T10:00:00.000Z", text: "the invoice" });
    expect(plannedReminder("what time is it in Tokyo?", now)).toBeUndefined();
  });

  it("asks for the reminder, not the time, when the tool is on offer", () => {
    expect(plannedToolCalls("remind me in 2 minutes to stretch", new Set(["current_time", "schedule_reminder"]), now)).toEqual([
      { toolName: "schedule_reminder", input: { at: "2026-11-26T10:02:00.000Z", text: "stretch" } },
    ]);
  });
});
