// How the share dialog and the Shared links page word a link's options and
// its life. Pure functions only.
import type { SharedLink, ShareExpiryDays, ShareOptions } from "@/lib/protocol/shares";

/** The "Expires" select's choices, in the order it lists them. */
export const EXPIRY_CHOICES: { days: ShareExpiryDays; label: string }[] = [
  { days: null, label: "Never" },
  { days: 1, label: "1 day" },
  { days: 7, label: "7 days" },
  { days: 30, label: "30 days" },
];

/** What each option adds to a link, as a list names it. */
const OPTION_WORDS: Record<keyof ShareOptions, string> = {
  documents: "documents",
  attachments: "attachments",
  toolDetails: "tool details",
  reasoning: "reasoning",
};

/** "documents, reasoning": what a link shows besides the messages' text; "messages only" when nothing. */
export function includedText(options: ShareOptions): string {
  const shown = (Object.keys(OPTION_WORDS) as (keyof ShareOptions)[]).filter((option) => options[option]).map((option) => OPTION_WORDS[option]);
  return shown.length > 0 ? shown.join(", ") : "messages only";
}

/** A date as a reader says it, in their own locale and time zone. */
export const dateText = (at: string) => new Date(at).toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });

/** A moment as a reader says it: a link that lasts a day ends at an hour, not just on a date. */
const momentText = (at: string) => new Date(at).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

/** "Never expires", "Expires <date and time>" or "Expired". */
export function expiryText(link: Pick<SharedLink, "expiresAt" | "expired">): string {
  if (link.expired) return "Expired";
  return link.expiresAt === null ? "Never expires" : `Expires ${momentText(link.expiresAt)}`;
}

export const viewsText = (views: number) => `${views.toLocaleString("en-US")} view${views === 1 ? "" : "s"}`;
