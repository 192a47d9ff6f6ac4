"use client";

import { useId, useRef, useState, type FormEvent } from "react";
import { FEEDBACK_REASONS, MAX_FEEDBACK_COMMENT, type FeedbackReason } from "@/lib/protocol/feedback-reasons";
import type { FeedbackRequest } from "@/lib/protocol/feedback";
import { useFeedback } from "@/components/chat/ThreadWingsContext";
import { useDismiss } from "@/components/ui/useDismiss";
import { ThumbDownIcon, ThumbUpIcon } from "@/components/ui/icons";
import { actionButtonClass } from "@/components/chat/MessageActions";

/**
 * "Good response" and "Bad response" under a reply version: pressed shows
 * what stands, pressed again clears it. "Bad response" counts at once and
 * then asks why (a reason from a short list, and words of one's own), which
 * the user may send or leave.
 */
export function FeedbackButtons({ messageId }: { messageId: string }) {
  const feedback = useFeedback();
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const root = useRef<HTMLDivElement>(null);
  const badButton = useRef<HTMLButtonElement>(null);
  const closeOnEscape = useDismiss(asking, root, setAsking, badButton);
  const current = feedback.byMessage[messageId];

  const change = async (body: FeedbackRequest) => {
    setError(null);
    try {
      await feedback.set(messageId, body);
      return true;
    } catch (refused) {
      setError((refused as Error).message);
      return false;
    }
  };
  const good = () => {
    setAsking(false);
    void change({ rating: current?.rating === "up" ? null : "up" });
  };
  const bad = async () => {
    if (current?.rating === "down") {
      setAsking(false);
      await change({ rating: null });
      return;
    }
    if (await change({ rating: "down" })) setAsking(true);
  };
  const reasonLabel = current?.reason ? FEEDBACK_REASONS[current.reason] : undefined;

  return (
    <div ref={root} className="relative flex items-center" onKeyDown={closeOnEscape}>
      <button
        type="button"
        aria-label="Good response"
        title="Good response"
        aria-pressed={current?.rating === "up"}
        onClick={good}
        className={actionButtonClass}
      >
        <ThumbUpIcon filled={current?.rating === "up"} />
      </button>
      <button
        ref={badButton}
        type="button"
        aria-label="Bad response"
        title={reasonLabel ? `Bad response: ${reasonLabel}` : "Bad response"}
        aria-pressed={current?.rating === "down"}
        onClick={() => void bad()}
        className={actionButtonClass}
      >
        <ThumbDownIcon filled={current?.rating === "down"} />
      </button>
      {error && (
        <p role="alert" className="ml-1 text-xs text-red-600 dark:text-red-400">
          {error}
        </p>
      )}
      {asking && (
        <WhyForm
          initial={current}
          onSend={async (reason, comment) => {
            if (await change({ rating: "down", ...(reason ? { reason } : {}), ...(comment ? { comment } : {}) })) {
              setAsking(false);
              badButton.current?.focus();
            }
          }}
        />
      )}
    </div>
  );
}

/** What was wrong: one reason of the short list, and a comment; both may be left out. */
function WhyForm({
  initial,
  onSend,
}: {
  initial?: { reason?: FeedbackReason; comment?: string };
  onSend: (reason: FeedbackReason | undefined, comment: string) => Promise<void>;
}) {
  const [reason, setReason] = useState<FeedbackReason | undefined>(initial?.reason);
  const [comment, setComment] = useState(initial?.comment ?? "");
  const [sending, setSending] = useState(false);
  const commentId = useId();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSending(true);
    await onSend(reason, comment.trim());
    setSending(false);
  };
  return (
    <form
      aria-label="What was wrong with this response?"
      onSubmit={(event) => void submit(event)}
      className="absolute bottom-full left-0 z-20 mb-1 w-72 rounded-lg border border-neutral-200 bg-white p-3 text-xs shadow-lg dark:border-neutral-700 dark:bg-neutral-800"
    >
      <fieldset>
        <legend className="mb-1 font-medium">What was wrong? (optional)</legend>
        {(Object.entries(FEEDBACK_REASONS) as [FeedbackReason, string][]).map(([value, label]) => (
          <label key={value} className="flex items-center gap-2 py-0.5">
            <input type="radio" name="reason" value={value} checked={reason === value} onChange={() => setReason(value)} autoFocus={reason ? reason === value : value === "inaccurate"} />
            {label}
          </label>
        ))}
      </fieldset>
      <label htmlFor={commentId} className="mt-2 block font-medium">
        Comment (optional)
      </label>
      <textarea
        id={commentId}
        value={comment}
        maxLength={MAX_FEEDBACK_COMMENT}
        onChange={(event) => setComment(event.target.value)}
        rows={3}
        className="mt-1 w-full rounded border border-neutral-300 bg-transparent p-1.5 dark:border-neutral-600"
      />
      <button
        type="submit"
        disabled={sending}
        className="mt-2 rounded-md bg-neutral-900 px-3 py-1 text-white hover:bg-neutral-700 focus-visible:ring-2 focus-visible:ring-neutral-500 disabled:opacity-50 dark:bg-neutral-100 dark:text-neutral-900"
      >
        Send feedback
      </button>
    </form>
  );
}
