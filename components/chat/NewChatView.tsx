"use client";

import { ChatView } from "@/components/chat/ChatView";
import { useNewChat } from "@/components/chat/NewChatContext";
import type { NextTurnHistory } from "@/lib/protocol/chat";
import type { McpServerStatus } from "@/lib/protocol/mcp";

/** The "/" page: an empty chat, replaced by a fresh one each time "New chat" is pressed. */
export function NewChatView({ historyDebug, mcpServers }: { historyDebug?: NextTurnHistory; mcpServers?: McpServerStatus[] }) {
  const { newChatKey } = useNewChat();
  return <ChatView key={newChatKey} threadId={null} initialHistory={[]} historyDebug={historyDebug} mcpServers={mcpServers} />;
}
