import type { HistoryConfig, Reply, StoredMessage, UserMessage } from "@/lib/history/types";

/**
 * An in-memory adapter that records every hook call, for the lifecycle unit
 * tests: the four hooks and nothing more (no turns, no summaries), as an
 * adapter may be.
 */
export class RecordingHistory implements HistoryConfig {
  calls: { hook: string; args: Record<string, unknown> }[] = [];
  existing = new Set<string>();
  stored: (UserMessage | Reply)[] = [];
  history: StoredMessage[] = [];
  nextThreadId = "11111111-1111-4111-8111-111111111111";

  async createThread(args: { owner: string; threadId?: string }) {
    this.calls.push({ hook: "createThread", args });
    const threadId = args.threadId ?? this.nextThreadId;
    const created = !this.existing.has(threadId);
    this.existing.add(threadId);
    return { threadId, created };
  }

  async get(args: { owner: string; threadId: string }) {
    this.calls.push({ hook: "get", args });
    return this.history;
  }

  async appendUserMessage(args: { owner: string; threadId: string; turnId: string; message: UserMessage }) {
    this.calls.push({ hook: "appendUserMessage", args });
    const stored = this.stored.some((m) => m.id === args.message.id);
    if (!stored) this.stored.push(args.message);
    return { duplicate: stored };
  }

  async appendResults(args: { owner: string; threadId: string; reply: Reply }) {
    this.calls.push({ hook: "appendResults", args });
    this.stored.push(args.reply);
  }

  hooks(): string[] {
    return this.calls.map((c) => c.hook);
  }
}
