import "server-only";
import { slice, wholeNumber, type SettingsOf } from "@/lib/env";

/** The files wing's part of the configuration: how much may be uploaded, and how often. */
export const filesSettings = slice({
  shape: {
    /** Uploads per identity per hour; 0: off. */
    RATE_LIMIT_UPLOADS_PER_HOUR: wholeNumber(0, 999_999_999).default(200).describe("uploads per identity per hour"),
    /** Uploads per client address per hour, across identities; 0: off. */
    RATE_LIMIT_UPLOADS_PER_HOUR_PER_ADDRESS: wholeNumber(0, 999_999_999).default(600).describe("uploads per address per hour"),
    /** The most one attached file may be, in megabytes (a message carries at most 5). */
    ATTACHMENT_MAX_MB: wholeNumber(1, 1_000).default(10).describe("attachment size limit, MB"),
    /** The most all of one identity's files may take together, in megabytes; 0: no quota. */
    STORAGE_QUOTA_MB: wholeNumber(0, 100_000_000).default(1_000).describe("stored files per identity, MB"),
  },
});

/** The files wing's configuration. */
export type FilesSettings = SettingsOf<typeof filesSettings>;
