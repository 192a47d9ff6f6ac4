import "server-only";
import type { Wing, WingParts } from "@/lib/wing";
import { listFeedback, setFeedback, threadFeedback, type FeedbackInput } from "./feedback-store";

// Feedback's part of a thread's life: a reply version's rating goes with its
// thread (by cascade), travels in a thread file on the reply it rates, and
// shows on the timeline. A fork copies no feedback: it rated the original.

const services = ({ pool }: WingParts) => ({
  /** The owner's feedback on reply versions. */
  feedback: {
    set: (owner: string, threadId: string, messageId: string, input: FeedbackInput) => setFeedback(pool(), owner, threadId, messageId, input),
    ofThread: (owner: string, threadId: string) => threadFeedback(pool(), owner, threadId),
    list: (owner: string, options: Parameters<typeof listFeedback>[2]) => listFeedback(pool(), owner, options),
  },
});

export const feedbackWing: Wing<unknown, ReturnType<typeof services>> = {
  name: "feedback",
  tables: ["message_feedback"],
  services,
  thread: {
    async export(db, { owner, threadId }) {
      const feedback = await threadFeedback(db, owner, threadId);
      return { message: (message) => (feedback[message.id] ? { feedback: feedback[message.id] } : {}) };
    },
    async importAfter({ tx, threadId }, { feedback }) {
      if (feedback.length === 0) return;
      await tx.query(
        `INSERT INTO message_feedback (thread_id, message_id, rating, reason, comment, updated_at)
         SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[])`,
        [
          threadId,
          feedback.map((f) => f.messageId),
          feedback.map((f) => f.feedback.rating),
          feedback.map((f) => f.feedback.reason ?? null),
          feedback.map((f) => f.feedback.comment ?? null),
          feedback.map((f) => f.feedback.updatedAt),
        ],
      );
    },
    timeline: async (db, { owner, threadId }) => ({ feedback: await threadFeedback(db, owner, threadId) }),
  },
};
