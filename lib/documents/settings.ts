import "server-only";
import { slice, wholeNumber, type SettingsOf } from "@/lib/env";

/** The documents wing's part of the configuration: how large, how many, how often edited. */
export const documentsSettings = slice({
  shape: {
    /** The owner's saved edits of documents per identity per minute; 0: off. */
    RATE_LIMIT_DOCUMENT_EDITS_PER_MINUTE: wholeNumber(0, 999_999_999).default(30).describe("document edits per identity per minute"),
    /** The most text one document keeps, all its versions together, in megabytes (UTF-8); a write past it is refused. */
    DOCUMENT_MAX_STORED_MB: wholeNumber(1, 1_000).default(4).describe("document size limit, all versions, MB"),
    /** The most documents one thread holds; past it an agent's create_document fails with the reason. */
    DOCUMENTS_PER_THREAD: wholeNumber(1, 10_000).default(50).describe("documents per thread"),
  },
});

/** The documents wing's configuration. */
export type DocumentsSettings = SettingsOf<typeof documentsSettings>;
