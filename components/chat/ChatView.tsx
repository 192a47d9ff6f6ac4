"use client";

import { lazy, Suspense, useEffect, useMemo, useRef } from "react";
import type { HistoryMessage, MessageVersions } from "@/lib/protocol/threads";
import type { NextTurnHistory, PendingTurn } from "@/lib/protocol/chat";
import type { McpServerStatus } from "@/lib/protocol/mcp";
import { Composer } from "@/components/chat/Composer";
import { EmptyState } from "@/components/chat/EmptyState";
import { ExportMenu } from "@/components/chat/ExportMenu";
import { ShareButton } from "@/components/shares/ShareButton";
import type { MessageActions } from "@/components/chat/MessageActions";
import { MessageList } from "@/components/chat/MessageList";
import { useThreadChat } from "@/components/chat/useThreadChat";
import { HeaderActions } from "@/components/ui/HeaderActions";
import { ModelPicker } from "@/components/chat/ModelPicker";
import { ThreadWingsProvider } from "@/components/chat/ThreadWingsContext";
import { DocumentPanel } from "@/components/chat/DocumentPanel";
import { usePageSettings } from "@/components/chat/PageSettingsContext";
import type { ModelOption } from "@/lib/protocol/models";
import { BudgetWarning } from "@/components/budgets/BudgetWarning";
import { myBudget } from "@/lib/client/budgets";
import { TemporaryChatLabel, TemporaryChatSwitch } from "@/components/chat/TemporaryChat";

// Shown only with ?debug=true: loaded then.
const HistoryDebugPanel = lazy(() => import("@/components/chat/HistoryDebugPanel").then((m) => ({ default: m.HistoryDebugPanel })));

export interface ChatViewProps {
  /** null for a brand-new chat; the server names the thread on the first reply. */
  threadId: string | null;
  /** The thread as the server rendered it (empty for a new chat). */
  initialHistory: HistoryMessage[];
  /** A turn of this thread that has not finished well, when the page was rendered. */
  pendingTurn?: PendingTurn | null;
  /** Where the earlier messages begin, when the page holds only the latest (null: it holds the start). */
  olderCursor?: string | null;
  /** The "2 / 3" of each message of the thread's path that has other versions, when the page was rendered. */
  versions?: MessageVersions[];
  /** With ?debug=true: the history setting the next message will be given, as the server resolved it for this page. */
  historyDebug?: NextTurnHistory;
  /** The model the thread's latest reply was written with (null: none yet, or a new chat). */
  threadModel?: string | null;
  /** With ?debug=true: the operator's MCP servers, as the page was rendered. */
  mcpServers?: McpServerStatus[];
  /** The thread is a temporary chat (it neither reads nor writes memory). */
  temporary?: boolean;
}

export function ChatView({ historyDebug, threadModel, mcpServers = [], ...thread }: ChatViewProps) {
  const { models, maxUploadBytes } = usePageSettings();
  const { snapshot, controller, focusId } = useThreadChat({ ...thread, models, threadModel, maxUploadBytes });
  const { model } = snapshot;
  const isEmpty = snapshot.messages.length === 0;
  const lastReply = snapshot.messages.findLast((m) => m.role === "assistant");
  const composerInput = useRef<HTMLTextAreaElement>(null);
  const choose = controller.chooseModel;
  // A turn that ended (answered, stopped or refused) spent from the person's budget: it is read again.
  const wasBusy = useRef(snapshot.busy);
  useEffect(() => {
    if (wasBusy.current && !snapshot.busy) void myBudget.refresh();
    wasBusy.current = snapshot.busy;
  }, [snapshot.busy]);
  const actions = useMemo<MessageActions>(
    () => ({
      threadId: snapshot.threadId,
      // The reply and its button make way for the new one: the focus goes to the composer, where Stop is.
      regenerate: (replyId, picked) => {
        if (picked) choose(picked);
        controller.regenerate(replyId);
        composerInput.current?.focus();
      },
      switchVersion: (messageId, control) => void controller.switchVersion(messageId, control),
      fork: (messageId) => void controller.fork(messageId),
      // The edited message leaves the page with its form: the focus goes to the composer, where the reply is followed.
      edit: (messageId, text) => {
        controller.edit(messageId, text);
        composerInput.current?.focus();
      },
      // The card makes way for the reply going on: the focus goes to the composer, where Stop is.
      decide: async (approvalId, decision) => {
        await controller.decide(approvalId, decision);
        composerInput.current?.focus();
      },
    }),
    [controller, choose, snapshot.threadId],
  );

  // The composer keeps the same position in the tree in both layouts, so its
  // draft and focus survive the switch from the empty state to the thread.
  return (
    <ThreadWingsProvider wings={controller.wings}>
    <div className="flex h-full">
    <div className="flex h-full min-w-0 flex-1 flex-col">
      {historyDebug && (
        <Suspense fallback={null}>
          <HistoryDebugPanel
            report={snapshot.history.report}
            historySource={snapshot.history.source}
            next={historyDebug}
            models={{ lastReply: lastReply?.metadata?.model, next: model?.id }}
            mcpServers={mcpServers}
            lastReply={snapshot.threadId && lastReply && !snapshot.busy ? { threadId: snapshot.threadId, replyId: lastReply.id } : undefined}
            memoriesUsed={lastReply ? snapshot.memoriesUsed.get(lastReply.id) : undefined}
          />
        </Suspense>
      )}
      {!isEmpty && snapshot.threadId && (
        <HeaderActions>
          {snapshot.temporary && <TemporaryChatLabel />}
          <ShareButton threadId={snapshot.threadId} />
          <ExportMenu threadId={snapshot.threadId} />
        </HeaderActions>
      )}
      {isEmpty ? <EmptyState /> : <MessageList thread={snapshot} focusId={focusId} controls={controller} actions={actions} />}
      <BudgetWarning />
      {isEmpty && snapshot.threadId === null && <TemporaryChatSwitch on={snapshot.temporary} onChange={controller.setTemporary} />}
      <Composer
        busy={snapshot.busy}
        stopping={snapshot.stopping}
        onSend={controller.send}
        onStop={controller.stop}
        tray={controller.attachments}
        inputRef={composerInput}
        picker={model && models.length > 1 ? <ModelPicker models={models} value={model.id} disabled={snapshot.busy} onChange={choose} /> : undefined}
        notice={model?.notice}
        blindModel={blindModel(models, model?.id)}
      />
      {isEmpty && <div className="flex-1" aria-hidden="true" />}
    </div>
    {snapshot.threadId && <DocumentPanel threadId={snapshot.threadId} />}
    </div>
    </ThreadWingsProvider>
  );
}

/** The label of the model a message goes to when it cannot see images (the default when none is picked); undefined when it can. */
function blindModel(models: ModelOption[], id: string | undefined): string | undefined {
  const model = models.find((m) => m.id === id) ?? models.find((m) => m.default);
  return model && !model.capabilities.images ? model.label : undefined;
}
