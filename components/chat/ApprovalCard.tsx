"use client";

import { useId, useState } from "react";
import { AppError } from "@threadline/history/errors";
import { MAX_APPROVAL_REASON } from "@threadline/history/parts-plain";
import type { ApprovalDecision } from "@/lib/client/api";
import { errorMessage } from "@/lib/client/error-message";
import { pretty, toolDisplayName } from "@/components/chat/tool-status";

export type DecideApproval = (approvalId: string, decision: ApprovalDecision) => Promise<void>;

interface ApprovalCardProps {
  /** The call that waits: its tool, its input, and the approval's id the decision names. */
  toolName: string;
  input: unknown;
  approvalId: string;
  onDecide: DecideApproval;
  /** Another reply is on its way in the thread: the decision waits. */
  locked: boolean;
}

type Sending = { state: "idle" } | { state: "sending"; approved: boolean } | { state: "failed"; message: string; final: boolean };

/**
 * A tool call that waits for the user: what the agent wants to run, with
 * what, and the decision. While it is sent the buttons wait; a call decided
 * already (in another tab, or settled by the server) stays decided (the
 * thread says how); any other failure says why and the buttons come back.
 */
export function ApprovalCard({ toolName, input, approvalId, onDecide, locked }: ApprovalCardProps) {
  const shown = toolDisplayName(toolName);
  const titleId = useId();
  const nameId = useId();
  const reasonId = useId();
  const hintId = useId();
  const [reason, setReason] = useState("");
  const [sending, setSending] = useState<Sending>({ state: "idle" });
  const decided = sending.state === "sending" || (sending.state === "failed" && sending.final);

  async function decide(approved: boolean) {
    if (decided || locked) return;
    setSending({ state: "sending", approved });
    try {
      await onDecide(approvalId, { approved, reason });
      // The reply goes on and this card makes way for it.
    } catch (error) {
      const final = error instanceof AppError && error.code === "conflict:already_decided";
      setSending({ state: "failed", final, message: errorMessage(error, "Could not send your decision. Try again.") });
    }
  }

  const button =
    "rounded-lg px-3 py-1.5 text-sm font-medium outline-none focus-visible:ring-2 focus-visible:ring-offset-2 focus-visible:ring-neutral-500 disabled:cursor-not-allowed disabled:opacity-50 dark:focus-visible:ring-offset-neutral-900";
  return (
    <div
      role="group"
      aria-labelledby={`${titleId} ${nameId}`}
      aria-busy={sending.state === "sending" || undefined}
      className="space-y-3 rounded-xl border border-amber-300 bg-amber-50/60 px-3 py-3 text-sm dark:border-amber-800 dark:bg-amber-950/30"
    >
      <div className="flex items-center gap-2">
        <span aria-hidden="true" className="size-2 shrink-0 rounded-full bg-amber-500" />
        <p id={titleId} className="font-medium text-amber-900 dark:text-amber-200">
          Waiting for your approval
        </p>
      </div>
      <div>
        <p className="mb-1 text-xs text-neutral-700 dark:text-neutral-300">
          The agent wants to run{" "}
          <code id={nameId} className="font-mono font-semibold">
            {shown.name}
          </code>
          {shown.server && <> of the MCP server <strong className="font-semibold">{shown.server}</strong></>} with:
        </p>
        <pre className="max-h-60 overflow-auto rounded-lg bg-white/80 p-2 font-mono text-xs leading-relaxed whitespace-pre-wrap wrap-anywhere dark:bg-neutral-900/70">
          {pretty(input)}
        </pre>
      </div>
      <div>
        <label htmlFor={reasonId} className="mb-1 block text-xs font-medium text-neutral-700 dark:text-neutral-300">
          Reason
        </label>
        <textarea
          id={reasonId}
          aria-describedby={hintId}
          value={reason}
          onChange={(event) => setReason(event.target.value)}
          maxLength={MAX_APPROVAL_REASON}
          readOnly={decided}
          rows={2}
          className="w-full resize-y rounded-lg border border-neutral-300 bg-white px-2 py-1.5 text-sm outline-none focus-visible:border-neutral-500 focus-visible:ring-2 focus-visible:ring-neutral-400 dark:border-neutral-600 dark:bg-neutral-900"
        />
        <p id={hintId} className="mt-0.5 text-xs text-neutral-600 dark:text-neutral-400">
          Optional, up to {MAX_APPROVAL_REASON} characters. The agent reads it if you deny.
        </p>
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <button
          type="button"
          disabled={decided || locked}
          onClick={() => void decide(true)}
          className={`${button} bg-neutral-900 text-white hover:bg-neutral-700 dark:bg-neutral-100 dark:text-neutral-900 dark:hover:bg-neutral-300`}
        >
          Approve
        </button>
        <button
          type="button"
          disabled={decided || locked}
          onClick={() => void decide(false)}
          className={`${button} border border-neutral-300 bg-white text-neutral-900 hover:bg-neutral-100 dark:border-neutral-600 dark:bg-neutral-900 dark:text-neutral-100 dark:hover:bg-neutral-800`}
        >
          Deny
        </button>
        {sending.state === "sending" && (
          <span role="status" className="text-xs text-neutral-600 dark:text-neutral-400">
            {sending.approved ? "Approving…" : "Denying…"}
          </span>
        )}
      </div>
      {/* Decided already: the thread says how, under it, as it catches up. */}
      {sending.state === "failed" && sending.final && <p className="text-xs text-neutral-700 dark:text-neutral-300">Already decided.</p>}
      {sending.state === "failed" && !sending.final && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-400">
          {sending.message}
        </p>
      )}
    </div>
  );
}
