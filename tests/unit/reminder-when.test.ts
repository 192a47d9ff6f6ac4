import { describe, expect, it } from "vitest";
import { reminderWhen } from "@/lib/client/reminder-time";

// Dates built from local parts: the words are the viewer's calendar, whatever the machine's zone.
const now = new Date(2026, 10, 27, 9, 0); // a Friday morning
// Newer ICU data puts a narrow no-break space before AM/PM.
const when = (due: Date) => reminderWhen(due, now, "en-US").replace(/\s/g, " ");

describe("when a reminder is due, in words", () => {
  it("names the day while it is near, the date beyond a week", () => {
    expect(when(new Date(2026, 10, 27, 17, 0))).toBe("Today, 5:00 PM");
    expect(when(new Date(2026, 10, 28, 9, 30))).toBe("Tomorrow, 9:30 AM");
    expect(when(new Date(2026, 10, 30, 8, 0))).toBe("Mon, 8:00 AM");
    expect(when(new Date(2026, 11, 24, 18, 0))).toBe("Dec 24, 6:00 PM");
    expect(when(new Date(2027, 0, 2, 10, 0))).toBe("Jan 2, 2027, 10:00 AM");
  });

  it("says a reminder whose time has come is due now", () => {
    expect(when(new Date(2026, 10, 27, 9, 0))).toBe("Due now");
    expect(when(new Date(2026, 10, 27, 8, 59))).toBe("Due now");
  });
});
