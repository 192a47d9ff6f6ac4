/**
 * What a thread's page needs of the list of threads, whatever shows that
 * list: a port the sidebar implements, so the chat imports no sidebar and the
 * sidebar knows no chat.
 */
export interface ThreadListPort {
  /** Reads the list again (a new thread got its id, a fork was made, a reply ended). */
  refresh: () => Promise<void>;
  /**
   * Calls `listener` on news of the thread, as it arrives, and after the news
   * stream came back from a break (news may have been missed). Returns the
   * function that stops it.
   */
  onThreadNews: (threadId: string, listener: () => void) => () => void;
}
