// Limits the API enforces, repeated here so the UI can say so before a round trip.

/** Characters in one chat message. */
export const MAX_MESSAGE_CHARS = 32_000;

/** Characters in a thread title. */
export const MAX_THREAD_TITLE_CHARS = 120;

/** Messages in the `history` of one chat request. */
export const MAX_HISTORY_ITEMS = 500;

/** The request body cap is 4 MiB; history must leave room for the rest of the body. */
export const MAX_HISTORY_BYTES = 3.5 * 1024 * 1024;
