import "server-only";
import { slice, wholeNumber, type SettingsOf } from "@/lib/env";

/** The share links' part of the configuration: how many one person may have, how large one may be, how often one is opened. */
export const sharesSettings = slice({
  shape: {
    /** The most links one person may have that are not revoked (expired ones count until revoked). */
    SHARES_PER_IDENTITY: wholeNumber(1, 100_000).default(200).describe("share links per identity"),
    /** The most a link's snapshot may hold, as stored JSON (messages and documents; the files it shows are the owner's, not copied). */
    SHARE_MAX_KB: wholeNumber(1, 1_048_576).default(4096).describe("a share link's snapshot, in KB"),
    /** Links made per identity per hour; 0: off. */
    RATE_LIMIT_SHARES_PER_HOUR: wholeNumber(0, 999_999_999).default(60).describe("share links made per identity per hour"),
    /** Shared pages (and their Markdown and files) opened per address per minute; 0: off. */
    RATE_LIMIT_SHARE_VIEWS_PER_MINUTE_PER_ADDRESS: wholeNumber(0, 999_999_999).default(120).describe("shared pages opened per address per minute"),
  },
});

/** The share links' configuration. */
export type SharesSettings = SettingsOf<typeof sharesSettings>;
