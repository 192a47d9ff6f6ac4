// What a client may send. The API enforces these; the UI uses the same numbers
// to say so before a round trip.
export const limits = {
  maxMessageChars: 32_000,
  maxTitleChars: 120,
  maxHistoryItems: 500,
  /** A reply's parts: text, reasoning, tool calls and results of every agent that spoke. */
  maxPartsPerMessage: 200,
  maxBodyBytes: 4 * 1024 * 1024,
  /** The client's history must leave room in the body for the rest of the request. */
  maxHistoryBytes: 3.5 * 1024 * 1024,
  maxThreadsPage: 100,
  /**
   * A thread file (lib/protocol/thread-export.ts), every version of every
   * message: what GET /api/threads/:id/export writes at most, and so what
   * POST /api/threads/import reads at most. Far above a real thread (a
   * year of daily conversation is a few thousand messages), low enough that
   * one file cannot fill a server's memory or disk.
   */
  maxThreadFileBytes: 128 * 1024 * 1024,
  maxThreadFileMessages: 100_000,
  /** Files a thread file carries (each once, whatever number of messages name it). */
  maxThreadFileFiles: 10_000,
  /** Part rows of the whole file, every message's together. */
  maxThreadFileParts: 400_000,
  defaultThreadsPage: 30,
  /** Files one message carries; each is at most ATTACHMENT_MAX_MB (lib/files/settings.ts). */
  maxFilesPerMessage: 5,
} as const;

/** The most tokens an answer's model call asks for when the operator sets nothing (MAX_OUTPUT_TOKENS's default); a budget may allow less. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 16_384;
